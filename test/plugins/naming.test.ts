import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backingName, snapshotBackendName } from '../../src/plugins/naming.js';

const UID = '0f8e6c4e-1d2b-4a3c-9e5f-6a7b8c9d0e1f';

test('a backend snapshot is named <cluster>-snapshot-<VolumeSnapshot uid>', () => {
  assert.equal(snapshotBackendName('kubernetes', UID), `kubernetes-snapshot-${UID}`);
});

test('a snapshot name too long for the backend shortens the cluster prefix, never the uid', () => {
  const name = snapshotBackendName('a-very-long-cluster-name', UID, 63);
  assert.equal(name.length, 63);
  assert.ok(name.endsWith(`-snapshot-${UID}`));
  assert.ok('a-very-long-cluster-name'.startsWith(name.slice(0, name.indexOf('-snapshot-'))));
});

test('when not even the prefix fits the uid stands alone, and a uid longer than the limit is refused', () => {
  assert.equal(snapshotBackendName('k', UID, UID.length), UID);
  assert.throws(() => snapshotBackendName('k', UID, 10), /snapshot uid .* longer than the backend's limit of 10/);
});

test('backing names keep their shape after sharing the shortening with snapshot names', () => {
  assert.equal(backingName('kubernetes', 'pvc-1'), 'kubernetes-dynamic-pvc-1');
  assert.equal(backingName('abcdef', 'pvc-1', 16), 'ab-dynamic-pvc-1');
  assert.throws(() => backingName('k', 'pvc-123456', 5), /volume name "pvc-123456" is longer/);
});
