import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ANN_BETA_STORAGE_PROVISIONER,
  ANN_BIND_COMPLETED,
  ANN_BOUND_BY_CONTROLLER,
  ANN_PROVISIONED_BY,
  ANN_STORAGE_PROVISIONER,
  FINALIZER_PROVISIONING,
  FINALIZER_PV_CONTROLLER,
} from '@pv-controller/kube/annotations.js';
import { AlreadyExistsError, ConflictError } from '@pv-controller/kube/errors.js';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { claim, FAKE_PROVISIONER, harness, storageClass, waitFor } from './fixtures.js';

test('a claim is provisioned as PV pvc-<uid>, pre-bound by uid, carrying the class policy, plugin capacity and source', async () => {
  const { fake, plugin, provisioner } = harness();
  fake.addClass(storageClass('fast', { parameters: { tier: 'gold' }, mountOptions: ['noatime'] }));
  const pvc = fake.addClaim(claim('data', { volumeMode: 'Filesystem' }));
  await provisioner.provisionClaim(pvc);
  await provisioner.idle();

  const pvName = `pvc-${pvc.metadata.uid}`;
  const pv = fake.volume(pvName);
  assert.ok(pv, 'the PV exists');
  assert.equal(pv.metadata.annotations?.[ANN_PROVISIONED_BY], FAKE_PROVISIONER);
  assert.equal(pv.metadata.annotations?.[ANN_BOUND_BY_CONTROLLER], 'yes');
  assert.deepEqual(pv.metadata.finalizers, [FINALIZER_PV_CONTROLLER]);
  assert.deepEqual(pv.metadata.labels, { 'example.com/pool': 'a' });
  assert.equal(pv.spec.claimRef?.uid, pvc.metadata.uid);
  assert.equal(pv.spec.claimRef?.name, 'data');
  assert.equal(pv.spec.claimRef?.namespace, 'default');
  assert.equal(pv.spec.persistentVolumeReclaimPolicy, 'Delete', 'a class without reclaimPolicy means Delete');
  assert.equal(pv.spec.storageClassName, 'fast');
  assert.deepEqual(pv.spec.capacity, { storage: '2Gi' }, 'capacity is what the plugin created, not what was asked');
  assert.deepEqual(pv.spec.accessModes, ['ReadWriteOnce']);
  assert.equal(pv.spec.volumeMode, 'Filesystem');
  assert.deepEqual(pv.spec.mountOptions, ['noatime']);
  assert.deepEqual(pv.spec.csi, { driver: FAKE_PROVISIONER, volumeHandle: `unit-dynamic-${pvName}` });

  assert.equal(plugin.provisionCalls.length, 1);
  const req = plugin.provisionCalls[0];
  assert.equal(req.backingName, `unit-dynamic-${pvName}`);
  assert.equal(req.pvName, pvName);
  assert.equal(req.requestBytes, 1024n ** 3n);
  assert.deepEqual(req.parameters, { tier: 'gold' });
  assert.deepEqual(req.claim, { name: 'data', namespace: 'default', uid: pvc.metadata.uid, labels: { app: 'db' }, annotations: {} });

  const after = fake.claim('default/data');
  assert.ok(after);
  assert.ok(!(after.metadata.finalizers ?? []).includes(FINALIZER_PROVISIONING), 'the intent finalizer is gone once the PV exists');
  assert.equal(after.metadata.annotations?.[ANN_STORAGE_PROVISIONER], FAKE_PROVISIONER);
  assert.equal(after.metadata.annotations?.[ANN_BETA_STORAGE_PROVISIONER], FAKE_PROVISIONER);
  assert.ok(fake.eventReasons('default/data').includes('ProvisioningSucceeded'));
  assert.ok(fake.enqueuedVolumes.includes(pvName), 'the new PV is synced so the binder binds it');
  assert.ok(fake.enqueuedClaims.includes('default/data'));
});

test('the intent finalizer is on the server, written with the claim resourceVersion, before the plugin creates anything', async () => {
  const { fake, plugin, provisioner } = harness();
  fake.addClass(storageClass('fast'));
  const pvc = fake.addClaim(claim('data'));
  let serverClaimDuringProvision: PersistentVolumeClaim | undefined;
  plugin.onProvision = () => (serverClaimDuringProvision = fake.claim('default/data'));
  await provisioner.provisionClaim(pvc);
  await provisioner.idle();

  assert.ok(serverClaimDuringProvision?.metadata.finalizers?.includes(FINALIZER_PROVISIONING));
  const intent = fake.successfulWrites({ kind: 'PersistentVolumeClaim', verb: 'update' })[0];
  assert.equal(intent.request?.metadata.resourceVersion, pvc.metadata.resourceVersion);
  const pvCreate = fake.successfulWrites({ kind: 'PersistentVolume', verb: 'create' })[0];
  assert.ok(intent.seq < pvCreate.seq);
});

