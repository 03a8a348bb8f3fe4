import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { OAuth2Client } from 'google-auth-library';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { MetricsNotSupportedError } from '../../../src/metrics/provider.js';
import { GcePdPlugin, type GcePdPluginOptions } from '../../../src/plugins/gce-pd/gce-pd-plugin.js';
import { PluginError } from '../../../src/plugins/api/errors.js';
import { fastCloudOptions, GIB, provisionRequest } from '../../emulators/fixtures.js';
import { GceEmulator } from '../../emulators/gce.js';
import { canRecycle } from '../../../src/plugins/api/capabilities/recycle.js';

function oauthClientFor(gce: GceEmulator): OAuth2Client {
  const client = new OAuth2Client({
    clientId: gce.clientId,
    clientSecret: gce.clientSecret,
    endpoints: { oauth2TokenUrl: gce.tokenUrl },
  });
  client.setCredentials({ refresh_token: gce.refreshToken });
  return client;
}

function pluginFor(gce: GceEmulator, options: Partial<GcePdPluginOptions> = {}): GcePdPlugin {
  return new GcePdPlugin({
    project: gce.project,
    zone: 'us-central1-a',
    endpoint: gce.computeEndpoint,
    authClient: oauthClientFor(gce),
    ...fastCloudOptions(),
    ...options,
  });
}

function pvFor(pdName: string, zone: string): PersistentVolume {
  return { metadata: { name: 'pv', labels: { 'topology.kubernetes.io/zone': zone } }, spec: { gcePersistentDisk: { pdName } } };
}

const maxName = 63;

