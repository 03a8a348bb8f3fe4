/**
 * Dynamic provisioning end to end: embedded API server over HTTPS, the controller (binder,
 * provisioner, protection, …) and the real host-path plugin on a temp directory.
 */
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ANN_SELECTED_NODE, FINALIZER_PROVISIONING, LABEL_HOSTNAME } from '@pv-controller/kube/annotations.js';
import type { PersistentVolumeClaim, StorageClass } from '@pv-controller/kube/types.js';
import { pino } from 'pino';
import { startController, type RunningController } from '../../src/controller/controller.js';
import type { ControllerName } from '../../src/controller/options.js';
import { defaultModules } from '../../src/controller/modules.js';
import { HOST_PATH_PROVISIONER, HostPathPlugin } from '../../src/plugins/host-path/index.js';
import { readRecord } from '../../src/plugins/fs-common/metadata-record.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { claimLeft, exists, HoldablePlugin, TestApi, waitFor } from './provisioning-helpers.js';

interface Setup {
  cluster: TestCluster;
  api: TestApi;
  plugin: HoldablePlugin;
}

const running: Setup[] = [];

afterEach(async () => {
  for (const s of running.splice(0)) {
    s.api.close();
    await s.cluster.stop();
  }
});

async function setup(
  hostPath: { nodeName?: string } = {},
  o: { pluginName?: string; controllers?: ControllerName[]; syncPeriodMs?: number } = {},
): Promise<Setup> {
  const cluster = await startTestCluster({ noHostPath: true, noController: true });
  const plugin = new HoldablePlugin(new HostPathPlugin({ roots: [cluster.hostPathRoot], ...hostPath }), o.pluginName);
  cluster.plugins.register(plugin);
  const api = new TestApi(cluster.kc);
  const s = { cluster, api, plugin };
  running.push(s);
  await cluster.startController({ ...(o.controllers ? { controllers: o.controllers } : {}), ...(o.syncPeriodMs ? { syncPeriodMs: o.syncPeriodMs } : {}) });
  return s;
}

/** A second controller on the same server and plugins (stopped by the caller). */
function secondController(s: Setup, controllers?: ControllerName[]): Promise<RunningController> {
  return startController(
    { ...s.cluster.options, ...(controllers ? { controllers } : {}) },
    { plugins: s.cluster.plugins, modules: defaultModules(), kubeConfig: s.cluster.kc, logger: pino({ level: 'silent' }) },
  );
}

