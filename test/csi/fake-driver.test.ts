/**
 * The fake driver's default behaviour, which other tests rely on: idempotent by name like a real
 * driver, spec errors where a controller depends on them. Driven through the real client.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { status } from '@grpc/grpc-js';
import { CsiCallError, type CreateVolumeRequest } from '../../src/csi/types.js';
import { driverPerFile } from './harness.js';

const GiB = 2n ** 30n;
const csi = driverPerFile({ name: 'default.csi.test', totalCapacity: 10n * GiB, topology: { zone: 'z1' }, maxNameLength: 20 });

function create(name: string, requiredBytes?: bigint): CreateVolumeRequest {
  return {
    name,
    ...(requiredBytes !== undefined ? { capacityRange: { requiredBytes } } : {}),
    volumeCapabilities: [{ mount: { fsType: 'ext4' }, accessMode: 'SINGLE_NODE_WRITER' }],
    parameters: { kind: 'test' },
    secrets: {},
  };
}

const code = (c: number) => (err: unknown) => err instanceof CsiCallError && err.code === c;

test('CreateVolume is idempotent by name; the same name with another size is ALREADY_EXISTS', async () => {
  const first = await csi.conn.controller.createVolume(create('pv-a', 2n * GiB));
  const again = await csi.conn.controller.createVolume(create('pv-a', 2n * GiB));
  assert.deepEqual(again, first);
  assert.notEqual(first.volumeId, 'pv-a');
  assert.deepEqual(first.accessibleTopology, [{ zone: 'z1' }]);
  assert.deepEqual(first.volumeContext, { kind: 'test' });
  await assert.rejects(csi.conn.controller.createVolume(create('pv-a', 3n * GiB)), code(status.ALREADY_EXISTS));
  assert.equal(csi.driver.volumes.size, 1);
});

test('a name beyond the driver limit is INVALID_ARGUMENT; beyond the capacity left, RESOURCE_EXHAUSTED', async () => {
  await assert.rejects(csi.conn.controller.createVolume(create('x'.repeat(21))), code(status.INVALID_ARGUMENT));
  await assert.rejects(csi.conn.controller.createVolume(create('pv-huge', 100n * GiB)), code(status.RESOURCE_EXHAUSTED));
});

test('GetCapacity answers what is left; ListVolumes pages; a foreign token is ABORTED', async () => {
  await csi.conn.controller.createVolume(create('pv-b'));
  await csi.conn.controller.createVolume(create('pv-c'));
  const cap = await csi.conn.controller.getCapacity({ volumeCapabilities: [], parameters: {} });
  assert.equal(cap.availableCapacity, 10n * GiB - csi.driver.state.usedBytes());
  const page1 = await csi.conn.controller.listVolumes({ maxEntries: 2 });
  assert.equal(page1.entries.length, 2);
  assert.equal(page1.nextToken, '2');
  const page2 = await csi.conn.controller.listVolumes({ maxEntries: 2, startingToken: page1.nextToken });
  assert.equal(page2.nextToken, '');
  assert.deepEqual(
    [...page1.entries, ...page2.entries].map((e) => e.volume.volumeId).sort(),
    [...csi.driver.volumes.values()].map((v) => v.id).sort(),
  );
  await assert.rejects(csi.conn.controller.listVolumes({ startingToken: 'nope' }), code(status.ABORTED));
});

test('expand grows, modify merges, both NOT_FOUND for an unknown volume; delete of an unknown volume succeeds', async () => {
  const vol = await csi.conn.controller.createVolume(create('pv-grow', GiB));
  assert.deepEqual(await csi.conn.controller.expandVolume({ volumeId: vol.volumeId, capacityRange: { requiredBytes: 2n * GiB }, secrets: {} }), {
    capacityBytes: 2n * GiB,
    nodeExpansionRequired: false,
  });
  await csi.conn.controller.modifyVolume({ volumeId: vol.volumeId, secrets: {}, mutableParameters: { iops: '100' } });
  assert.deepEqual(csi.driver.volumes.get('pv-grow')?.mutableParameters, { iops: '100' });
  await assert.rejects(csi.conn.controller.expandVolume({ volumeId: 'vol-none', capacityRange: { requiredBytes: 1n }, secrets: {} }), code(status.NOT_FOUND));
  await assert.rejects(csi.conn.controller.modifyVolume({ volumeId: 'vol-none', secrets: {}, mutableParameters: {} }), code(status.NOT_FOUND));
  await csi.conn.controller.deleteVolume({ volumeId: vol.volumeId, secrets: {} });
  await csi.conn.controller.deleteVolume({ volumeId: vol.volumeId, secrets: {} });
  assert.equal(csi.driver.volumes.has('pv-grow'), false);
});

test('snapshots are idempotent by name, listed by source, deleted; identity answers the configured name and capabilities', async () => {
  const vol = await csi.conn.controller.createVolume(create('pv-src', GiB));
  const snap = await csi.conn.controller.createSnapshot({ sourceVolumeId: vol.volumeId, name: 'snap-1', secrets: {}, parameters: {} });
  assert.deepEqual(await csi.conn.controller.createSnapshot({ sourceVolumeId: vol.volumeId, name: 'snap-1', secrets: {}, parameters: {} }), snap);
  assert.equal(snap.sizeBytes, GiB);
  assert.match(snap.creationTime ?? '', /^2026-01-01T00:00:0\dZ$/);
  assert.deepEqual((await csi.conn.controller.listSnapshots({ sourceVolumeId: vol.volumeId })).entries, [snap]);
  await csi.conn.controller.deleteSnapshot({ snapshotId: snap.snapshotId, secrets: {} });
  assert.deepEqual((await csi.conn.controller.listSnapshots({})).entries, []);
  assert.equal((await csi.conn.identity.getPluginInfo()).name, 'default.csi.test');
  assert.deepEqual(await csi.conn.identity.getPluginCapabilities(), {
    services: new Set(['CONTROLLER_SERVICE', 'VOLUME_ACCESSIBILITY_CONSTRAINTS']),
    volumeExpansion: 'ONLINE',
  });
  assert.ok((await csi.conn.controller.getCapabilities()).has('CREATE_DELETE_VOLUME'));
});

test('CreateVolume from a snapshot or a volume: the answer carries the source; an unknown source is NOT_FOUND, a smaller size OUT_OF_RANGE, the name with another source ALREADY_EXISTS', async () => {
  const vol = await csi.conn.controller.createVolume(create('pv-orig', GiB));
  const snap = await csi.conn.controller.createSnapshot({ sourceVolumeId: vol.volumeId, name: 'snap-r', secrets: {}, parameters: {} });
  const fromSnapshot = { snapshot: { snapshotId: snap.snapshotId } };
  const restored = await csi.conn.controller.createVolume({ ...create('pv-rest', GiB), contentSource: fromSnapshot });
  assert.deepEqual(restored.contentSource, fromSnapshot);
  assert.deepEqual(await csi.conn.controller.createVolume({ ...create('pv-rest', GiB), contentSource: fromSnapshot }), restored);
  await assert.rejects(csi.conn.controller.createVolume({ ...create('pv-rest', GiB), contentSource: { volume: { volumeId: vol.volumeId } } }), code(status.ALREADY_EXISTS));
  const clone = await csi.conn.controller.createVolume({ ...create('pv-clone', GiB), contentSource: { volume: { volumeId: vol.volumeId } } });
  assert.deepEqual(clone.contentSource, { volume: { volumeId: vol.volumeId } });
  await assert.rejects(csi.conn.controller.createVolume({ ...create('pv-x1', GiB), contentSource: { snapshot: { snapshotId: 'snap-none' } } }), code(status.NOT_FOUND));
  await assert.rejects(csi.conn.controller.createVolume({ ...create('pv-x2', GiB), contentSource: { volume: { volumeId: 'vol-none' } } }), code(status.NOT_FOUND));
  await assert.rejects(csi.conn.controller.createVolume({ ...create('pv-x3', GiB / 2n), contentSource: fromSnapshot }), code(status.OUT_OF_RANGE));
});
