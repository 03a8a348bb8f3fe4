import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANN_SELECTED_NODE, FINALIZER_PROVISIONING } from '@pv-controller/kube/annotations.js';
import { claim, FakePlugin, harness, storageClass, waitFor } from './fixtures.js';

test('bad class parameters: ProvisioningFailed naming the parameter, nothing written or created, claim stays Pending', async () => {
  const { fake, plugin, provisioner } = harness();
  fake.addClass(storageClass('fast', { parameters: { tier: 'gold', colour: 'blue' } }));
  const pvc = fake.addClaim(claim('data'));
  const result = await provisioner.provisionClaim(pvc);
  assert.equal(result.kind, 'done', 'the sync returns at once');
  await provisioner.idle();
  const failed = fake.eventsFor('default/data').filter((e) => e.reason === 'ProvisioningFailed');
  assert.equal(failed.length, 1);
  assert.equal(failed[0].type, 'Warning');
  assert.match(failed[0].message, /StorageClass "fast".*invalid parameter "colour"/);
  assert.equal(plugin.provisionCalls.length, 0);
  assert.equal(fake.successfulWrites().length, 0, 'no intent finalizer for a claim that cannot be provisioned');
  assert.equal(fake.claim('default/data')?.status?.phase, 'Pending');
});

test('a class with mount options and a plugin that takes none: ProvisioningFailed in kube-controller-manager\'s words, claim stays Pending', async () => {
  const plugin = Object.assign(new FakePlugin(), { supportsMountOptions: false });
  const { fake, provisioner } = harness({ plugin });
  fake.addClass(storageClass('fast', { mountOptions: ['noatime', 'ro'] }));
  await provisioner.provisionClaim(fake.addClaim(claim('data')));
  await provisioner.idle();
  const failed = fake.eventsFor('default/data').filter((e) => e.reason === 'ProvisioningFailed');
  assert.deepEqual(failed.map((e) => [e.type, e.message]),
    [['Warning', 'Mount options are not supported by the provisioner but StorageClass "fast" has mount options [noatime ro]']]);
  assert.equal(plugin.provisionCalls.length, 0);
  assert.equal(fake.claim('default/data')?.status?.phase, 'Pending');
});

test('a failed claim backs off: syncs during the backoff do nothing, its end re-enqueues the claim, and it doubles', async () => {
  const { fake, provisioner } = harness({ initialBackoffMs: 20, maxBackoffMs: 10_000 });
  fake.addClass(storageClass('fast', { parameters: { colour: 'blue' } }));
  const pvc = fake.addClaim(claim('data'));
  await provisioner.provisionClaim(pvc);
  await provisioner.idle();
  assert.ok(provisioner.isBackingOff('default/data'));
  for (let i = 0; i < 10; i++) await provisioner.provisionClaim(pvc);
  await provisioner.idle();
  assert.equal(fake.eventReasons('default/data').length, 1, 'no hot loop: one attempt, one event');

  await waitFor(() => fake.enqueuedClaims.includes('default/data'), 'the backoff to re-enqueue the claim');
  assert.equal(provisioner.isBackingOff('default/data'), false);
  await provisioner.provisionClaim(pvc);
  await provisioner.idle();
  assert.equal(fake.eventReasons('default/data').length, 2, 'retried once the backoff passed');
  assert.ok(provisioner.isBackingOff('default/data'));
});

test('a plugin failure: ProvisioningFailed, the partial volume deleted, the finalizer removed, retried later', async () => {
  const { fake, plugin, provisioner } = harness();
  fake.addClass(storageClass('fast'));
  const pvc = fake.addClaim(claim('data'));
  plugin.failProvision();
  await provisioner.provisionClaim(pvc);
  await provisioner.idle();
  const failed = fake.eventsFor('default/data').find((e) => e.reason === 'ProvisioningFailed');
  assert.match(failed?.message ?? '', /Failed to provision volume with StorageClass "fast": backend exploded/);
  assert.equal(plugin.deleteCalls.length, 1);
  assert.deepEqual(fake.claim('default/data')?.metadata.finalizers, []);
  assert.equal(fake.serverList('PersistentVolume').length, 0);
  assert.ok(provisioner.isBackingOff('default/data'));
});

test('WaitForFirstConsumer: nothing happens until selected-node is set, then the plugin gets that node', async () => {
  const { fake, plugin, provisioner } = harness();
  fake.addClass(storageClass('fast', { mode: 'WaitForFirstConsumer' }));
  const waiting = fake.addClaim(claim('data'));
  await provisioner.provisionClaim(waiting);
  await provisioner.idle();
  assert.equal(plugin.provisionCalls.length, 0);
  assert.equal(fake.successfulWrites().length, 0);

  const scheduled = structuredClone(fake.claim('default/data')!);
  scheduled.metadata.annotations = { [ANN_SELECTED_NODE]: 'node-1' };
  await provisioner.provisionClaim(fake.seed('PersistentVolumeClaim', scheduled));
  await provisioner.idle();
  assert.equal(plugin.provisionCalls[0].selectedNode, 'node-1');
  const pv = fake.volume(`pvc-${waiting.metadata.uid}`);
  assert.deepEqual(pv?.spec.nodeAffinity?.required?.nodeSelectorTerms[0].matchExpressions?.[0].values, ['node-1']);
});

