/**
 * Where things are, found relative to this compiled file so the harness runs the same from
 * `dist/` (npm run bench) and from any other tsc output directory: the compiled output root
 * (holding src/ and bench/ side by side) and the repository's own bench/ directory.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The tsc output root: the directory holding compiled `src/` and `bench/`. */
export function outputRoot(): string {
  return fileURLToPath(new URL('..', import.meta.url));
}

/** Compiled file of the project, e.g. compiled('src/cli/main.js'). */
export function compiled(relative: string): string {
  return join(outputRoot(), relative);
}

/** The repository root: the nearest ancestor with pv-controller's package.json. */
export function repoRoot(): string {
  let dir = outputRoot();
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'pv-controller') {
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the pv-controller repository root');
    dir = parent;
  }
}

/** The repository's bench/ directory (results land in bench/results). */
export function benchRoot(): string {
  return join(repoRoot(), 'bench');
}

/** The compiled CLI (`pv-controller`). */
export function cliPath(): string {
  return compiled('src/cli/main.js');
}