describe('gce-pd plugin against the Compute emulator', () => {
  const gce = new GceEmulator();
  before(() => gce.start());
  after(() => gce.stop());
  beforeEach(() => {
    gce.faults.clear();
    gce.statusAfterCreate = 'READY';
  });
  const disksNamed = (name: string) => gce.disks().filter((disk) => disk.name === name);

  it('creates a disk with the exact backing name, labels and the tags JSON in its description', async () => {
    const req = provisionRequest({ pvName: 'pvc-gce-tags', claimName: 'db', namespace: 'shop', maxNameLength: maxName });
    const result = await pluginFor(gce).provision(req);
    const [disk, ...others] = disksNamed('kubernetes-dynamic-pvc-gce-tags');
    assert.equal(others.length, 0);
    assert.equal(disk.location, 'us-central1-a');
    assert.equal(disk.type, 'pd-standard');
    assert.equal(disk.sizeGb, 10);
    assert.deepEqual(disk.labels, {
      'kubernetes-io-created-for-pvc-name': 'db',
      'kubernetes-io-created-for-pvc-namespace': 'shop',
      'kubernetes-io-created-for-pv-name': 'pvc-gce-tags',
      'kubernetes-io-cluster-kubernetes': 'owned',
    });
    assert.deepEqual(JSON.parse(disk.description ?? ''), {
      Name: 'kubernetes-dynamic-pvc-gce-tags',
      'kubernetes.io/created-for/pvc/name': 'db',
      'kubernetes.io/created-for/pvc/namespace': 'shop',
      'kubernetes.io/created-for/pv/name': 'pvc-gce-tags',
      'kubernetes.io/cluster/kubernetes': 'owned',
    });
    assert.deepEqual(result.source, { gcePersistentDisk: { pdName: 'kubernetes-dynamic-pvc-gce-tags' } });
    assert.equal(result.capacity, '10Gi');
    assert.deepEqual(result.labels, { 'topology.kubernetes.io/zone': 'us-central1-a', 'topology.kubernetes.io/region': 'us-central1' });
  });

  it('shortens the cluster prefix to fit 63 characters and never the PV name', async () => {
    const req = provisionRequest({ clusterName: 'a-very-long-cluster-name-for-testing', pvName: 'pvc-0b7c5b1e-6f0e-4c55-9d2c-3c2b7c1f9a01', maxNameLength: maxName });
    assert.ok(req.backingName.length <= 63);
    await pluginFor(gce).provision(req);
    assert.equal(disksNamed(req.backingName).length, 1);
    assert.ok(req.backingName.endsWith('-dynamic-pvc-0b7c5b1e-6f0e-4c55-9d2c-3c2b7c1f9a01'));
  });

  it('skips a label whose value GCE would refuse but keeps it in the description', async () => {
    const req = provisionRequest({ pvName: 'pvc-gce-upper', clusterName: 'Prod.EU', maxNameLength: maxName });
    await assert.rejects(pluginFor(gce).provision(req), { code: 'Backend' }, 'an upper-case disk name is refused');
    const legal = provisionRequest({ pvName: 'pvc-gce-lbl', claimName: 'x', maxNameLength: maxName }, {});
    legal.claim.namespace = 'Caps_Not_Allowed';
    await pluginFor(gce).provision(legal);
    const [disk] = disksNamed(legal.backingName);
    assert.equal(disk.labels['kubernetes-io-created-for-pvc-namespace'], undefined);
    assert.equal(JSON.parse(disk.description ?? '{}')['kubernetes.io/created-for/pvc/namespace'], 'Caps_Not_Allowed');
  });

  it('rounds the size up to whole GiB and reports what was created', async () => {
    const result = await pluginFor(gce).provision(provisionRequest({ pvName: 'pvc-gce-odd', requestBytes: 5n * GIB + 1n, maxNameLength: maxName }));
    assert.equal(result.capacity, '6Gi');
    assert.equal(disksNamed('kubernetes-dynamic-pvc-gce-odd')[0].sizeGb, 6);
  });

  it('deletes the disk the PV names, and deleting it again succeeds', async () => {
    const plugin = pluginFor(gce);
    const req = provisionRequest({ pvName: 'pvc-gce-del', maxNameLength: maxName });
    await plugin.provision(req);
    const pv = pvFor(req.backingName, 'us-central1-a');
    await plugin.delete({ backingName: req.backingName, pv });
    assert.equal(disksNamed(req.backingName).length, 0);
    await plugin.delete({ backingName: req.backingName, pv });
    await plugin.delete({ backingName: 'kubernetes-dynamic-never-made' });
  });

  it('without a PV, finds the disk in any zone and leaves another cluster\'s disk of that name', async () => {
    const plugin = pluginFor(gce);
    const req = provisionRequest({ pvName: 'pvc-gce-nopv', maxNameLength: maxName, parameters: { zone: 'us-central1-b' } });
    await plugin.provision(req);
    gce.addDisk({ name: req.backingName, location: 'us-central1-c', description: JSON.stringify({ 'kubernetes.io/cluster/other': 'owned' }) });
    await plugin.delete({ backingName: req.backingName });
    assert.deepEqual(disksNamed(req.backingName).map((d) => d.location), ['us-central1-c']);
  });

  it('refuses to adopt a same-named disk another cluster made', async () => {
    gce.addDisk({ name: 'kubernetes-dynamic-pvc-gce-taken', description: JSON.stringify({ 'kubernetes.io/cluster/other': 'owned' }) });
    await assert.rejects(
      pluginFor(gce).provision(provisionRequest({ pvName: 'pvc-gce-taken', maxNameLength: maxName })),
      (err: unknown) => err instanceof PluginError && err.code === 'Backend' && !err.retryable && /not created by cluster/.test(err.message),
    );
  });

  it('retries an insert whose answer was lost and ends with one disk, not two', async () => {
    gce.faults.inject('disks.insert', 'lostResponse');
    const result = await pluginFor(gce).provision(provisionRequest({ pvName: 'pvc-gce-lost', maxNameLength: maxName }));
    assert.equal(disksNamed('kubernetes-dynamic-pvc-gce-lost').length, 1);
    assert.equal(result.capacity, '10Gi');
  });

  it('a provision that gave up after a lost answer reuses the disk on the next call', async () => {
    const req = provisionRequest({ pvName: 'pvc-gce-crash', maxNameLength: maxName });
    gce.faults.inject('disks.insert', 'lostResponse');
    const impatient = pluginFor(gce, { retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, callTimeoutMs: 2000 } });
    await assert.rejects(impatient.provision(req), (err: unknown) => err instanceof PluginError && err.retryable);
    const inserts = gce.faults.calls('disks.insert');
    await pluginFor(gce).provision(req);
    assert.equal(gce.faults.calls('disks.insert'), inserts, 'found by name, not inserted again');
    assert.equal(disksNamed(req.backingName).length, 1);
  });

  it('retries 429s, 5xx and calls that hang past their timeout, leaking nothing', async () => {
    gce.faults.inject('disks.get', 'throttle', 2);
    gce.faults.inject('disks.insert', 'serverError');
    gce.faults.inject('operations.get', 'hang');
    const plugin = pluginFor(gce, fastCloudOptions({ retry: { maxAttempts: 6, baseDelayMs: 1, maxDelayMs: 5, callTimeoutMs: 1000 } }));
    await plugin.provision(provisionRequest({ pvName: 'pvc-gce-flaky', maxNameLength: maxName }));
    assert.equal(disksNamed('kubernetes-dynamic-pvc-gce-flaky').length, 1);
    assert.equal(gce.faults.pending('disks.get') + gce.faults.pending('disks.insert') + gce.faults.pending('operations.get'), 0);
  });

  it('gives up on persistent throttling with a retryable Transient error', async () => {
    gce.faults.inject('disks.get', 'throttle', 10);
    const plugin = pluginFor(gce, fastCloudOptions({ retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2, callTimeoutMs: 2000 } }));
    await assert.rejects(
      plugin.provision(provisionRequest({ pvName: 'pvc-gce-429', maxNameLength: maxName })),
      (err: unknown) => err instanceof PluginError && err.code === 'Transient' && err.retryable && /429/.test(err.message),
    );
    assert.equal(disksNamed('kubernetes-dynamic-pvc-gce-429').length, 0);
  });

  it('refuses to delete an attached disk with a retryable InUse error', async () => {
    const plugin = pluginFor(gce);
    const req = provisionRequest({ pvName: 'pvc-gce-used', maxNameLength: maxName });
    await plugin.provision(req);
    gce.attach(req.backingName);
    await assert.rejects(plugin.delete({ backingName: req.backingName, pv: pvFor(req.backingName, 'us-central1-a') }), (err: unknown) => {
      assert.ok(err instanceof PluginError);
      assert.equal(err.code, 'InUse');
      assert.equal(err.retryable, true);
      return true;
    });
    assert.equal(disksNamed(req.backingName).length, 1);
  });

  it('reports a failed insert operation and deletes a disk that ends FAILED', async () => {
    gce.nextInsertError = { code: 'QUOTA_EXCEEDED', message: "Quota 'SSD_TOTAL_GB' exceeded" };
    await assert.rejects(
      pluginFor(gce).provision(provisionRequest({ pvName: 'pvc-gce-quota', maxNameLength: maxName })),
      (err: unknown) => err instanceof PluginError && err.retryable && /SSD_TOTAL_GB/.test(err.message),
    );
    gce.statusAfterCreate = 'FAILED';
    await assert.rejects(pluginFor(gce).provision(provisionRequest({ pvName: 'pvc-gce-failed', maxNameLength: maxName })), /FAILED/);
    assert.equal(disksNamed('kubernetes-dynamic-pvc-gce-failed').length, 0);
  });

  it('creates a regional disk in two zones of one region for replication-type regional-pd', async () => {
    const parameters = { 'replication-type': 'regional-pd', zones: 'us-central1-a,us-central1-b,us-central1-c', type: 'pd-ssd' };
    const result = await pluginFor(gce).provision(provisionRequest({ pvName: 'pvc-gce-rpd', maxNameLength: maxName, parameters }));
    const [disk] = disksNamed('kubernetes-dynamic-pvc-gce-rpd');
    assert.equal(disk.scope, 'regions');
    assert.equal(disk.location, 'us-central1');
    assert.equal(disk.replicaZones?.length, 2);
    assert.equal(result.labels?.['topology.kubernetes.io/zone'], [...disk.replicaZones!].sort().join('__'));
    assert.deepEqual(result.nodeAffinity?.required?.nodeSelectorTerms[0].matchExpressions?.[0].values, [...disk.replicaZones!].sort());
    await pluginFor(gce).delete({ backingName: disk.name, pv: { metadata: { labels: result.labels }, spec: { gcePersistentDisk: { pdName: disk.name } } } });
    assert.equal(disksNamed('kubernetes-dynamic-pvc-gce-rpd').length, 0);
  });

  it('lists this cluster\'s disks, including one left behind, and ignores other clusters\'', async () => {
    const plugin = pluginFor(gce);
    await plugin.provision(provisionRequest({ clusterName: 'blue', pvName: 'pvc-b1', maxNameLength: maxName }));
    const tags = { Name: 'blue-dynamic-pvc-b2', 'kubernetes.io/created-for/pv/name': 'pvc-b2', 'kubernetes.io/cluster/blue': 'owned' };
    gce.addDisk({ name: 'blue-dynamic-pvc-b2', location: 'europe-west1-b', description: JSON.stringify(tags), labels: { 'kubernetes-io-cluster-blue': 'owned' } });
    gce.addDisk({ name: 'green-dynamic-pvc-g', description: JSON.stringify({ 'kubernetes.io/cluster/green': 'owned' }), labels: { 'kubernetes-io-cluster-green': 'owned' } });
    const listed = await plugin.listBackingVolumes('blue');
    assert.deepEqual(listed.map((v) => v.backingName).sort(), ['blue-dynamic-pvc-b1', 'blue-dynamic-pvc-b2']);
    assert.deepEqual(listed.find((v) => v.backingName === 'blue-dynamic-pvc-b2'), {
      backingName: 'blue-dynamic-pvc-b2',
      id: 'zones/europe-west1-b/disks/blue-dynamic-pvc-b2',
      pvName: 'pvc-b2',
    });
  });

  it('reports no usage metrics and claims only GCE PD PVs', async () => {
    const plugin = pluginFor(gce);
    assert.equal(plugin.handles(pvFor('d', 'z')), true);
    assert.equal(plugin.handles({ metadata: {}, spec: { cinder: { volumeID: 'x' } } }), false);
    assert.equal(canRecycle(plugin), false);
    await assert.rejects(plugin.metricsFor(pvFor('d', 'z')).getMetrics(), MetricsNotSupportedError);
  });
});
