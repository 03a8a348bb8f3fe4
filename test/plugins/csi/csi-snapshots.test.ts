/** The CSI plugin's snapshot capability against the in-memory driver: the requests csi-snapshotter and external-provisioner send, field by field. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { canSnapshot, type SnapshotRequest } from '../../../src/plugins/api/capabilities/snapshot.js';
import type { ProvisionRequest } from '../../../src/plugins/api/core.js';
import { PluginError } from '../../../src/plugins/api/errors.js';
import type { CreateSnapshotRequest, CreateVolumeRequest, DeleteSnapshotRequest } from '../../../src/csi/types.js';
import { createCsiPlugin, type CsiPlugin } from '../../../src/plugins/csi/index.js';
import { csiError, FakeCsiDriver, type FakeDriverOptions } from './fake-connection.js';

const SNAPSHOT_CAPS = ['CREATE_DELETE_VOLUME', 'CREATE_DELETE_SNAPSHOT', 'LIST_SNAPSHOTS', 'CLONE_VOLUME'];
const SECRETS: Record<string, Record<string, string>> = {
  'backup/snap-creds': { key: 's3cr3t' },
  'backup/snapcontent-1-creds': { key: 'per-content' },
  'team/data-snap-creds': { key: 'per-snapshot' },
};

async function pluginFor(opts: FakeDriverOptions = {}): Promise<{ driver: FakeCsiDriver; plugin: CsiPlugin & Required<Pick<CsiPlugin, 'createSnapshot'>> }> {
  const driver = new FakeCsiDriver({ controllerCapabilities: SNAPSHOT_CAPS, ...opts });
  const plugin = await createCsiPlugin(driver, {
    clusterName: 'unit',
    secrets: async (ns, name) => SECRETS[`${ns}/${name}`],
    topology: { nodeSegment: async () => undefined, allSegments: async () => [] },
    logger: pino({ level: 'silent' }),
  });
  assert.ok(canSnapshot(plugin));
  return { driver, plugin };
}

function request(o: Partial<ProvisionRequest> = {}): ProvisionRequest {
  return {
    backingName: 'unit-dynamic-pvc-1',
    clusterName: 'unit',
    pvName: 'pvc-1',
    claim: { name: 'data', namespace: 'team', uid: '1', labels: {}, annotations: {} },
    requestBytes: 1073741824n,
    accessModes: ['ReadWriteOnce'],
    volumeMode: 'Filesystem',
    parameters: { type: 'ssd' },
    mountOptions: [],
    ...o,
  };
}

async function sourcePv(plugin: CsiPlugin, req = request()): Promise<PersistentVolume> {
  const v = await plugin.provision(req);
  return { metadata: { name: req.pvName }, spec: { ...v.source, capacity: { storage: v.capacity }, accessModes: req.accessModes } };
}

function snapshotRequest(pv: PersistentVolume, parameters: Record<string, string> = {}): SnapshotRequest {
  return { snapshotName: 'unit-snapshot-1', clusterName: 'unit', pv, parameters, snapshot: { name: 'data-snap', namespace: 'team', contentName: 'snapcontent-1' } };
}

describe('CSI snapshot capability', () => {
  it('is claimed only when the driver lists CREATE_DELETE_SNAPSHOT; supportsClone follows CLONE_VOLUME', async () => {
    const without = await createCsiPlugin(new FakeCsiDriver({ controllerCapabilities: ['CREATE_DELETE_VOLUME', 'CLONE_VOLUME'] }), {
      clusterName: 'unit',
      secrets: async () => undefined,
      topology: { nodeSegment: async () => undefined, allSegments: async () => [] },
      logger: pino({ level: 'silent' }),
    });
    assert.equal(canSnapshot(without), false);
    assert.equal((await pluginFor()).plugin.supportsClone, true);
    assert.equal((await pluginFor({ controllerCapabilities: ['CREATE_DELETE_VOLUME', 'CREATE_DELETE_SNAPSHOT'] })).plugin.supportsClone, false);
  });

  it('owns any non-empty handle of its driver', async () => {
    const { plugin } = await pluginFor();
    assert.equal(plugin.ownsSnapshot?.('anything-the-driver-chose'), true);
    assert.equal(plugin.ownsSnapshot?.(''), false);
  });
});

describe('CSI createSnapshot', () => {
  it('sends CreateSnapshot as csi-snapshotter does: name, the PV handle as source, class parameters minus csi.storage.k8s.io/ keys plus the extra-create-metadata, the snapshotter secret', async () => {
    const { driver, plugin } = await pluginFor();
    const pv = await sourcePv(plugin);
    const params = {
      tier: 'cold',
      'csi.storage.k8s.io/snapshotter-secret-name': '${volumesnapshot.name}-creds',
      'csi.storage.k8s.io/snapshotter-secret-namespace': '${volumesnapshot.namespace}',
      'csi.storage.k8s.io/snapshotter-list-secret-name': 'list',
      'csi.storage.k8s.io/snapshotter-list-secret-namespace': 'backup',
    };
    const info = await plugin.createSnapshot(snapshotRequest(pv, params));
    const [call] = driver.callsOf('CreateSnapshot') as CreateSnapshotRequest[];
    assert.deepEqual(call, {
      sourceVolumeId: 'fake-vol-1',
      name: 'unit-snapshot-1',
      secrets: { key: 'per-snapshot' },
      parameters: {
        tier: 'cold',
        'csi.storage.k8s.io/volumesnapshot/name': 'data-snap',
        'csi.storage.k8s.io/volumesnapshot/namespace': 'team',
        'csi.storage.k8s.io/volumesnapshotcontent/name': 'snapcontent-1',
      },
    });
    assert.deepEqual(info, {
      snapshotName: 'unit-snapshot-1',
      snapshotId: 'fake-snap-2',
      sourceVolumeId: 'fake-vol-1',
      sizeBytes: 1073741824n,
      createdAt: new Date('2026-12-01T10:00:00.500Z'),
      readyToUse: true,
    });
  });

  it('a namespace template may not use the VolumeSnapshot name (what its author chose): refused before any call', async () => {
    const { driver, plugin } = await pluginFor();
    const pv = await sourcePv(plugin);
    const params = { 'csi.storage.k8s.io/snapshotter-secret-name': 'snap-creds', 'csi.storage.k8s.io/snapshotter-secret-namespace': '${volumesnapshot.name}' };
    await assert.rejects(plugin.createSnapshot(snapshotRequest(pv, params)), (e: unknown) => e instanceof PluginError && e.code === 'InvalidParameter' && /volumesnapshot\.name/.test(e.message));
    assert.equal(driver.callsOf('CreateSnapshot').length, 0);
  });

  it('an unknown key in the csi.storage.k8s.io/ namespace is refused, never sent', async () => {
    const { driver, plugin } = await pluginFor();
    const pv = await sourcePv(plugin);
    await assert.rejects(plugin.createSnapshot(snapshotRequest(pv, { 'csi.storage.k8s.io/no-such-key': 'x' })), (e: unknown) => e instanceof PluginError && !e.retryable && /no-such-key/.test(e.message));
    assert.equal(driver.callsOf('CreateSnapshot').length, 0);
  });

  it('a PV of another driver is refused', async () => {
    const { driver, plugin } = await pluginFor();
    const pv: PersistentVolume = { metadata: { name: 'pv-x' }, spec: { csi: { driver: 'other.csi.io', volumeHandle: 'v' } } };
    await assert.rejects(plugin.createSnapshot(snapshotRequest(pv)), (e: unknown) => e instanceof PluginError && !e.retryable);
    assert.equal(driver.callsOf('CreateSnapshot').length, 0);
  });

  it('an unknown outcome (deadline) is InProgress, and the retry repeats the same request and gets the one snapshot', async () => {
    const { driver, plugin } = await pluginFor();
    const pv = await sourcePv(plugin);
    driver.failNext('CreateSnapshot', csiError('CreateSnapshot', 'DEADLINE_EXCEEDED', 'in-progress'));
    await assert.rejects(plugin.createSnapshot(snapshotRequest(pv)), (e: unknown) => e instanceof PluginError && e.code === 'InProgress' && e.retryable);
    const info = await plugin.createSnapshot(snapshotRequest(pv));
    const [first, second] = driver.callsOf('CreateSnapshot');
    assert.deepEqual(second, first);
    assert.equal(driver.snapshots.size, 1);
    assert.equal(info.snapshotId, [...driver.snapshots.values()][0].snapshot.snapshotId);
  });

  it('a final refusal is not retryable and carries the driver message', async () => {
    const { driver, plugin } = await pluginFor();
    const pv = await sourcePv(plugin);
    driver.failNext('CreateSnapshot', csiError('CreateSnapshot', 'ALREADY_EXISTS', 'final', 'name taken by another source'));
    await assert.rejects(plugin.createSnapshot(snapshotRequest(pv)), (e: unknown) => e instanceof PluginError && !e.retryable && /name taken/.test(e.message));
  });

  it('readyToUse is false while the driver cuts the snapshot and true once a repeated CreateSnapshot says so', async () => {
    const { plugin } = await pluginFor({ snapshotCutCalls: 1 });
    const pv = await sourcePv(plugin);
    assert.equal((await plugin.createSnapshot(snapshotRequest(pv))).readyToUse, false);
    assert.equal((await plugin.createSnapshot(snapshotRequest(pv))).readyToUse, true);
  });
});

describe('CSI deleteSnapshot and listSnapshots', () => {
  it("DeleteSnapshot carries the secret the content's deletion-secret annotations name", async () => {
    const { driver, plugin } = await pluginFor();
    const annotations = { 'snapshot.storage.kubernetes.io/deletion-secret-name': 'snap-creds', 'snapshot.storage.kubernetes.io/deletion-secret-namespace': 'backup' };
    await plugin.deleteSnapshot!({ snapshotId: 'fake-snap-9', annotations });
    assert.deepEqual(driver.callsOf('DeleteSnapshot') as DeleteSnapshotRequest[], [{ snapshotId: 'fake-snap-9', secrets: { key: 's3cr3t' } }]);
  });

  it("without the annotations, the class's snapshotter secret resolved for the content", async () => {
    const { driver, plugin } = await pluginFor();
    const parameters = { 'csi.storage.k8s.io/snapshotter-secret-name': '${volumesnapshotcontent.name}-creds', 'csi.storage.k8s.io/snapshotter-secret-namespace': 'backup' };
    await plugin.deleteSnapshot!({ snapshotId: 'fake-snap-9', parameters, contentName: 'snapcontent-1' });
    assert.deepEqual(driver.callsOf('DeleteSnapshot') as DeleteSnapshotRequest[], [{ snapshotId: 'fake-snap-9', secrets: { key: 'per-content' } }]);
  });

  it('annotations with an empty secret name are refused, as csi-snapshotter refuses them', async () => {
    const { driver, plugin } = await pluginFor();
    const annotations = { 'snapshot.storage.kubernetes.io/deletion-secret-name': '', 'snapshot.storage.kubernetes.io/deletion-secret-namespace': 'backup' };
    await assert.rejects(plugin.deleteSnapshot!({ snapshotId: 'fake-snap-9', annotations }), PluginError);
    assert.equal(driver.callsOf('DeleteSnapshot').length, 0);
  });

  it('NOT_FOUND is success, and deleting twice is fine', async () => {
    const { driver, plugin } = await pluginFor({ notFoundOnMissingSnapshotDelete: true });
    const pv = await sourcePv(plugin);
    const { snapshotId } = await plugin.createSnapshot(snapshotRequest(pv));
    await plugin.deleteSnapshot!({ snapshotId });
    await plugin.deleteSnapshot!({ snapshotId });
    assert.equal(driver.snapshots.size, 0);
  });

  it('listSnapshots pages through ListSnapshots and reports each with no name (CSI snapshots carry none)', async () => {
    const { driver, plugin } = await pluginFor({ pageLimit: 2 });
    const pv = await sourcePv(plugin);
    for (let i = 0; i < 3; i++) await plugin.createSnapshot({ ...snapshotRequest(pv), snapshotName: `s-${i}` });
    const listed = await plugin.listSnapshots!('unit');
    assert.deepEqual(listed.map((s) => [s.snapshotName, s.snapshotId, s.sourceVolumeId]), [
      ['', 'fake-snap-2', 'fake-vol-1'],
      ['', 'fake-snap-3', 'fake-vol-1'],
      ['', 'fake-snap-4', 'fake-vol-1'],
    ]);
    assert.deepEqual(driver.callsOf('ListSnapshots'), [{ maxEntries: 500 }, { maxEntries: 500, startingToken: '2' }]);
  });

  it('listSnapshots without LIST_SNAPSHOTS is NotSupported', async () => {
    const { plugin } = await pluginFor({ controllerCapabilities: ['CREATE_DELETE_VOLUME', 'CREATE_DELETE_SNAPSHOT'] });
    await assert.rejects(plugin.listSnapshots!('unit'), (e: unknown) => e instanceof PluginError && e.code === 'NotSupported');
  });
});

describe('CSI restore and clone', () => {
  it('provisionFromSnapshot sends the provisioning CreateVolume plus volume_content_source.snapshot', async () => {
    const { driver, plugin } = await pluginFor();
    const pv = await sourcePv(plugin);
    const { snapshotId } = await plugin.createSnapshot(snapshotRequest(pv));
    const restore = request({ backingName: 'unit-dynamic-pvc-2', pvName: 'pvc-2' });
    await plugin.provisionFromSnapshot!(restore, { snapshotId, restoreSize: 1073741824n });
    const [plain, restored] = driver.callsOf('CreateVolume') as CreateVolumeRequest[];
    const { contentSource, ...rest } = restored;
    assert.deepEqual(contentSource, { snapshot: { snapshotId } });
    assert.deepEqual(rest, { ...plain, name: 'unit-dynamic-pvc-2', parameters: { ...plain.parameters, 'csi.storage.k8s.io/pv/name': 'pvc-2' } });
  });

  it('provisionClone sends volume_content_source.volume with the source PV handle', async () => {
    const { driver, plugin } = await pluginFor();
    const pv = await sourcePv(plugin);
    await plugin.provisionClone!(request({ backingName: 'unit-dynamic-pvc-3', pvName: 'pvc-3' }), pv);
    const created = driver.callsOf('CreateVolume') as CreateVolumeRequest[];
    assert.deepEqual(created[1].contentSource, { volume: { volumeId: 'fake-vol-1' } });
  });

  it('a clone is NotSupported without CLONE_VOLUME, and a source PV of another driver is refused: nothing created', async () => {
    const narrow = await pluginFor({ controllerCapabilities: ['CREATE_DELETE_VOLUME', 'CREATE_DELETE_SNAPSHOT'] });
    const pv = await sourcePv(narrow.plugin);
    await assert.rejects(narrow.plugin.provisionClone!(request({ backingName: 'b2' }), pv), (e: unknown) => e instanceof PluginError && e.code === 'NotSupported');
    const { driver, plugin } = await pluginFor();
    const foreign: PersistentVolume = { metadata: { name: 'pv-x' }, spec: { csi: { driver: 'other.csi.io', volumeHandle: 'v' } } };
    await assert.rejects(plugin.provisionClone!(request({ backingName: 'b3' }), foreign), (e: unknown) => e instanceof PluginError && !e.retryable);
    assert.equal(driver.callsOf('CreateVolume').length, 0);
  });

  it('a volume answered without the content source it was asked for is deleted and the restore retried', async () => {
    const { driver, plugin } = await pluginFor({ dropContentSource: true });
    const pv = await sourcePv(plugin);
    const { snapshotId } = await plugin.createSnapshot(snapshotRequest(pv));
    await assert.rejects(plugin.provisionFromSnapshot!(request({ backingName: 'b4', pvName: 'pvc-4' }), { snapshotId }), (e: unknown) => e instanceof PluginError && e.retryable);
    assert.deepEqual([...driver.volumes.keys()], ['unit-dynamic-pvc-1']);
  });

  it('the cleanup of a claim deleted mid-restore repeats the CreateVolume with the same content source', async () => {
    const { driver, plugin } = await pluginFor();
    const pv = await sourcePv(plugin);
    const { snapshotId } = await plugin.createSnapshot(snapshotRequest(pv));
    const restore = request({ backingName: 'b5', pvName: 'pvc-5' });
    await plugin.provisionFromSnapshot!(restore, { snapshotId });
    await plugin.delete({ backingName: 'b5', provision: { ...restore, contentSource: { kind: 'snapshot', snapshotId } } });
    const creates = driver.callsOf('CreateVolume') as CreateVolumeRequest[];
    assert.deepEqual(creates[2], creates[1]);
    assert.deepEqual([...driver.volumes.keys()], ['unit-dynamic-pvc-1']);
  });
});
