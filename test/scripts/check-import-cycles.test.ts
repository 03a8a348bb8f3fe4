import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const SCRIPT = resolve(here, '..', '..', '..', 'scripts', 'check-import-cycles.mjs');

async function tree(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pvc-cycles-'));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return dir;
}

function check(dir: string): { status: number | null; stderr: string } {
  return spawnSync(process.execPath, [SCRIPT, dir], { encoding: 'utf8' });
}

test('the import-circle check fails on a circle through a type-only import and names its modules', async (t) => {
  const dir = await tree({
    'a/seam.ts': "import type { Impl } from '../b/impl.js';\nexport type Seam = Impl;\n",
    'b/impl.ts': "import { helper } from './helper.js';\nexport interface Impl { x: number }\nexport const y = helper;\n",
    'b/helper.ts': "export { other } from '../a/other.js';\nexport const helper = 1;\n",
    'a/other.ts': "export const other = async () => import('./seam.js');\n",
  });
  t.after(() => rm(dir, { recursive: true, force: true }));
  const r = check(dir);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /import circle: .*a\/other\.ts <-> .*a\/seam\.ts <-> .*b\/helper\.ts <-> .*b\/impl\.ts/);
});

test('the import-circle check passes a tree whose imports only point one way', async (t) => {
  const dir = await tree({
    'a.ts': "import { b } from './b.js';\nexport const a = b;\n",
    'b.ts': "// import { a } from './a.js';\nexport const b = 1;\n",
  });
  t.after(() => rm(dir, { recursive: true, force: true }));
  assert.equal(check(dir).status, 0);
});
