import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { MetricsNotSupportedError } from '../../../src/metrics/provider.js';
import { CinderPlugin, type CinderPluginOptions } from '../../../src/plugins/cinder/cinder-plugin.js';
import { PluginError } from '../../../src/plugins/api/errors.js';
import { fastCloudOptions, GIB, provisionRequest } from '../../emulators/fixtures.js';
import { OpenStackEmulator, openStackEnv } from '../../emulators/openstack.js';
import { canRecycle } from '../../../src/plugins/api/capabilities/recycle.js';

function pluginFor(os: OpenStackEmulator, options: Partial<CinderPluginOptions> = {}): CinderPlugin {
  return new CinderPlugin({
    env: openStackEnv(os),
    ...fastCloudOptions(),
    ...options,
  });
}

const pvFor = (volumeID: string): PersistentVolume => ({ metadata: { name: 'pv' }, spec: { cinder: { volumeID } } });
const volumeIdOf = (source: Record<string, unknown>) => (source.cinder as { volumeID: string }).volumeID;

describe('cinder plugin against the Keystone + Cinder emulator', () => {
  const os = new OpenStackEmulator();
  before(() => os.start());
  after(() => os.stop());
  beforeEach(() => {
    os.faults.clear();
    os.statusAfterCreate = 'available';
    os.throttleStatus = 413;
  });
  const named = (name: string) => os.volumes().filter((volume) => volume.name === name);

  it('creates a volume with the exact backing name and the claim, PV and cluster metadata', async () => {
    const req = provisionRequest({ pvName: 'pvc-cin-tags', claimName: 'db', namespace: 'shop', parameters: { type: 'ssd', availability: 'az-2', fsType: 'xfs' } });
    const result = await pluginFor(os).provision(req);
    const [volume, ...others] = named('kubernetes-dynamic-pvc-cin-tags');
    assert.equal(others.length, 0);
    assert.deepEqual(volume.metadata, {
      'kubernetes.io/created-for/pvc/name': 'db',
      'kubernetes.io/created-for/pvc/namespace': 'shop',
      'kubernetes.io/created-for/pv/name': 'pvc-cin-tags',
      'kubernetes.io/cluster/kubernetes': 'owned',
    });
    assert.equal(volume.volumeType, 'ssd');
    assert.equal(volume.availabilityZone, 'az-2');
    assert.equal(volume.size, 10);
    assert.deepEqual(result.source, { cinder: { volumeID: volume.id, fsType: 'xfs' } });
    assert.equal(result.capacity, '10Gi');
    assert.deepEqual(result.labels, { 'topology.kubernetes.io/zone': 'az-2', 'topology.kubernetes.io/region': 'RegionOne' });
  });

  it('without a zone lets Cinder choose and labels the PV with the zone it chose', async () => {
    const result = await pluginFor(os).provision(provisionRequest({ pvName: 'pvc-cin-default' }));
    assert.equal(result.labels?.['topology.kubernetes.io/zone'], 'nova');
  });

  it('rounds the size up to whole GiB and reports what was created', async () => {
    const result = await pluginFor(os).provision(provisionRequest({ pvName: 'pvc-cin-odd', requestBytes: 2n * GIB + 512n }));
    assert.equal(result.capacity, '3Gi');
    assert.equal(named('kubernetes-dynamic-pvc-cin-odd')[0].size, 3);
  });

  it('deletes the volume the PV names; again, and a never-created name, succeed', async () => {
    const plugin = pluginFor(os);
    const req = provisionRequest({ pvName: 'pvc-cin-del' });
    const pv = pvFor(volumeIdOf((await plugin.provision(req)).source));
    await plugin.delete({ backingName: req.backingName, pv });
    assert.equal(named(req.backingName).length, 0);
    await plugin.delete({ backingName: req.backingName, pv });
    await plugin.delete({ backingName: 'kubernetes-dynamic-never-made' });
  });

  it('without a PV, deletes only this cluster\'s volume of the backing name', async () => {
    const plugin = pluginFor(os);
    const req = provisionRequest({ pvName: 'pvc-cin-nopv' });
    await plugin.provision(req);
    const foreign = os.addVolume({ name: req.backingName, metadata: { 'kubernetes.io/cluster/other': 'owned' } });
    await plugin.delete({ backingName: req.backingName });
    assert.deepEqual(named(req.backingName).map((v) => v.id), [foreign.id]);
  });

  it('retries a create whose answer was lost and ends with one volume, not two', async () => {
    os.faults.inject('volumes.create', 'lostResponse');
    const result = await pluginFor(os).provision(provisionRequest({ pvName: 'pvc-cin-lost' }));
    const volumes = named('kubernetes-dynamic-pvc-cin-lost');
    assert.equal(volumes.length, 1);
    assert.equal(volumeIdOf(result.source), volumes[0].id);
  });

  it('a provision that gave up after a lost answer reuses the volume on the next call', async () => {
    const req = provisionRequest({ pvName: 'pvc-cin-crash' });
    os.faults.inject('volumes.create', 'lostResponse');
    const impatient = pluginFor(os, { retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, callTimeoutMs: 2000 } });
    await assert.rejects(impatient.provision(req), (err: unknown) => err instanceof PluginError && err.retryable);
    const creates = os.faults.calls('volumes.create');
    await pluginFor(os).provision(req);
    assert.equal(os.faults.calls('volumes.create'), creates, 'found by name and metadata, not created again');
    assert.equal(named(req.backingName).length, 1);
  });

  it('retries 413 overLimit, 429, 5xx and calls that hang past their timeout, leaking nothing', async () => {
    os.faults.inject('volumes.list', 'throttle');
    os.faults.inject('volumes.create', 'serverError');
    os.faults.inject('volumes.get', 'hang');
    const plugin = pluginFor(os, fastCloudOptions({ retry: { maxAttempts: 6, baseDelayMs: 1, maxDelayMs: 5, callTimeoutMs: 1000 } }));
    await plugin.provision(provisionRequest({ pvName: 'pvc-cin-flaky' }));
    os.throttleStatus = 429;
    os.faults.inject('volumes.create', 'throttle');
    await plugin.provision(provisionRequest({ pvName: 'pvc-cin-flaky2' }));
    assert.equal(named('kubernetes-dynamic-pvc-cin-flaky').length, 1);
    assert.equal(named('kubernetes-dynamic-pvc-cin-flaky2').length, 1);
    assert.equal(['volumes.list', 'volumes.create', 'volumes.get'].reduce((n, a) => n + os.faults.pending(a), 0), 0);
  });

  it('gives up on persistent throttling with a retryable Transient error and no volume', async () => {
    os.faults.inject('volumes.create', 'throttle', 10);
    const plugin = pluginFor(os, fastCloudOptions({ retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2, callTimeoutMs: 2000 } }));
    await assert.rejects(
      plugin.provision(provisionRequest({ pvName: 'pvc-cin-413' })),
      (err: unknown) => err instanceof PluginError && err.code === 'Transient' && err.retryable && /413/.test(err.message),
    );
    assert.equal(named('kubernetes-dynamic-pvc-cin-413').length, 0);
  });

  it('refuses to delete an attached volume with a retryable InUse error', async () => {
    const plugin = pluginFor(os);
    const req = provisionRequest({ pvName: 'pvc-cin-used' });
    const pv = pvFor(volumeIdOf((await plugin.provision(req)).source));
    os.faults.inject('volumes.delete', 'inUse');
    await assert.rejects(plugin.delete({ backingName: req.backingName, pv }), (err: unknown) =>
      err instanceof PluginError && err.code === 'InUse' && err.retryable);
    os.attach(pv.spec.cinder!.volumeID);
    await assert.rejects(plugin.delete({ backingName: req.backingName, pv }), { code: 'InUse' });
    assert.equal(named(req.backingName).length, 1);
  });

  it('deletes a volume that went to status error after creation and reports it retryably', async () => {
    os.statusAfterCreate = 'error';
    await assert.rejects(pluginFor(os).provision(provisionRequest({ pvName: 'pvc-cin-err' })), (err: unknown) =>
      err instanceof PluginError && err.retryable && /status "error"/.test(err.message));
    assert.equal(named('kubernetes-dynamic-pvc-cin-err').length, 0);
  });

  it('lists this cluster\'s volumes, including one left behind, and ignores other clusters\'', async () => {
    const plugin = pluginFor(os);
    await plugin.provision(provisionRequest({ clusterName: 'blue', pvName: 'pvc-cb1' }));
    const left = os.addVolume({ name: 'blue-dynamic-pvc-cb2', metadata: { 'kubernetes.io/cluster/blue': 'owned', 'kubernetes.io/created-for/pv/name': 'pvc-cb2' } });
    os.addVolume({ name: 'green-dynamic-pvc-g', metadata: { 'kubernetes.io/cluster/green': 'owned' } });
    const listed = await plugin.listBackingVolumes('blue');
    assert.deepEqual(listed.map((v) => v.backingName).sort(), ['blue-dynamic-pvc-cb1', 'blue-dynamic-pvc-cb2']);
    assert.deepEqual(listed.find((v) => v.id === left.id), { backingName: 'blue-dynamic-pvc-cb2', id: left.id, pvName: 'pvc-cb2' });
  });

  it('reports no usage metrics and claims only Cinder PVs', async () => {
    const plugin = pluginFor(os);
    assert.equal(plugin.handles(pvFor('v')), true);
    assert.equal(plugin.handles({ metadata: {}, spec: { awsElasticBlockStore: { volumeID: 'vol-1' } } }), false);
    assert.equal(canRecycle(plugin), false);
    await assert.rejects(plugin.metricsFor(pvFor('v')).getMetrics(), MetricsNotSupportedError);
  });
});