function hostPathClass(name: string, extra: Partial<StorageClass> = {}): StorageClass {
  return { metadata: { name }, provisioner: HOST_PATH_PROVISIONER, reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate', ...extra };
}

function newClaim(name: string, cls: string): PersistentVolumeClaim {
  return {
    metadata: { name, namespace: 'default' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: cls },
  };
}

function directoryOf(s: Setup, claim: PersistentVolumeClaim): string {
  return join(s.cluster.hostPathRoot, `kubernetes-dynamic-pvc-${claim.metadata.uid}`);
}

async function boundClaim(s: Setup, name: string): Promise<PersistentVolumeClaim> {
  return waitFor(async () => {
    const c = await s.api.claim('default', name);
    return c?.status?.phase === 'Bound' ? c : undefined;
  }, `claim ${name} to be Bound`);
}

test('a claim is provisioned and bound; the directory is named <cluster>-dynamic-pvc-<uid> and recorded for the claim and PV', async () => {
  const s = await setup();
  await s.api.createClass(hostPathClass('fast'));
  const created = await s.api.createClaim(newClaim('data', 'fast'));
  const claim = await boundClaim(s, 'data');
  const pvName = `pvc-${created.metadata.uid}`;
  assert.equal(claim.spec.volumeName, pvName);
  assert.ok(!claim.metadata.finalizers?.includes(FINALIZER_PROVISIONING));
  const pv = await s.api.volume(pvName);
  assert.equal(pv?.status?.phase, 'Bound');
  assert.equal(pv?.spec.claimRef?.uid, created.metadata.uid);
  assert.equal(pv?.spec.hostPath?.path, directoryOf(s, created));
  assert.ok(await exists(directoryOf(s, created)));
  const record = await readRecord(s.cluster.hostPathRoot, `kubernetes-dynamic-${pvName}`);
  assert.deepEqual(record?.tags, {
    'kubernetes.io/created-for/pvc/name': 'data',
    'kubernetes.io/created-for/pvc/namespace': 'default',
    'kubernetes.io/created-for/pv/name': pvName,
  });
  await waitFor(async () => (await s.api.eventReasons('default', 'data')).includes('ProvisioningSucceeded'), 'ProvisioningSucceeded');
  assert.equal(s.plugin.provisionCalls, 1);
});

test('a StorageClass created after its claim: the claim is provisioned at once, not at the next resync', async () => {
  // An hour between resyncs: only the class's own change can wake the claim within the test.
  const s = await setup({}, { syncPeriodMs: 3_600_000 });
  await s.api.createClaim(newClaim('early', 'late-class'));
  await waitFor(async () => (await s.api.eventReasons('default', 'early')).length > 0 || undefined, 'the claim to be seen');
  await s.api.createClass(hostPathClass('late-class'));
  const claim = await boundClaim(s, 'early');
  assert.ok(claim.spec.volumeName?.startsWith('pvc-'));
});

test('a claim deleted while the plugin works: its directory is deleted, no PV is left, the claim goes', async () => {
  const s = await setup();
  await s.api.createClass(hostPathClass('fast'));
  const hold = s.plugin.holdNextProvision();
  const created = await s.api.createClaim(newClaim('data', 'fast'));
  await hold.reached;
  assert.ok(await exists(directoryOf(s, created)), 'the plugin made the directory');
  const live = await s.api.claim('default', 'data');
  assert.ok(live?.metadata.finalizers?.includes(FINALIZER_PROVISIONING), 'intent was recorded before the plugin ran');
  await s.api.deleteClaim('default', 'data');
  hold.release();
  await claimLeft(s.api, 'default', 'data');
  assert.equal(await exists(directoryOf(s, created)), false);
  assert.deepEqual(await s.api.volumes(), []);
});

test('a controller stopped after the plugin made the directory: the next controller provisions the same directory and binds', async () => {
  const s = await setup();
  await s.api.createClass(hostPathClass('fast'));
  const hold = s.plugin.holdNextProvision();
  const created = await s.api.createClaim(newClaim('data', 'fast'));
  await hold.reached;
  await s.cluster.stopController();
  hold.release();
  assert.deepEqual(await s.api.volumes(), [], 'the stopped controller created no PV');
  assert.ok((await s.api.claim('default', 'data'))?.metadata.finalizers?.includes(FINALIZER_PROVISIONING));

  await s.cluster.startController();
  const claim = await boundClaim(s, 'data');
  assert.equal(claim.spec.volumeName, `pvc-${created.metadata.uid}`);
  assert.equal((await s.api.volumes()).length, 1);
  assert.ok(await exists(directoryOf(s, created)));
});

test('a controller stopped mid-provision and the claim deleted meanwhile: the next controller deletes the directory', async () => {
  const s = await setup();
  await s.api.createClass(hostPathClass('fast'));
  const hold = s.plugin.holdNextProvision();
  const created = await s.api.createClaim(newClaim('data', 'fast'));
  await hold.reached;
  await s.cluster.stopController();
  hold.release();
  await s.api.deleteClaim('default', 'data');
  assert.ok(await exists(directoryOf(s, created)));

  await s.cluster.startController();
  await claimLeft(s.api, 'default', 'data');
  assert.equal(await exists(directoryOf(s, created)), false);
  assert.deepEqual(await s.api.volumes(), []);
});

test('many syncs of one claim while its provisioning is in flight make one directory and one PV', async () => {
  const s = await setup();
  await s.api.createClass(hostPathClass('fast'));
  const hold = s.plugin.holdNextProvision();
  const created = await s.api.createClaim(newClaim('data', 'fast'));
  await hold.reached;
  const controller = s.cluster.controller!;
  const syncsAtHold = controller.stats().queues.claims.syncs;
  await waitFor(async () => controller.stats().queues.claims.syncs >= syncsAtHold + 2, 'two more claim syncs (resync)');
  hold.release();
  await boundClaim(s, 'data');
  assert.equal(s.plugin.provisionCalls, 1);
  assert.equal((await s.api.volumes()).length, 1);
  assert.ok(await exists(directoryOf(s, created)));
});

test('two controllers racing for one claim still make one directory and one PV', async () => {
  const s = await setup();
  const second = await secondController(s);
  try {
    await s.api.createClass(hostPathClass('fast'));
    const created = await s.api.createClaim(newClaim('data', 'fast'));
    await boundClaim(s, 'data');
    assert.equal((await s.api.volumes()).length, 1);
    assert.ok(await exists(directoryOf(s, created)));
  } finally {
    await second.stop();
  }
});

test('bad class parameters: ProvisioningFailed naming the parameter, the claim stays Pending, the controller keeps running', async () => {
  const s = await setup();
  await s.api.createClass(hostPathClass('odd', { parameters: { colour: 'blue' } }));
  await s.api.createClaim(newClaim('data', 'odd'));
  const events = await waitFor(async () => {
    const found = (await s.api.eventsFor('default', 'data')).filter((e) => e.reason === 'ProvisioningFailed');
    return found.length > 0 ? found : undefined;
  }, 'ProvisioningFailed');
  assert.match(events[0].message ?? '', /colour/);
  assert.equal(events[0].type, 'Warning');
  const claim = await s.api.claim('default', 'data');
  assert.equal(claim?.status?.phase, 'Pending');
  assert.ok(!claim?.metadata.finalizers?.includes(FINALIZER_PROVISIONING));
  assert.equal(s.plugin.provisionCalls, 0);
  assert.ok(s.cluster.controller?.ready());
});

test('a class whose provisioner nobody here serves: storage-provisioner annotations and an ExternalProvisioning event', async () => {
  const s = await setup();
  await s.api.createClass({ ...hostPathClass('elsewhere'), provisioner: 'example.com/nobody' });
  await s.api.createClaim(newClaim('data', 'elsewhere'));
  await waitFor(async () => (await s.api.eventReasons('default', 'data')).includes('ExternalProvisioning'), 'ExternalProvisioning');
  const claim = await s.api.claim('default', 'data');
  assert.equal(claim?.metadata.annotations?.['volume.kubernetes.io/storage-provisioner'], 'example.com/nobody');
  assert.equal(claim?.metadata.annotations?.['volume.beta.kubernetes.io/storage-provisioner'], 'example.com/nobody');
  assert.deepEqual(await s.api.volumes(), []);
});

test('WaitForFirstConsumer: nothing until selected-node is set, then a local PV pinned to that node', async () => {
  const s = await setup({ nodeName: 'node-1' });
  await s.api.createClass(hostPathClass('local', { volumeBindingMode: 'WaitForFirstConsumer' }));
  const created = await s.api.createClaim(newClaim('data', 'local'));
  await waitFor(async () => (await s.api.eventReasons('default', 'data')).includes('WaitForFirstConsumer'), 'WaitForFirstConsumer');
  assert.equal(s.plugin.provisionCalls, 0);
  assert.deepEqual(await s.api.volumes(), []);

  await s.api.modifyClaim('default', 'data', (live) => ({ ...live, metadata: { ...live.metadata, annotations: { ...live.metadata.annotations, [ANN_SELECTED_NODE]: 'node-1' } } }));
  await boundClaim(s, 'data');
  const pv = await s.api.volume(`pvc-${created.metadata.uid}`);
  assert.equal(pv?.spec.local?.path, directoryOf(s, created));
  const term = pv?.spec.nodeAffinity?.required?.nodeSelectorTerms[0];
  assert.deepEqual(term?.matchExpressions, [{ key: LABEL_HOSTNAME, operator: 'In', values: ['node-1'] }]);
});

test('WaitForFirstConsumer: a plugin failure removes selected-node so the scheduler can choose again', async () => {
  const s = await setup({ nodeName: 'node-1' });
  await s.api.createClass(hostPathClass('local', { volumeBindingMode: 'WaitForFirstConsumer' }));
  await s.api.createClaim(newClaim('data', 'local'));
  await s.api.modifyClaim('default', 'data', (live) => ({ ...live, metadata: { ...live.metadata, annotations: { ...live.metadata.annotations, [ANN_SELECTED_NODE]: 'node-2' } } }));
  const after = await waitFor(async () => {
    const c = await s.api.claim('default', 'data');
    return c && c.metadata.annotations?.[ANN_SELECTED_NODE] === undefined ? c : undefined;
  }, 'selected-node to be removed');
  assert.ok(!after.metadata.finalizers?.includes(FINALIZER_PROVISIONING));
  const failed = (await s.api.eventsFor('default', 'data')).find((e) => e.reason === 'ProvisioningFailed');
  assert.match(failed?.message ?? '', /node-2/);
  assert.deepEqual(await s.api.volumes(), []);
});

test('--controllers split: a binder-only controller annotates the claim, a provisioner-only one provisions it, the binder binds', async () => {
  const external = 'example.com/host-path';
  const s = await setup({}, { pluginName: external, controllers: ['binder'] });
  const provisionerOnly = await secondController(s, ['provisioner']);
  try {
    await s.api.createClass({ ...hostPathClass('split'), provisioner: external });
    const created = await s.api.createClaim(newClaim('data', 'split'));
    const claim = await boundClaim(s, 'data');
    assert.equal(claim.spec.volumeName, `pvc-${created.metadata.uid}`);
    assert.equal(claim.metadata.annotations?.['volume.kubernetes.io/storage-provisioner'], external);
    await s.api.eventsRecorded('default', 'data', ['ExternalProvisioning']);
    const pv = await s.api.volume(`pvc-${created.metadata.uid}`);
    assert.equal(pv?.metadata.annotations?.['pv.kubernetes.io/provisioned-by'], external);
    assert.equal(s.plugin.provisionCalls, 1);
  } finally {
    await provisionerOnly.stop();
  }
});
