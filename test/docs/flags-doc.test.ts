/** docs/flags.md is what the commands' own --help says: a changed flag without a regenerated doc fails here. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

function repoRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

test('docs/flags.md matches every command\'s --help (regenerate with scripts/flags-doc.mjs)', { timeout: 120_000 }, () => {
  const root = repoRoot(here);
  const cli = resolve(here, '..', '..', 'src', 'cli', 'main.js');
  const generated = execFileSync(process.execPath, [join(root, 'scripts', 'flags-doc.mjs'), cli], { encoding: 'utf8' });
  const committed = readFileSync(join(root, 'docs', 'flags.md'), 'utf8');
  assert.equal(committed, generated, 'run: npm run build && node scripts/flags-doc.mjs > docs/flags.md');
});
