import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { isTemporaryRecordName, RECORD_DIR } from '../../../src/plugins/fs-common/metadata-record.js';
import { listTemporaryRecords, removeTemporaryRecords } from '../../../src/plugins/fs-common/record-temporaries.js';

let base: string;
let root: string;
beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(join(tmpdir(), 'h7-temporaries-')));
  root = join(base, 'root');
  await fs.mkdir(join(root, RECORD_DIR), { recursive: true });
});
afterEach(() => fs.rm(base, { recursive: true, force: true }));

const HOUR_AGO = new Date(Date.now() - 3_600_000);

async function plant(name: string, age: Date = HOUR_AGO): Promise<string> {
  const path = join(root, RECORD_DIR, name);
  await fs.writeFile(path, '{"version":1');
  await fs.utimes(path, age, age);
  return path;
}

test('only the exact temporary name writeRecord uses counts: <plain backing name>.json.<8 lowercase hex>', () => {
  assert.equal(isTemporaryRecordName('kubernetes-dynamic-pvc-1.json.0123abcd'), true);
  for (const name of ['kubernetes-dynamic-pvc-1.json', 'x.json.0123ABCD', 'x.json.0123abc', 'x.json.0123abcde', '.hidden.json.0123abcd', '.json.0123abcd', 'x.json.0123abcd.bak', 'x.txt.0123abcd']) {
    assert.equal(isTemporaryRecordName(name), false, name);
  }
});

test('removes only writer-named regular files older than the cutoff: records, fresh ones, look-alikes, symlinks and directories stay', async () => {
  const stale = await plant('kubernetes-dynamic-pvc-1.json.0123abcd');
  const fresh = await plant('kubernetes-dynamic-pvc-2.json.89abcdef', new Date());
  const record = await plant('kubernetes-dynamic-pvc-3.json');
  const lookAlike = await plant('kubernetes-dynamic-pvc-4.json.0123ABCD');
  const outside = join(base, 'outside.json.0123abcd');
  await fs.writeFile(outside, 'keep');
  await fs.utimes(outside, HOUR_AGO, HOUR_AGO);
  const link = join(root, RECORD_DIR, 'kubernetes-dynamic-pvc-5.json.0123abcd');
  await fs.symlink(outside, link);
  await fs.mkdir(join(root, RECORD_DIR, 'kubernetes-dynamic-pvc-6.json.0123abcd'));

  const listed = (await listTemporaryRecords(root)).map((f) => f.path).sort();
  assert.deepEqual(listed, [stale, fresh].sort());
  const removed = await removeTemporaryRecords(root, new Date(Date.now() - 60_000));
  assert.deepEqual(removed.map((f) => f.path), [stale]);
  assert.deepEqual((await fs.readdir(join(root, RECORD_DIR))).sort(), [
    'kubernetes-dynamic-pvc-2.json.89abcdef',
    'kubernetes-dynamic-pvc-3.json',
    'kubernetes-dynamic-pvc-4.json.0123ABCD',
    'kubernetes-dynamic-pvc-5.json.0123abcd',
    'kubernetes-dynamic-pvc-6.json.0123abcd',
  ]);
  for (const kept of [fresh, record, lookAlike, link]) assert.ok(await fs.lstat(kept));
  assert.equal(await fs.readFile(outside, 'utf8'), 'keep', 'the symlink target is untouched');
});

test('a record directory planted as a symlink is refused and nothing behind it is touched', async () => {
  await fs.rm(join(root, RECORD_DIR), { recursive: true });
  const elsewhere = join(base, 'elsewhere');
  await fs.mkdir(elsewhere);
  const victim = join(elsewhere, 'kubernetes-dynamic-pvc-1.json.0123abcd');
  await fs.writeFile(victim, 'keep');
  await fs.utimes(victim, HOUR_AGO, HOUR_AGO);
  await fs.symlink(elsewhere, join(root, RECORD_DIR));
  await assert.rejects(listTemporaryRecords(root), { code: 'Unsafe' });
  await assert.rejects(removeTemporaryRecords(root, new Date()), { code: 'Unsafe' });
  assert.equal(await fs.readFile(victim, 'utf8'), 'keep');
});

test('a root without a record directory has no temporary files', async () => {
  await fs.rm(join(root, RECORD_DIR), { recursive: true });
  assert.deepEqual(await listTemporaryRecords(root), []);
  assert.deepEqual(await removeTemporaryRecords(root, new Date()), []);
});