test('publishing the PV releases the intent and writes the claim side of the binding in one claim write, without another GET', async () => {
  const { fake, provisioner } = harness();
  fake.addClass(storageClass('fast'));
  const pvc = fake.addClaim(claim('data'));
  await provisioner.provisionClaim(pvc);
  await provisioner.idle();
  const pvName = `pvc-${pvc.metadata.uid}`;
  const claimWrites = fake.successfulWrites({ kind: 'PersistentVolumeClaim' });
  assert.deepEqual(claimWrites.map((w) => w.verb), ['update', 'update'], 'the intent, then release + bind: nothing else');
  const after = fake.claim('default/data')!;
  assert.equal(after.spec.volumeName, pvName);
  assert.equal(after.metadata.annotations?.[ANN_BIND_COMPLETED], 'yes');
  assert.equal(after.metadata.annotations?.[ANN_BOUND_BY_CONTROLLER], 'yes');
  assert.ok(!(after.metadata.finalizers ?? []).includes(FINALIZER_PROVISIONING));
  const claimReads = fake.reads.filter((r) => r.kind === 'PersistentVolumeClaim' && r.key === 'default/data');
  assert.equal(claimReads.length, 2, 'live reads before deciding and after the plugin returned; the release writes on the latter');
});

test('a PV pvc-<uid> that is not reserved for the claim releases the intent but binds nothing', async () => {
  const { fake, provisioner } = harness();
  fake.addClass(storageClass('fast'));
  const pvc = fake.addClaim(claim('data', { finalizers: [FINALIZER_PROVISIONING] }));
  fake.addVolume({ metadata: { name: `pvc-${pvc.metadata.uid}` }, spec: { capacity: { storage: '1Gi' } } });
  await provisioner.provisionClaim(pvc);
  await provisioner.idle();
  const after = fake.claim('default/data')!;
  assert.deepEqual(after.metadata.finalizers, []);
  assert.equal(after.spec.volumeName, undefined, 'the binder decides about a volume someone else made');
  assert.equal(after.metadata.annotations?.[ANN_BIND_COMPLETED], undefined);
});

test('a Retain class gives a PV without the deletion finalizer', async () => {
  const { fake, provisioner } = harness();
  fake.addClass(storageClass('fast', { policy: 'Retain' }));
  const pvc = fake.addClaim(claim('data'));
  await provisioner.provisionClaim(pvc);
  await provisioner.idle();
  const pv = fake.volume(`pvc-${pvc.metadata.uid}`);
  assert.equal(pv?.spec.persistentVolumeReclaimPolicy, 'Retain');
  assert.equal(pv?.metadata.finalizers, undefined);
});

test('an existing PV pvc-<uid> found by live GET (cache behind) means no second volume', async () => {
  const { fake, plugin, provisioner } = harness();
  fake.addClass(storageClass('fast'));
  const pvc = fake.addClaim(claim('data', { finalizers: [FINALIZER_PROVISIONING] }));
  fake.pauseCache('PersistentVolume');
  const pv: PersistentVolume = { metadata: { name: `pvc-${pvc.metadata.uid}` }, spec: { capacity: { storage: '1Gi' } } };
  fake.addVolume(pv);
  await provisioner.provisionClaim(pvc);
  await provisioner.idle();
  assert.equal(plugin.provisionCalls.length, 0);
  assert.ok(fake.reads.some((r) => r.kind === 'PersistentVolume' && r.key === pv.metadata.name));
  assert.deepEqual(fake.claim('default/data')?.metadata.finalizers, [], 'the leftover intent is released');
});

test('a stale claim copy (already bound) triggers nothing: the operation decides on the live claim', async () => {
  const { fake, plugin, provisioner } = harness();
  fake.addClass(storageClass('fast'));
  const stale = fake.addClaim(claim('data'));
  fake.seed('PersistentVolumeClaim', { ...structuredClone(stale), spec: { ...stale.spec, volumeName: 'static-pv' } });
  await provisioner.provisionClaim(stale);
  await provisioner.idle();
  assert.equal(plugin.provisionCalls.length, 0);
  assert.equal(fake.successfulWrites().length, 0);
});

test('two syncs of one claim at once make exactly one plugin call and one PV', async () => {
  const { fake, plugin, provisioner } = harness();
  fake.addClass(storageClass('fast'));
  const pvc = fake.addClaim(claim('data'));
  const hold = plugin.holdProvision();
  await provisioner.provisionClaim(pvc);
  await hold.reached;
  await provisioner.provisionClaim(pvc);
  await provisioner.syncClaim(fake.claim('default/data')!);
  assert.ok(provisioner.isProvisioning('default/data'));
  hold.release();
  await provisioner.idle();
  assert.equal(plugin.provisionCalls.length, 1);
  assert.equal(fake.successfulWrites({ kind: 'PersistentVolume', verb: 'create' }).length, 1);
});

