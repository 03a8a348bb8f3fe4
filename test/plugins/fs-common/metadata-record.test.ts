import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, test } from 'node:test';
import { TAG_CREATED_FOR_PV_NAME, TAG_CREATED_FOR_PVC_NAME, TAG_CREATED_FOR_PVC_NAMESPACE } from '@pv-controller/kube/annotations.js';
import {
  listRecords,
  readRecord,
  RECORD_DIR,
  RecordExists,
  removeRecord,
  writeRecord,
  type VolumeRecord,
} from '../../../src/plugins/fs-common/metadata-record.js';

let root: string;
beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(join(tmpdir(), 'h6-record-')));
});
afterEach(() => fs.rm(root, { recursive: true, force: true }));

function record(backingName: string, pvName = 'pv-1'): VolumeRecord {
  return {
    version: 1,
    plugin: 'kubernetes.io/host-path',
    backingName,
    clusterName: 'kubernetes',
    subPath: backingName,
    tags: {
      [TAG_CREATED_FOR_PVC_NAME]: 'data',
      [TAG_CREATED_FOR_PVC_NAMESPACE]: 'ns',
      [TAG_CREATED_FOR_PV_NAME]: pvName,
    },
    createdAt: '2024-01-01T00:00:00.000Z',
  };
}

test('a written record reads back whole, is never replaced, and leaves no temporary file behind', async () => {
  await writeRecord(root, record('kubernetes-dynamic-pv-1'));
  await assert.rejects(writeRecord(root, record('kubernetes-dynamic-pv-1', 'pv-1b')), RecordExists);
  assert.deepEqual(await readRecord(root, 'kubernetes-dynamic-pv-1'), record('kubernetes-dynamic-pv-1'));
  assert.deepEqual(await fs.readdir(join(root, RECORD_DIR)), ['kubernetes-dynamic-pv-1.json']);
  assert.equal((await fs.stat(join(root, RECORD_DIR))).mode & 0o777, 0o700);
});

test('a missing record reads as undefined and removing it twice is fine', async () => {
  assert.equal(await readRecord(root, 'kubernetes-dynamic-none'), undefined);
  await writeRecord(root, record('kubernetes-dynamic-pv-2'));
  await removeRecord(root, 'kubernetes-dynamic-pv-2');
  await removeRecord(root, 'kubernetes-dynamic-pv-2');
  assert.equal(await readRecord(root, 'kubernetes-dynamic-pv-2'), undefined);
});

test('a record directory planted as a symlink is refused and nothing is written through it', async () => {
  const elsewhere = join(root, 'elsewhere');
  await fs.mkdir(elsewhere);
  await fs.symlink(elsewhere, join(root, RECORD_DIR));
  await assert.rejects(writeRecord(root, record('kubernetes-dynamic-pv-3')), { code: 'Unsafe' });
  assert.deepEqual(await fs.readdir(elsewhere), []);
});

test('a record file that is a symlink is refused on read', async () => {
  await fs.mkdir(join(root, RECORD_DIR));
  await fs.writeFile(join(root, 'fake.json'), JSON.stringify(record('kubernetes-dynamic-pv-4')));
  await fs.symlink(join(root, 'fake.json'), join(root, RECORD_DIR, 'kubernetes-dynamic-pv-4.json'));
  await assert.rejects(readRecord(root, 'kubernetes-dynamic-pv-4'), { code: 'Unsafe' });
});

test('backing names that are not plain file names are rejected', async () => {
  for (const name of ['../x', 'a/b', '.hidden', '']) {
    await assert.rejects(writeRecord(root, record(name)), { code: 'InvalidParameter' });
  }
});

test('listing returns valid records and skips files that are not records', async () => {
  await writeRecord(root, record('kubernetes-dynamic-pv-5'));
  await fs.writeFile(join(root, RECORD_DIR, 'garbage.json'), '{not json');
  await fs.writeFile(join(root, RECORD_DIR, 'notes.txt'), 'hello');
  assert.deepEqual(await listRecords(root), [record('kubernetes-dynamic-pv-5')]);
  assert.deepEqual(await listRecords(join(root, 'no-such-root')), []);
});

test('listRecords sees records written and removed since its last call, by this process or another', async () => {
  await writeRecord(root, record('kubernetes-dynamic-a', 'pv-a'));
  await writeRecord(root, record('kubernetes-dynamic-b', 'pv-b'));
  const names = async () => (await listRecords(root)).map((r) => r.backingName).sort();
  assert.deepEqual(await names(), ['kubernetes-dynamic-a', 'kubernetes-dynamic-b']);
  await removeRecord(root, 'kubernetes-dynamic-a');
  // Written by "someone else": straight into the directory, not through writeRecord.
  const c = record('kubernetes-dynamic-c', 'pv-c');
  await fs.writeFile(join(root, RECORD_DIR, 'kubernetes-dynamic-c.json'), JSON.stringify(c));
  await fs.writeFile(join(root, RECORD_DIR, 'kubernetes-dynamic-d.json'), 'not json');
  assert.deepEqual(await names(), ['kubernetes-dynamic-b', 'kubernetes-dynamic-c']);
  const [b] = (await listRecords(root)).filter((r) => r.backingName === 'kubernetes-dynamic-b');
  assert.ok(Object.isFrozen(b), 'records handed out from the cache cannot be changed by a caller');
  await fs.rm(join(root, RECORD_DIR), { recursive: true });
  assert.deepEqual(await names(), []);
});
