import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ANN_BETA_STORAGE_PROVISIONER,
  ANN_STORAGE_PROVISIONER,
  FINALIZER_PROVISIONING,
} from '@pv-controller/kube/annotations.js';
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import type { FakeCluster } from '../../helpers/fake-context.js';
import { claim, FAKE_PROVISIONER, FakePlugin, harness, storageClass, waitFor } from './fixtures.js';

/** What the API server does on DELETE of a claim carrying finalizers: mark it. */
function markDeleted(fake: FakeCluster, key: string): PersistentVolumeClaim {
  const live = fake.claim(key);
  assert.ok(live);
  const marked = structuredClone(live) as PersistentVolumeClaim;
  marked.metadata.deletionTimestamp = '2024-01-01T00:00:05Z';
  return fake.seed('PersistentVolumeClaim', marked);
}

const intentAnnotations = { [ANN_STORAGE_PROVISIONER]: FAKE_PROVISIONER, [ANN_BETA_STORAGE_PROVISIONER]: FAKE_PROVISIONER };

test('a claim deleted while the plugin works: backing volume deleted, no PV, finalizer removed so the claim goes', async () => {
  const { fake, plugin, provisioner } = harness();
  fake.addClass(storageClass('fast'));
  const pvc = fake.addClaim(claim('data'));
  const hold = plugin.holdProvision();
  await provisioner.provisionClaim(pvc);
  await hold.reached;
  const deleting = markDeleted(fake, 'default/data');
  await provisioner.syncClaim(deleting);
  hold.release();
  await provisioner.idle();

  assert.equal(fake.claim('default/data'), undefined, 'the claim is gone');
  assert.equal(fake.serverList('PersistentVolume').length, 0, 'no PV was created');
  assert.equal(plugin.volumes.size, 0, 'the backing volume was deleted');
  assert.deepEqual(plugin.deleteCalls.map((c) => c.backingName), [`unit-dynamic-pvc-${pvc.metadata.uid}`]);
  assert.equal(plugin.deleteCalls[0].pv, undefined);
  assert.ok(!fake.eventReasons('default/data').includes('ProvisioningSucceeded'));
});

test('the plugin call is aborted when the claim is seen being deleted', async () => {
  const { fake, plugin, provisioner } = harness();
  fake.addClass(storageClass('fast'));
  const pvc = fake.addClaim(claim('data'));
  const hold = plugin.holdProvision();
  await provisioner.provisionClaim(pvc);
  await hold.reached;
  const signal = plugin.provisionCalls[0].signal;
  assert.equal(signal?.aborted, false);
  await provisioner.syncClaim(markDeleted(fake, 'default/data'));
  assert.equal(signal?.aborted, true);
  hold.release();
  await provisioner.idle();
});

test('a claim bound to another volume while the plugin worked: backing volume deleted, claim keeps its binding', async () => {
  const { fake, plugin, provisioner } = harness();
  fake.addClass(storageClass('fast'));
  const pvc = fake.addClaim(claim('data'));
  const hold = plugin.holdProvision();
  await provisioner.provisionClaim(pvc);
  await hold.reached;
  const live = structuredClone(fake.claim('default/data')!) as PersistentVolumeClaim;
  live.spec.volumeName = 'static-pv';
  fake.seed('PersistentVolumeClaim', live);
  hold.release();
  await provisioner.idle();
  assert.equal(fake.serverList('PersistentVolume').length, 0);
  assert.equal(plugin.volumes.size, 0);
  const after = fake.claim('default/data');
  assert.equal(after?.spec.volumeName, 'static-pv');
  assert.deepEqual(after?.metadata.finalizers, []);
});

test('after a restart, a claim with our finalizer and no PV is provisioned again: the same volume, one PV', async () => {
  const plugin = new FakePlugin();
  const first = harness({ plugin });
  first.fake.addClass(storageClass('fast'));
  const pvc = first.fake.addClaim(claim('data'));
  const hold = plugin.holdProvision();
  await first.provisioner.provisionClaim(pvc);
  await hold.reached;
  first.provisioner.stop();
  const writesAtStop = first.fake.writes.length;
  hold.release();
  await first.provisioner.idle();
  assert.equal(first.fake.writes.length, writesAtStop, 'a stopped provisioner writes nothing more (a crash)');
  assert.equal(plugin.volumes.size, 1, 'the plugin did create the volume');
  const leftover = first.fake.claim('default/data')!;
  assert.ok(leftover.metadata.finalizers?.includes(FINALIZER_PROVISIONING));

  const second = harness({ fake: first.fake, plugin });
  await second.provisioner.syncClaim(leftover);
  await second.provisioner.idle();
  assert.equal(plugin.provisionCalls.length, 2);
  assert.equal(plugin.volumes.size, 1, 'provision is idempotent: the same volume came back');
  assert.ok(first.fake.volume(`pvc-${pvc.metadata.uid}`));
  assert.deepEqual(first.fake.claim('default/data')?.metadata.finalizers, []);
});