test('AlreadyExists on PV create counts as success (an earlier answer was lost)', async () => {
  const { fake, provisioner } = harness();
  fake.addClass(storageClass('fast'));
  const pvc = fake.addClaim(claim('data'));
  const pvName = `pvc-${pvc.metadata.uid}`;
  fake.failNextWrites({ kind: 'PersistentVolume', verb: 'create' }, 1, () => new AlreadyExistsError({ kind: 'persistentvolumes', name: pvName }));
  await provisioner.provisionClaim(pvc);
  await provisioner.idle();
  assert.ok(fake.eventReasons('default/data').includes('ProvisioningSucceeded'));
  assert.ok(!fake.claim('default/data')?.metadata.finalizers?.includes(FINALIZER_PROVISIONING));
});

test('a PV create that fails a few times is retried and succeeds', async () => {
  const { fake, plugin, provisioner } = harness();
  fake.addClass(storageClass('fast'));
  const pvc = fake.addClaim(claim('data'));
  fake.failNextWrites({ kind: 'PersistentVolume', verb: 'create' }, 3);
  await provisioner.provisionClaim(pvc);
  await provisioner.idle();
  assert.ok(fake.volume(`pvc-${pvc.metadata.uid}`));
  assert.equal(plugin.deleteCalls.length, 0);
});

test('a 409 on the intent write restarts the operation on fresh data', async () => {
  const { fake, plugin, provisioner } = harness();
  fake.addClass(storageClass('fast'));
  const pvc = fake.addClaim(claim('data'));
  fake.seed('PersistentVolumeClaim', { ...structuredClone(pvc), metadata: { ...structuredClone(pvc.metadata), labels: { app: 'db', v: '2' } } });
  fake.failNextWrites({ kind: 'PersistentVolumeClaim', verb: 'update' }, 1, () => new ConflictError({ kind: 'persistentvolumeclaims', name: 'data' }));
  await provisioner.provisionClaim(pvc);
  await provisioner.idle();
  assert.equal(fake.reads.filter((r) => r.kind === 'PersistentVolumeClaim').length >= 2, true, 'the claim was read again after the 409');
  assert.equal(plugin.provisionCalls.length, 1);
  assert.deepEqual(plugin.provisionCalls[0].claim.labels, { app: 'db', v: '2' }, 'the live claim is what gets provisioned');
  assert.ok(fake.volume(`pvc-${pvc.metadata.uid}`));
});

test('plugin calls are reported to the metrics hook with plugin, operation and duration', async () => {
  const { fake, plugin, provisioner, metrics } = harness();
  fake.addClass(storageClass('fast'));
  await provisioner.provisionClaim(fake.addClaim(claim('a')));
  await provisioner.idle();
  plugin.failProvision();
  await provisioner.provisionClaim(fake.addClaim(claim('b')));
  await provisioner.idle();
  const provisions = metrics.records.filter((r) => r.operation === 'provision');
  assert.equal(provisions.length, 2);
  assert.ok(provisions.every((r) => r.plugin === FAKE_PROVISIONER && r.seconds >= 0));
  assert.equal(provisions[0].error, undefined);
  assert.match(provisions[1].error?.message ?? '', /backend exploded/);
  assert.ok(metrics.records.some((r) => r.operation === 'delete' && !r.error), 'the failed attempt was cleaned up');
});

test('no more than `concurrency` plugin calls run at once', async () => {
  const { fake, plugin, provisioner } = harness({ concurrency: 2 });
  fake.addClass(storageClass('fast'));
  const holds = [plugin.holdProvision(), plugin.holdProvision()];
  for (const name of ['a', 'b', 'c', 'd']) await provisioner.provisionClaim(fake.addClaim(claim(name)));
  await Promise.all(holds.map((h) => h.reached));
  assert.equal(plugin.provisionCalls.length, 2, 'the other two wait for a slot');
  for (const h of holds) h.release();
  await provisioner.idle();
  assert.equal(plugin.provisionCalls.length, 4);
  assert.equal(plugin.maxInFlight, 2);
  assert.equal(fake.successfulWrites({ kind: 'PersistentVolume', verb: 'create' }).length, 4);
});

test('the Provisioning event is emitted only for a plugin call still running after provisioningEventAfterMs', async () => {
  const fast = harness({ provisioningEventAfterMs: 60_000 });
  fast.fake.addClass(storageClass('fast'));
  await fast.provisioner.provisionClaim(fast.fake.addClaim(claim('quick')));
  await fast.provisioner.idle();
  assert.deepEqual(fast.fake.eventReasons('default/quick'), ['ProvisioningSucceeded'], 'a quick call: no announcement, no extra write');

  const slow = harness({ provisioningEventAfterMs: 20 });
  slow.fake.addClass(storageClass('fast'));
  const held = slow.plugin.holdProvision();
  await slow.provisioner.provisionClaim(slow.fake.addClaim(claim('slow')));
  await held.reached;
  await waitFor(() => slow.fake.eventReasons('default/slow').includes('Provisioning'), 'the Provisioning event of a slow call', { timeoutMs: 5_000 });
  held.release();
  await slow.provisioner.idle();
  assert.deepEqual(slow.fake.eventReasons('default/slow'), ['Provisioning', 'ProvisioningSucceeded']);
});
