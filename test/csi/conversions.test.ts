/**
 * Every conversion between the values of src/csi/types.ts and the CSI wire messages, checked on
 * both ends of a real unix socket: what the fake driver decodes from the client's request, and
 * what the client makes of the driver's response.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { status } from '@grpc/grpc-js';
import { CsiCallError, type CreateVolumeRequest } from '../../src/csi/types.js';
import { driverPerFile } from './harness.js';

const BEYOND_2_53 = 2n ** 62n + 1n;
const INT64_MAX = 2n ** 63n - 1n;

const csi = driverPerFile();

const minimal: CreateVolumeRequest = {
  name: 'pv-minimal',
  volumeCapabilities: [{ mount: {}, accessMode: 'SINGLE_NODE_WRITER' }],
  parameters: {},
  secrets: {},
};

test('CreateVolume sends every field: int64 beyond 2^53 exactly, block and mount capabilities, enums by name, maps, oneofs, topology', async () => {
  csi.driver.handle('CreateVolume', () => ({
    volume: {
      volume_id: 'vol-big',
      capacity_bytes: BEYOND_2_53,
      volume_context: { pool: 'fast' },
      content_source: { snapshot: { snapshot_id: 'snap-1' } },
      accessible_topology: [{ segments: { 'topology.kubernetes.io/zone': 'b' } }],
    },
  }));
  const volume = await csi.conn.controller.createVolume({
    name: 'pv-1',
    capacityRange: { requiredBytes: BEYOND_2_53, limitBytes: INT64_MAX },
    volumeCapabilities: [
      { block: {}, accessMode: 'SINGLE_NODE_WRITER' },
      { mount: { fsType: 'ext4', mountFlags: ['noatime', 'discard'], volumeMountGroup: '1000' }, accessMode: 'SINGLE_NODE_MULTI_WRITER' },
    ],
    parameters: { type: 'ssd' },
    secrets: { password: 'hunter2' },
    contentSource: { snapshot: { snapshotId: 'snap-1' } },
    accessibilityRequirements: {
      requisite: [{ 'topology.kubernetes.io/zone': 'a' }, { 'topology.kubernetes.io/zone': 'b' }],
      preferred: [{ 'topology.kubernetes.io/zone': 'b' }],
    },
    mutableParameters: { iops: '3000' },
  });
  assert.deepEqual(csi.driver.callsOf('CreateVolume')[0].request, {
    name: 'pv-1',
    capacity_range: { required_bytes: BEYOND_2_53.toString(), limit_bytes: INT64_MAX.toString() },
    volume_capabilities: [
      { block: {}, access_mode: { mode: 'SINGLE_NODE_WRITER' } },
      { mount: { fs_type: 'ext4', mount_flags: ['noatime', 'discard'], volume_mount_group: '1000' }, access_mode: { mode: 'SINGLE_NODE_MULTI_WRITER' } },
    ],
    parameters: { type: 'ssd' },
    secrets: { password: 'hunter2' },
    volume_content_source: { snapshot: { snapshot_id: 'snap-1' } },
    accessibility_requirements: {
      requisite: [{ segments: { 'topology.kubernetes.io/zone': 'a' } }, { segments: { 'topology.kubernetes.io/zone': 'b' } }],
      preferred: [{ segments: { 'topology.kubernetes.io/zone': 'b' } }],
    },
    mutable_parameters: { iops: '3000' },
  });
  assert.deepEqual(volume, {
    capacityBytes: BEYOND_2_53,
    volumeId: 'vol-big',
    volumeContext: { pool: 'fast' },
    contentSource: { snapshot: { snapshotId: 'snap-1' } },
    accessibleTopology: [{ 'topology.kubernetes.io/zone': 'b' }],
  });
});

test('absent optional fields stay absent on the wire and empty maps and lists read as empty', async () => {
  csi.driver.handle('CreateVolume', () => ({ volume: { volume_id: 'vol-min' } }));
  const volume = await csi.conn.controller.createVolume(minimal);
  const request = csi.driver.callsOf('CreateVolume')[0].request;
  for (const key of ['capacity_range', 'volume_content_source', 'accessibility_requirements']) assert.equal(key in request, false, key);
  assert.deepEqual(request.volume_capabilities, [{ mount: { mount_flags: [] }, access_mode: { mode: 'SINGLE_NODE_WRITER' } }]);
  assert.deepEqual(volume, { capacityBytes: 0n, volumeId: 'vol-min', volumeContext: {}, accessibleTopology: [] });
  assert.equal('contentSource' in volume, false);
});

test('a clone names its source volume and gets it back', async () => {
  csi.driver.handle('CreateVolume', (req) => ({ volume: { volume_id: 'vol-clone', content_source: req.volume_content_source } }));
  const volume = await csi.conn.controller.createVolume({ ...minimal, contentSource: { volume: { volumeId: 'vol-src' } } });
  assert.deepEqual(csi.driver.callsOf('CreateVolume')[0].request.volume_content_source, { volume: { volume_id: 'vol-src' } });
  assert.deepEqual(volume.contentSource, { volume: { volumeId: 'vol-src' } });
});

test('int64 keeps its whole range both ways; a value outside it is never sent and is final', async () => {
  csi.driver.handle('ControllerExpandVolume', (req) => ({ capacity_bytes: (req.capacity_range as { required_bytes: string }).required_bytes }));
  for (const bytes of [INT64_MAX, -(2n ** 63n), BEYOND_2_53, 1n]) {
    const res = await csi.conn.controller.expandVolume({ volumeId: 'v', capacityRange: { requiredBytes: bytes }, secrets: {} });
    assert.equal(res.capacityBytes, bytes);
  }
  csi.driver.reset();
  await assert.rejects(csi.conn.controller.expandVolume({ volumeId: 'v', capacityRange: { requiredBytes: 2n ** 63n }, secrets: {} }), (err: unknown) => {
    assert.ok(err instanceof CsiCallError);
    assert.equal(err.kind, 'final');
    assert.equal(err.code, status.INVALID_ARGUMENT);
    assert.match(err.details, /not sent.*outside the int64 range/);
    return true;
  });
  assert.equal(csi.driver.callsOf('ControllerExpandVolume').length, 0);
});

test('a capability that is both or neither of block and mount is never sent', async () => {
  const both = { ...minimal, volumeCapabilities: [{ block: {}, mount: {}, accessMode: 'SINGLE_NODE_WRITER' as const }] };
  const neither = { ...minimal, volumeCapabilities: [{ accessMode: 'SINGLE_NODE_WRITER' as const }] };
  for (const req of [both, neither]) {
    await assert.rejects(csi.conn.controller.createVolume(req), (err: unknown) => err instanceof CsiCallError && err.kind === 'final' && /exactly one of block or mount/.test(err.details));
  }
  assert.equal(csi.driver.callsOf('CreateVolume').length, 0);
});

test('ControllerExpandVolume sends the capability and reads node_expansion_required', async () => {
  csi.driver.handle('ControllerExpandVolume', () => ({ capacity_bytes: 10n * 2n ** 30n, node_expansion_required: true }));
  const res = await csi.conn.controller.expandVolume({
    volumeId: 'vol-1',
    capacityRange: { requiredBytes: 10n * 2n ** 30n },
    secrets: { s: 'x' },
    volumeCapability: { mount: { fsType: 'xfs' }, accessMode: 'MULTI_NODE_READER_ONLY' },
  });
  assert.deepEqual(res, { capacityBytes: 10n * 2n ** 30n, nodeExpansionRequired: true });
  assert.deepEqual(csi.driver.callsOf('ControllerExpandVolume')[0].request, {
    volume_id: 'vol-1',
    capacity_range: { required_bytes: String(10n * 2n ** 30n) },
    secrets: { s: 'x' },
    volume_capability: { mount: { fs_type: 'xfs', mount_flags: [] }, access_mode: { mode: 'MULTI_NODE_READER_ONLY' } },
  });
});

test('ControllerModifyVolume and DeleteVolume send the volume id, secrets and mutable parameters', async () => {
  csi.driver.handle('ControllerModifyVolume', () => ({}));
  csi.driver.handle('DeleteVolume', () => ({}));
  assert.equal(await csi.conn.controller.modifyVolume({ volumeId: 'vol-1', secrets: {}, mutableParameters: { iops: '5000' } }), undefined);
  assert.equal(await csi.conn.controller.deleteVolume({ volumeId: 'vol-1', secrets: { k: 'v' } }), undefined);
  assert.deepEqual(csi.driver.callsOf('ControllerModifyVolume')[0].request, { volume_id: 'vol-1', secrets: {}, mutable_parameters: { iops: '5000' } });
  assert.deepEqual(csi.driver.callsOf('DeleteVolume')[0].request, { volume_id: 'vol-1', secrets: { k: 'v' } });
});

test('GetCapacity: the topology segment when given; Int64Value wrappers absent stay undefined, present zero is 0n', async () => {
  csi.driver.handle('GetCapacity', () => ({ available_capacity: BEYOND_2_53, maximum_volume_size: { value: 0n } }));
  const cap = await csi.conn.controller.getCapacity({
    volumeCapabilities: [{ block: {}, accessMode: 'SINGLE_NODE_WRITER' }],
    parameters: { type: 'ssd' },
    accessibleTopology: { 'topology.kubernetes.io/zone': 'a' },
  });
  assert.deepEqual(cap, { availableCapacity: BEYOND_2_53, maximumVolumeSize: 0n });
  assert.equal('minimumVolumeSize' in cap, false);
  assert.deepEqual(csi.driver.callsOf('GetCapacity')[0].request.accessible_topology, { segments: { 'topology.kubernetes.io/zone': 'a' } });
  csi.driver.handle('GetCapacity', () => ({ minimum_volume_size: { value: 4096n } }));
  const bare = await csi.conn.controller.getCapacity({ volumeCapabilities: [], parameters: {} });
  assert.deepEqual(bare, { availableCapacity: 0n, minimumVolumeSize: 4096n });
  assert.equal('accessible_topology' in csi.driver.callsOf('GetCapacity')[1].request, false);
});

test("Probe's BoolValue: unset is undefined (ready, per the spec), else its value", async () => {
  for (const [answer, expected] of [[{}, undefined], [{ ready: {} }, false], [{ ready: { value: false } }, false], [{ ready: { value: true } }, true]] as const) {
    csi.driver.handle('Probe', () => answer);
    assert.equal(await csi.conn.identity.probe(), expected, JSON.stringify(answer));
  }
});

test('identity and controller capabilities are flattened to their enum names; an unknown value keeps its number', async () => {
  csi.driver.handle('GetPluginInfo', () => ({ name: 'x.csi.io', vendor_version: '1.2.3', manifest: { commit: 'abc' } }));
  csi.driver.handle('GetPluginCapabilities', () => ({
    capabilities: [{ service: { type: 'CONTROLLER_SERVICE' } }, { service: { type: 'VOLUME_ACCESSIBILITY_CONSTRAINTS' } }, { volume_expansion: { type: 'OFFLINE' } }],
  }));
  csi.driver.handle('ControllerGetCapabilities', () => ({ capabilities: [{ rpc: { type: 'CREATE_DELETE_VOLUME' } }, { rpc: { type: 'GET_CAPACITY' } }, { rpc: { type: 99 } }] }));
  assert.deepEqual(await csi.conn.identity.getPluginInfo(), { name: 'x.csi.io', vendorVersion: '1.2.3', manifest: { commit: 'abc' } });
  assert.deepEqual(await csi.conn.identity.getPluginCapabilities(), {
    services: new Set(['CONTROLLER_SERVICE', 'VOLUME_ACCESSIBILITY_CONSTRAINTS']),
    volumeExpansion: 'OFFLINE',
  });
  assert.deepEqual(await csi.conn.controller.getCapabilities(), new Set(['CREATE_DELETE_VOLUME', 'GET_CAPACITY', '99']));
});

test('ListVolumes: paging fields only when set; the published nodes of each entry (spec 1.13 has no volume condition)', async () => {
  csi.driver.handle('ListVolumes', () => ({
    entries: [
      { volume: { volume_id: 'a', capacity_bytes: 1n }, status: { published_node_ids: ['n1', 'n2'] } },
      { volume: { volume_id: 'b' } },
    ],
    next_token: '2',
  }));
  const res = await csi.conn.controller.listVolumes({});
  assert.deepEqual(csi.driver.callsOf('ListVolumes')[0].request, {});
  assert.equal(res.nextToken, '2');
  assert.deepEqual(res.entries[0], {
    volume: { volumeId: 'a', capacityBytes: 1n, volumeContext: {}, accessibleTopology: [] },
    publishedNodeIds: ['n1', 'n2'],
  });
  assert.deepEqual(res.entries[1], { volume: { volumeId: 'b', capacityBytes: 0n, volumeContext: {}, accessibleTopology: [] }, publishedNodeIds: [] });
  await csi.conn.controller.listVolumes({ maxEntries: 5, startingToken: '2' });
  assert.deepEqual(csi.driver.callsOf('ListVolumes')[1].request, { max_entries: 5, starting_token: '2' });
});

test('snapshots: the creation Timestamp as RFC 3339 with its nanoseconds, absent when the driver gives none', async () => {
  const seconds = 1_767_225_600n; // 2026-01-01T00:00:00Z
  const cases: Array<[Record<string, unknown> | undefined, string | undefined]> = [
    [{ seconds, nanos: 123_456_789 }, '2026-01-01T00:00:00.123456789Z'],
    [{ seconds, nanos: 500_000_000 }, '2026-01-01T00:00:00.5Z'],
    [{ seconds }, '2026-01-01T00:00:00Z'],
    [{ seconds: -62_135_596_800n }, '0001-01-01T00:00:00Z'],
    [undefined, undefined],
  ];
  for (const [creation_time, expected] of cases) {
    csi.driver.handle('CreateSnapshot', () => ({
      snapshot: { snapshot_id: 's1', source_volume_id: 'v1', size_bytes: BEYOND_2_53, ready_to_use: true, ...(creation_time ? { creation_time } : {}) },
    }));
    const snap = await csi.conn.controller.createSnapshot({ sourceVolumeId: 'v1', name: 'snap-a', secrets: {}, parameters: { p: '1' } });
    assert.equal(snap.creationTime, expected);
    assert.equal(snap.sizeBytes, BEYOND_2_53);
    assert.equal(snap.readyToUse, true);
    assert.equal('groupSnapshotId' in snap, false);
  }
  assert.deepEqual(csi.driver.callsOf('CreateSnapshot')[0].request, { source_volume_id: 'v1', name: 'snap-a', secrets: {}, parameters: { p: '1' } });
});

test('ListSnapshots and DeleteSnapshot send only the filters given', async () => {
  csi.driver.handle('ListSnapshots', () => ({ entries: [{ snapshot: { snapshot_id: 's1', source_volume_id: 'v1', group_snapshot_id: 'g1' } }] }));
  csi.driver.handle('DeleteSnapshot', () => ({}));
  const res = await csi.conn.controller.listSnapshots({ sourceVolumeId: 'v1' });
  assert.deepEqual(res, { entries: [{ sizeBytes: 0n, snapshotId: 's1', sourceVolumeId: 'v1', readyToUse: false, groupSnapshotId: 'g1' }], nextToken: '' });
  // An empty map and an absent one are the same bytes: the driver reads secrets as {} either way.
  const request = csi.driver.callsOf('ListSnapshots')[0].request;
  assert.deepEqual(request, { source_volume_id: 'v1', secrets: {} });
  await csi.conn.controller.deleteSnapshot({ snapshotId: 's1', secrets: {} });
  assert.deepEqual(csi.driver.callsOf('DeleteSnapshot')[0].request, { snapshot_id: 's1', secrets: {} });
});