test('WaitForFirstConsumer: a plugin failure removes selected-node so the scheduler can choose again', async () => {
  const { fake, plugin, provisioner } = harness();
  fake.addClass(storageClass('fast', { mode: 'WaitForFirstConsumer' }));
  const pvc = fake.addClaim(claim('data', { annotations: { [ANN_SELECTED_NODE]: 'node-1' } }));
  plugin.failProvision();
  await provisioner.provisionClaim(pvc);
  await provisioner.idle();
  const after = fake.claim('default/data');
  assert.equal(after?.metadata.annotations?.[ANN_SELECTED_NODE], undefined);
  assert.ok(!after?.metadata.finalizers?.includes(FINALIZER_PROVISIONING));
  assert.ok(fake.eventReasons('default/data').includes('ProvisioningFailed'));
});

test('a PV create that keeps failing: ProvisioningFailed, the backing volume deleted, the finalizer released', async () => {
  const { fake, plugin, provisioner } = harness({ createAttempts: 5 });
  fake.addClass(storageClass('fast'));
  const pvc = fake.addClaim(claim('data'));
  fake.failNextWrites({ kind: 'PersistentVolume', verb: 'create' }, 5);
  await provisioner.provisionClaim(pvc);
  await provisioner.idle();
  assert.equal(fake.writes.filter((w) => w.kind === 'PersistentVolume' && w.verb === 'create').length, 5);
  const failed = fake.eventsFor('default/data').find((e) => e.reason === 'ProvisioningFailed');
  assert.match(failed?.message ?? '', /Error creating provisioned PV object for claim default\/data: .*Deleting the volume\./);
  assert.equal(plugin.volumes.size, 0);
  assert.deepEqual(fake.claim('default/data')?.metadata.finalizers, []);
});

test('a PV create that keeps failing and a cleanup that fails too: ProvisioningCleanupFailed, the finalizer kept', async () => {
  const { fake, plugin, provisioner } = harness({ createAttempts: 2 });
  fake.addClass(storageClass('fast'));
  const pvc = fake.addClaim(claim('data'));
  fake.failNextWrites({ kind: 'PersistentVolume', verb: 'create' }, 2);
  plugin.failDelete();
  await provisioner.provisionClaim(pvc);
  await provisioner.idle();
  const cleanup = fake.eventsFor('default/data').find((e) => e.reason === 'ProvisioningCleanupFailed');
  assert.match(cleanup?.message ?? '', /Error cleaning provisioned volume for claim default\/data: backend refused the delete\. Please delete manually\./);
  assert.equal(plugin.volumes.size, 1);
  assert.ok(fake.claim('default/data')?.metadata.finalizers?.includes(FINALIZER_PROVISIONING), 'a later sync retries the cleanup');
});

test('an API error while releasing the intent leaves the finalizer; the next sync only releases it', async () => {
  const { fake, plugin, provisioner } = harness({ initialBackoffMs: 1 });
  fake.addClass(storageClass('fast'));
  const pvc = fake.addClaim(claim('data'));
  plugin.onProvision = () => fake.failNextWrites({ kind: 'PersistentVolumeClaim', verb: 'update' }, 1);
  await provisioner.provisionClaim(pvc);
  await provisioner.idle();
  assert.ok(fake.volume(`pvc-${pvc.metadata.uid}`));
  assert.ok(fake.claim('default/data')?.metadata.finalizers?.includes(FINALIZER_PROVISIONING));

  await waitFor(() => !provisioner.isBackingOff('default/data'), 'the backoff to end');
  await provisioner.syncClaim(fake.claim('default/data')!);
  await provisioner.idle();
  assert.equal(plugin.provisionCalls.length, 1, 'no second volume');
  assert.equal(fake.serverList('PersistentVolume').length, 1);
  assert.deepEqual(fake.claim('default/data')?.metadata.finalizers, []);
});

test('an API error on the intent write creates nothing; the retry provisions', async () => {
  const { fake, plugin, provisioner } = harness({ initialBackoffMs: 1 });
  fake.addClass(storageClass('fast'));
  const pvc = fake.addClaim(claim('data'));
  fake.failNextWrites({ kind: 'PersistentVolumeClaim', verb: 'update' }, 1);
  await provisioner.provisionClaim(pvc);
  await provisioner.idle();
  assert.equal(plugin.provisionCalls.length, 0);
  await waitFor(() => !provisioner.isBackingOff('default/data'), 'the backoff to end');
  await provisioner.provisionClaim(pvc);
  await provisioner.idle();
  assert.equal(plugin.volumes.size, 1);
  assert.equal(fake.serverList('PersistentVolume').length, 1);
});
