/** The CSI plugin against the in-memory driver: what it asks of the driver and what it makes of the answers. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { capabilitiesOf } from '../../../src/plugins/api/capabilities.js';
import type { ProvisionRequest } from '../../../src/plugins/api/core.js';
import { PluginError } from '../../../src/plugins/api/errors.js';
import type { CreateVolumeRequest, DeleteVolumeRequest, ExpandVolumeRequest, GetCapacityRequest, ModifyVolumeRequest } from '../../../src/csi/types.js';
import { createCsiPlugin, type CsiPluginDeps } from '../../../src/plugins/csi/index.js';
import { HmacProvenance } from '../../../src/controller/provenance/key.js';
import { ANN_CSI_PROVENANCE } from '@pv-controller/kube/annotations.js';
import { ALL_CONTROLLER_CAPABILITIES, csiError, FakeCsiDriver, type FakeDriverOptions } from './fake-connection.js';

const SECRETS: Record<string, Record<string, string>> = { 'storage/prov': { token: 't0k' }, 'storage/grow': { token: 'gr0w' } };

function deps(o: Partial<CsiPluginDeps> = {}): CsiPluginDeps {
  return {
    clusterName: 'unit',
    secrets: async (ns, name) => SECRETS[`${ns}/${name}`],
    topology: { nodeSegment: async () => ({ zone: 'a' }), allSegments: async () => [{ zone: 'a' }, { zone: 'b' }] },
    logger: pino({ level: 'silent' }),
    ...o,
  };
}

async function pluginFor(opts: FakeDriverOptions = {}, d: Partial<CsiPluginDeps> = {}) {
  const driver = new FakeCsiDriver({ controllerCapabilities: ALL_CONTROLLER_CAPABILITIES, ...opts });
  return { driver, plugin: await createCsiPlugin(driver, deps(d)) };
}

const SECRET_PARAMS = {
  'csi.storage.k8s.io/provisioner-secret-name': 'prov',
  'csi.storage.k8s.io/provisioner-secret-namespace': 'storage',
  'csi.storage.k8s.io/controller-expand-secret-name': 'grow',
  'csi.storage.k8s.io/controller-expand-secret-namespace': 'storage',
};

function request(o: Partial<ProvisionRequest> = {}): ProvisionRequest {
  return {
    backingName: 'unit-dynamic-pvc-1',
    clusterName: 'unit',
    pvName: 'pvc-1',
    claim: { name: 'data', namespace: 'team', uid: '1', labels: {}, annotations: {} },
    requestBytes: 1073741824n,
    accessModes: ['ReadWriteOnce'],
    volumeMode: 'Filesystem',
    parameters: { type: 'ssd', ...SECRET_PARAMS },
    mountOptions: [],
    ...o,
  };
}

async function provisionedPv(plugin: Awaited<ReturnType<typeof pluginFor>>['plugin'], req: ProvisionRequest): Promise<PersistentVolume> {
  const v = await plugin.provision(req);
  return {
    metadata: { name: req.pvName, annotations: { ...(v.annotations ?? {}) } },
    spec: { ...v.source, capacity: { storage: v.capacity }, accessModes: req.accessModes, volumeMode: req.volumeMode, claimRef: { name: 'data', namespace: 'team' } },
  };
}

describe('createCsiPlugin', () => {
  it('names the plugin after GetPluginInfo and claims exactly the capabilities ControllerGetCapabilities lists', async () => {
    const all = await pluginFor({ name: 'x.csi.io' });
    assert.equal(all.plugin.name, 'x.csi.io');
    assert.equal(all.plugin.csiDriver, 'x.csi.io');
    assert.deepEqual(capabilitiesOf(all.plugin), ['expand', 'modify', 'capacity']);
    assert.equal(typeof all.plugin.listDriverVolumes, 'function');
    const bare = await pluginFor({ controllerCapabilities: ['CREATE_DELETE_VOLUME'] });
    assert.deepEqual(capabilitiesOf(bare.plugin), []);
    assert.equal(bare.plugin.listDriverVolumes, undefined);
  });

  it('refuses a driver without CONTROLLER_SERVICE or CREATE_DELETE_VOLUME, saying which', async () => {
    await assert.rejects(createCsiPlugin(new FakeCsiDriver({ services: [] }), deps()), /CONTROLLER_SERVICE/);
    await assert.rejects(createCsiPlugin(new FakeCsiDriver({ controllerCapabilities: ['LIST_VOLUMES'] }), deps()), /CREATE_DELETE_VOLUME/);
  });

  it('handles the PVs of its driver only', async () => {
    const { plugin } = await pluginFor({ name: 'x.csi.io' });
    assert.equal(plugin.handles({ metadata: {}, spec: { csi: { driver: 'x.csi.io', volumeHandle: '1' } } }), true);
    assert.equal(plugin.handles({ metadata: {}, spec: { csi: { driver: 'y.csi.io', volumeHandle: '1' } } }), false);
  });
});

describe('provision', () => {
  it('sends CreateVolume with the backing name, the provisioner secret data and the stripped parameters plus metadata', async () => {
    const { driver, plugin } = await pluginFor();
    await plugin.provision(request());
    const [create] = driver.callsOf('CreateVolume') as CreateVolumeRequest[];
    assert.equal(create.name, 'unit-dynamic-pvc-1');
    assert.deepEqual(create.secrets, { token: 't0k' });
    assert.deepEqual(create.parameters, { type: 'ssd', 'csi.storage.k8s.io/pvc/name': 'data', 'csi.storage.k8s.io/pvc/namespace': 'team', 'csi.storage.k8s.io/pv/name': 'pvc-1' });
    assert.deepEqual(create.volumeCapabilities, [{ mount: { mountFlags: [] }, accessMode: 'SINGLE_NODE_MULTI_WRITER' }]);
    assert.equal(create.accessibilityRequirements, undefined, 'a driver without VOLUME_ACCESSIBILITY_CONSTRAINTS gets none');
  });

  it('a topology-aware driver gets accessibility requirements and the PV its node affinity', async () => {
    const { driver, plugin } = await pluginFor({ services: ['CONTROLLER_SERVICE', 'VOLUME_ACCESSIBILITY_CONSTRAINTS'], accessibleTopology: [{ zone: 'a' }] });
    const v = await plugin.provision(request({ selectedNode: 'n1' }));
    const [create] = driver.callsOf('CreateVolume') as CreateVolumeRequest[];
    assert.deepEqual(create.accessibilityRequirements, { requisite: [{ zone: 'a' }, { zone: 'b' }], preferred: [{ zone: 'a' }, { zone: 'b' }] });
    assert.deepEqual(v.nodeAffinity?.required?.nodeSelectorTerms, [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }]);
  });

  it('a missing provisioner secret is a retryable failure naming it, and nothing is created', async () => {
    const { driver, plugin } = await pluginFor();
    const params = { ...SECRET_PARAMS, 'csi.storage.k8s.io/provisioner-secret-name': 'absent' };
    await assert.rejects(plugin.provision(request({ parameters: params })), (e: unknown) => e instanceof PluginError && e.retryable && /storage\/absent/.test(e.message));
    assert.equal(driver.callsOf('CreateVolume').length, 0);
  });

  it('an in-progress failure is retryable and the retry sends the same request; a final one is not retryable and carries the message', async () => {
    const { driver, plugin } = await pluginFor();
    driver.failNext('CreateVolume', csiError('CreateVolume', 'DEADLINE_EXCEEDED', 'in-progress'));
    await assert.rejects(plugin.provision(request()), (e: unknown) => e instanceof PluginError && e.retryable);
    await plugin.provision(request());
    const [first, second] = driver.callsOf('CreateVolume');
    assert.deepEqual(second, first);
    driver.failNext('CreateVolume', csiError('CreateVolume', 'INVALID_ARGUMENT', 'final', 'bad type'));
    await assert.rejects(plugin.provision(request({ backingName: 'unit-dynamic-pvc-2' })), (e: unknown) => e instanceof PluginError && !e.retryable && /bad type/.test(e.message));
  });

  it('a volume smaller than asked is deleted and the provision retried', async () => {
    const { driver, plugin } = await pluginFor({ reportCapacity: (n) => n / 2n });
    await assert.rejects(plugin.provision(request()), (e: unknown) => e instanceof PluginError && e.retryable);
    assert.equal(driver.volumes.size, 0);
  });
});

describe('delete', () => {
  it('with a PV: DeleteVolume of its handle with the deletion secret its annotations name', async () => {
    const { driver, plugin } = await pluginFor();
    const pv = await provisionedPv(plugin, request());
    await plugin.delete({ backingName: 'unit-dynamic-pvc-1', pv });
    const [del] = driver.callsOf('DeleteVolume') as DeleteVolumeRequest[];
    assert.deepEqual(del, { volumeId: 'fake-vol-1', secrets: { token: 't0k' } });
    assert.equal(driver.volumes.size, 0);
  });

  it('NOT_FOUND from DeleteVolume is success (gone already)', async () => {
    const { plugin } = await pluginFor({ notFoundOnMissingDelete: true });
    const pv = await provisionedPv(plugin, request());
    await plugin.delete({ backingName: 'unit-dynamic-pvc-1', pv });
    await plugin.delete({ backingName: 'unit-dynamic-pvc-1', pv });
  });

  it('without a PV: the same CreateVolume again, then DeleteVolume of the id it answers', async () => {
    const { driver, plugin } = await pluginFor();
    const req = request();
    await plugin.provision(req);
    await plugin.delete({ backingName: req.backingName, provision: req });
    const creates = driver.callsOf('CreateVolume');
    assert.equal(creates.length, 2);
    assert.deepEqual(creates[1], creates[0]);
    assert.deepEqual(driver.callsOf('DeleteVolume'), [{ volumeId: 'fake-vol-1', secrets: { token: 't0k' } }]);
    assert.equal(driver.volumes.size, 0);
  });

  it('without a PV, a create refused for good means there is nothing to delete; ALREADY_EXISTS keeps the failure', async () => {
    const { driver, plugin } = await pluginFor();
    driver.failNext('CreateVolume', csiError('CreateVolume', 'INVALID_ARGUMENT', 'final'));
    await plugin.delete({ backingName: 'unit-dynamic-pvc-1', provision: request() });
    assert.equal(driver.callsOf('DeleteVolume').length, 0);
    driver.failNext('CreateVolume', csiError('CreateVolume', 'ALREADY_EXISTS', 'final'));
    await assert.rejects(plugin.delete({ backingName: 'unit-dynamic-pvc-1', provision: request() }), PluginError);
  });

  it('without a PV or a request the volume cannot be found: refused, never guessed', async () => {
    const { driver, plugin } = await pluginFor();
    await assert.rejects(plugin.delete({ backingName: 'unit-dynamic-pvc-1' }), (e: unknown) => e instanceof PluginError && !e.retryable);
    assert.equal(driver.calls.length, 0);
  });
});

describe('provenance', () => {
  it('with a provenance, the PV is signed and DeleteVolume refuses a PV whose proof does not verify (a forged or copied handle)', async () => {
    const { driver, plugin } = await pluginFor({}, { provenance: new HmacProvenance(Buffer.alloc(32, 7)) });
    const pv = await provisionedPv(plugin, request());
    assert.match(pv.metadata.annotations?.[ANN_CSI_PROVENANCE] ?? '', /^v1:/);
    const forged: PersistentVolume = structuredClone(pv);
    forged.metadata.name = 'pvc-other';
    await assert.rejects(plugin.delete({ backingName: 'x', pv: forged }), (e: unknown) => e instanceof PluginError && e.code === 'Unsafe' && !e.retryable);
    delete forged.metadata.annotations?.[ANN_CSI_PROVENANCE];
    await assert.rejects(plugin.delete({ backingName: 'x', pv: forged }), (e: unknown) => e instanceof PluginError && e.code === 'Unsafe');
    assert.equal(driver.callsOf('DeleteVolume').length, 0);
    await plugin.delete({ backingName: 'unit-dynamic-pvc-1', pv });
    assert.equal(driver.volumes.size, 0);
  });
});

describe('expand, modify, capacity, list', () => {
  it('expand calls ControllerExpandVolume with the expand secret and the PV capability, passing nodeExpansionRequired through', async () => {
    const { driver, plugin } = await pluginFor();
    const pv = await provisionedPv(plugin, request());
    const grown = await plugin.expand!({ pv, sizeBytes: 2n * 1073741824n });
    assert.deepEqual(grown, { capacity: '2Gi', nodeExpansionRequired: true });
    const [call] = driver.callsOf('ControllerExpandVolume') as ExpandVolumeRequest[];
    assert.deepEqual(call.secrets, { token: 'gr0w' });
    assert.deepEqual(call.volumeCapability, { mount: { mountFlags: [] }, accessMode: 'SINGLE_NODE_MULTI_WRITER' });
  });

  it('an expand refused for good (OUT_OF_RANGE) is not retryable (Infeasible); an in-progress one is', async () => {
    const { driver, plugin } = await pluginFor();
    const pv = await provisionedPv(plugin, request());
    driver.failNext('ControllerExpandVolume', csiError('ControllerExpandVolume', 'OUT_OF_RANGE', 'final'), csiError('ControllerExpandVolume', 'ABORTED', 'in-progress'));
    await assert.rejects(plugin.expand!({ pv, sizeBytes: 5n }), (e: unknown) => e instanceof PluginError && !e.retryable);
    await assert.rejects(plugin.expand!({ pv, sizeBytes: 5n }), (e: unknown) => e instanceof PluginError && e.retryable);
  });

  it('modify sends the attributes as mutable parameters; only reserved keys are refused', async () => {
    const { driver, plugin } = await pluginFor();
    const pv = await provisionedPv(plugin, request());
    assert.deepEqual(plugin.validateAttributes!({ iops: '3000', 'vendor.example.com/x': 'y' }), []);
    assert.deepEqual(plugin.validateAttributes!({ 'csi.storage.k8s.io/fstype': 'xfs' }).map((p) => p.parameter), ['csi.storage.k8s.io/fstype']);
    await plugin.modify!({ pv, attributes: { iops: '3000' } });
    assert.deepEqual(driver.callsOf('ControllerModifyVolume') as ModifyVolumeRequest[], [{ volumeId: 'fake-vol-1', secrets: {}, mutableParameters: { iops: '3000' } }]);
  });

  it('capacity asks GetCapacity per segment and never reports a maximum above the capacity', async () => {
    const { driver, plugin } = await pluginFor({ availableCapacity: 10n, maximumVolumeSize: 20n });
    assert.deepEqual(await plugin.storageCapacity!({ type: 'ssd' }, { zone: 'a' }), { capacityBytes: 10n, maximumVolumeBytes: 10n });
    assert.deepEqual(driver.callsOf('GetCapacity') as GetCapacityRequest[], [{ volumeCapabilities: [], parameters: { type: 'ssd' }, accessibleTopology: { zone: 'a' } }]);
  });

  it('listDriverVolumes pages through ListVolumes', async () => {
    const { driver, plugin } = await pluginFor({ pageLimit: 2 });
    for (let i = 0; i < 3; i++) await plugin.provision(request({ backingName: `b-${i}` }));
    const listed = await plugin.listDriverVolumes!();
    assert.deepEqual(listed.map((v) => v.volumeId).sort(), ['fake-vol-1', 'fake-vol-2', 'fake-vol-3']);
    assert.deepEqual(driver.callsOf('ListVolumes'), [{ maxEntries: 500 }, { maxEntries: 500, startingToken: '2' }]);
  });
});
