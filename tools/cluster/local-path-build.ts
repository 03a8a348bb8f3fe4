/**
 * `npm run local-path:build`: builds rancher/local-path-provisioner, the node-local provisioner
 * the benchmark measures ours against (bench/local-path), from the tools/local-path wrapper
 * module into the control plane's bin directory (binaries.ts), with a `.version` stamp beside it
 * so that a new release in the wrapper's go.mod is rebuilt. A sibling of csi:build: CI runs both
 * in its background build step. Progress goes to stderr; the last line of stdout is the binary.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { binDir, isExecutable, onPath, REPO_ROOT, requiredVersion } from './binaries.js';
import { buildTargets, type BuildTarget } from './build.js';

export const LOCAL_PATH_MODULE = 'github.com/rancher/local-path-provisioner';
export const LOCAL_PATH_MODULE_DIR = join(REPO_ROOT, 'tools', 'local-path');
export const LOCAL_PATH_BINARY = 'local-path-provisioner';

/** The release tools/local-path/go.mod requires, e.g. v0.0.30. */
export function localPathVersion(): string {
  return requiredVersion(readFileSync(join(LOCAL_PATH_MODULE_DIR, 'go.mod'), 'utf8'), LOCAL_PATH_MODULE);
}

export function localPathBinaryPath(): string {
  return join(binDir(), LOCAL_PATH_BINARY);
}

export function localPathTarget(version: string = localPathVersion()): BuildTarget {
  const stamp = `${LOCAL_PATH_MODULE} ${version}`;
  // Its Makefile stamps main.VERSION (printed by --version); the main package is the module root.
  const ldflags = `-s -w -X main.VERSION=${version}`;
  return { name: LOCAL_PATH_BINARY, release: stamp, dir: LOCAL_PATH_MODULE_DIR, pkg: LOCAL_PATH_MODULE, ldflags, out: localPathBinaryPath(), stamp };
}

function stampOf(out: string): string | undefined {
  try {
    return readFileSync(`${out}.version`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** Whether the binary is missing or was built from another release than the wrapper asks for. */
export function localPathStale(): boolean {
  const t = localPathTarget();
  return !isExecutable(t.out) || stampOf(t.out) !== t.stamp;
}

/** Why local-path-provisioner cannot run here (for a skip), or undefined when it is built. */
export function localPathUnavailable(): string | undefined {
  if (isExecutable(localPathBinaryPath())) return undefined;
  const hint = onPath('go') ? 'run `npm run local-path:build`' : 'Go is not installed, so it cannot be built here';
  return `local-path-provisioner is not built (${localPathBinaryPath()}): ${hint}`;
}

export async function buildLocalPath(log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<string> {
  const t = localPathTarget();
  if (!localPathStale()) {
    log(`${t.release}: already built`);
    return t.out;
  }
  if (!onPath('go')) throw new Error('go is not on PATH: local-path-provisioner cannot be built on this machine');
  await buildTargets([t], log);
  return t.out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  buildLocalPath().then(
    (out) => process.stdout.write(`${out}\n`),
    (err: unknown) => {
      process.stderr.write(`local-path:build: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