test('after a restart, a deleted claim with our finalizer gets its backing volume deleted and goes away', async () => {
  const { fake, plugin, provisioner } = harness();
  fake.addClass(storageClass('fast'));
  const pvc = fake.addClaim(claim('data', { annotations: intentAnnotations, finalizers: [FINALIZER_PROVISIONING], deleting: true }));
  const backingName = `unit-dynamic-pvc-${pvc.metadata.uid}`;
  plugin.volumes.set(backingName, { backingName } as never);
  await provisioner.syncClaim(pvc);
  await provisioner.idle();
  assert.equal(plugin.provisionCalls.length, 0);
  assert.equal(plugin.volumes.size, 0);
  assert.equal(fake.claim('default/data'), undefined);
  assert.equal(fake.serverList('PersistentVolume').length, 0);
});

test('cleanup finds the plugin through the claim annotation even when the class is gone', async () => {
  const { fake, plugin, provisioner } = harness();
  const pvc = fake.addClaim(claim('data', { annotations: intentAnnotations, finalizers: [FINALIZER_PROVISIONING], deleting: true }));
  await provisioner.syncClaim(pvc);
  await provisioner.idle();
  assert.equal(plugin.deleteCalls.length, 1);
  assert.equal(fake.claim('default/data'), undefined);
});

test('a failing cleanup keeps the finalizer and reports ProvisioningCleanupFailed; the next try finishes it', async () => {
  const { fake, plugin, provisioner } = harness({ initialBackoffMs: 1 });
  fake.addClass(storageClass('fast'));
  const pvc = fake.addClaim(claim('data', { annotations: intentAnnotations, finalizers: [FINALIZER_PROVISIONING], deleting: true }));
  plugin.failDelete();
  await provisioner.syncClaim(pvc);
  await provisioner.idle();
  assert.ok(fake.eventReasons('default/data').includes('ProvisioningCleanupFailed'));
  assert.ok(fake.claim('default/data')?.metadata.finalizers?.includes(FINALIZER_PROVISIONING));
  assert.equal(provisioner.isBackingOff('default/data'), true);

  await waitFor(() => !provisioner.isBackingOff('default/data'), 'the backoff to end');
  assert.ok(fake.enqueuedClaims.includes('default/data'), 'the backoff ending re-enqueues the claim');
  await provisioner.syncClaim(fake.claim('default/data')!);
  await provisioner.idle();
  assert.equal(fake.claim('default/data'), undefined);
});

test('a claim deleted after its PV exists only loses the finalizer: the PV (and reclaim) own the volume now', async () => {
  const { fake, plugin, provisioner } = harness();
  fake.addClass(storageClass('fast'));
  const pvc = fake.addClaim(claim('data', { annotations: intentAnnotations, finalizers: [FINALIZER_PROVISIONING], deleting: true }));
  fake.addVolume({ metadata: { name: `pvc-${pvc.metadata.uid}` }, spec: { capacity: { storage: '1Gi' } } });
  await provisioner.syncClaim(pvc);
  await provisioner.idle();
  assert.equal(plugin.deleteCalls.length, 0);
  assert.equal(fake.claim('default/data'), undefined);
});

test('stop() while operations wait for a slot starts none of them', async () => {
  const { fake, plugin, provisioner } = harness({ concurrency: 1 });
  fake.addClass(storageClass('fast'));
  const hold = plugin.holdProvision();
  await provisioner.provisionClaim(fake.addClaim(claim('a')));
  await provisioner.provisionClaim(fake.addClaim(claim('b')));
  await hold.reached;
  provisioner.stop();
  hold.release();
  await provisioner.idle();
  assert.equal(plugin.provisionCalls.length, 1);
  assert.equal(fake.serverList('PersistentVolume').length, 0);
});

test('cleanup never deletes a backing volume that a PV already names (another controller published it)', async () => {
  const { fake, plugin, provisioner } = harness();
  fake.addClass(storageClass('fast'));
  const pvc = fake.addClaim(claim('data'));
  const hold = plugin.holdProvision();
  plugin.failProvision();
  await provisioner.provisionClaim(pvc);
  await hold.reached;
  fake.addVolume({ metadata: { name: `pvc-${pvc.metadata.uid}` }, spec: { capacity: { storage: '1Gi' } } });
  hold.release();
  await provisioner.idle();
  assert.equal(plugin.deleteCalls.length, 0);
  assert.ok(!fake.claim('default/data')?.metadata.finalizers?.includes(FINALIZER_PROVISIONING));
});
