import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, mock, test } from 'node:test';
import { TAG_CREATED_FOR_PV_NAME, TAG_CREATED_FOR_PVC_NAME, TAG_CREATED_FOR_PVC_NAMESPACE } from '@pv-controller/kube/annotations.js';
import { containedVolumePath } from '../../../src/plugins/fs-common/directory-volume.js';
import { readRecord, RECORD_DIR, removeRecord, writeRecord, type VolumeRecord } from '../../../src/plugins/fs-common/metadata-record.js';
import { PREFIX_DIR } from '../../../src/plugins/fs-common/record-lookup.js';

let root: string;
beforeEach(async () => {
  root = await fs.realpath(await fs.mkdtemp(join(tmpdir(), 'record-lookup-')));
});
afterEach(() => fs.rm(root, { recursive: true, force: true }));

function record(backingName: string, subPath = backingName, pvName = `pv-${backingName}`): VolumeRecord {
  return {
    version: 1,
    plugin: 'kubernetes.io/nfs-subdir',
    backingName,
    clusterName: 'kubernetes',
    subPath,
    tags: { [TAG_CREATED_FOR_PVC_NAME]: 'data', [TAG_CREATED_FOR_PVC_NAMESPACE]: 'ns', [TAG_CREATED_FOR_PV_NAME]: pvName },
    createdAt: '2024-01-01T00:00:00.000Z',
  };
}

async function volume(r: VolumeRecord): Promise<string> {
  await writeRecord(root, r);
  const path = join(root, r.subPath);
  await fs.mkdir(path, { recursive: true });
  return path;
}

test('a delete path check reads the records near its path by name and never lists the record directory', async () => {
  const paths: string[] = [];
  for (let i = 0; i < 20; i++) paths.push(await volume(record(`k-dynamic-pv-${i}`)));
  await containedVolumePath([root], paths[0], 'k-dynamic-pv-0', 'pv-k-dynamic-pv-0'); // the one pass per root
  const readdir = mock.method(fs, 'readdir');
  try {
    for (let i = 1; i < 20; i++) await containedVolumePath([root], paths[i], `k-dynamic-pv-${i}`, `pv-k-dynamic-pv-${i}`);
    const listed = readdir.mock.calls.map((c) => String(c.arguments[0]));
    assert.deepEqual(listed.filter((p) => p === join(root, RECORD_DIR)), []);
  } finally {
    readdir.mock.restore();
  }
});

test('a directory holding another volume is refused through that volume\'s prefix markers, and allowed once it is gone', async () => {
  const nested = record('k-dynamic-pv-inner', 'ns-a/k-dynamic-pv-inner');
  await volume(nested);
  await assert.rejects(containedVolumePath([root], join(root, 'ns-a'), 'k-dynamic-pv-outer', 'pv-outer'), /contains the volume of PV "pv-k-dynamic-pv-inner"/);
  await removeRecord(root, nested.backingName);
  await containedVolumePath([root], join(root, 'ns-a'), 'k-dynamic-pv-outer', 'pv-outer');
});

test('a nested record written without prefix markers is still found: the first check of a root gives it its markers', async () => {
  const nested = record('k-dynamic-pv-old', 'ns-b/deeper/k-dynamic-pv-old');
  await volume(nested);
  await fs.rm(join(root, RECORD_DIR, PREFIX_DIR), { recursive: true });
  await assert.rejects(containedVolumePath([root], join(root, 'ns-b', 'deeper'), 'k-dynamic-pv-x', 'pv-x'), /contains the volume of PV/);
  await assert.rejects(containedVolumePath([root], join(root, 'ns-b'), 'k-dynamic-pv-x', 'pv-x'), /contains the volume of PV/);
});

test('a directory inside another volume, or another PV\'s directory, is refused by name lookups', async () => {
  const outer = await volume(record('k-dynamic-pv-outer'));
  await assert.rejects(containedVolumePath([root], join(outer, 'k-dynamic-pv-sub'), 'k-dynamic-pv-sub', 'pv-sub'), /inside the volume of PV "pv-k-dynamic-pv-outer"/);
  await assert.rejects(containedVolumePath([root], outer, 'k-dynamic-pv-outer', 'pv-intruder'), /belongs to PV "pv-k-dynamic-pv-outer"/);
  await assert.rejects(containedVolumePath([root], join(root, 'elsewhere'), 'k-dynamic-pv-outer', 'pv-k-dynamic-pv-outer'), /places it at "k-dynamic-pv-outer"/);
});

test('a record whose sub-path does not end in its backing name is not written and not read as a record', async () => {
  await assert.rejects(writeRecord(root, record('k-dynamic-pv-a', 'k-dynamic-pv-b')), { code: 'InvalidParameter' });
  await fs.mkdir(join(root, RECORD_DIR), { recursive: true });
  await fs.writeFile(join(root, RECORD_DIR, 'k-dynamic-pv-a.json'), JSON.stringify(record('k-dynamic-pv-a', 'x/../k-dynamic-pv-a')));
  await assert.rejects(readRecord(root, 'k-dynamic-pv-a'), { code: 'Backend' });
});
