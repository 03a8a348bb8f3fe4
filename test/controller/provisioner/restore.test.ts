import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FINALIZER_PROVISIONING } from '@pv-controller/kube/annotations.js';
import { ANN_ALLOW_VOLUME_MODE_CHANGE } from '@pv-controller/kube/snapshot-types.js';
import { claim, FakePlugin, harness, storageClass } from './fixtures.js';
import { FakeSnapshotApi, FakeSnapshotPlugin, restoreClaim, snapshotPair, type SnapshotOptions } from './source-fixtures.js';
import type { ClaimOptions } from './fixtures.js';

const CLASS = 'Failed to provision volume with StorageClass "fast": error getting handle for DataSource Type VolumeSnapshot by Name snap: ';

async function restore(snapshot: SnapshotOptions | 'none', claimOptions: ClaimOptions = {}, plugin = new FakeSnapshotPlugin()) {
  const rest = new FakeSnapshotApi();
  if (snapshot !== 'none') rest.add(snapshotPair('snap', snapshot));
  const h = harness({ plugin, rest });
  h.fake.addClass(storageClass('fast'));
  const pvc = h.fake.addClaim(restoreClaim('data', 'snap', claimOptions));
  await h.provisioner.provisionClaim(pvc);
  await h.provisioner.idle();
  const events = h.fake.eventsFor('default/data');
  return { ...h, rest, pvc, plugin, events, messages: events.map((e) => e.message) };
}

test('a claim restoring from a ready snapshot is provisioned through provisionFromSnapshot, with the same contentSource on the request', async () => {
  const { fake, plugin, pvc, rest } = await restore({ sourceVolumeMode: 'Filesystem' });
  assert.equal(plugin.restoreCalls.length, 1);
  assert.equal(plugin.provisionCalls.length, 1, 'one volume made');
  const { req, snapshot } = plugin.restoreCalls[0];
  assert.deepEqual(snapshot, { snapshotId: 'snap-handle-snap', restoreSize: 1024n ** 3n, sourceVolumeMode: 'Filesystem' });
  assert.deepEqual(req.contentSource, { kind: 'snapshot', ...snapshot });
  const pv = fake.volume(`pvc-${pvc.metadata.uid}`);
  assert.ok(pv, 'the PV exists');
  assert.equal(Object.hasOwn(pv.spec, 'dataSource'), false, 'the PV spec records nothing extra (as external-provisioner)');
  assert.ok(fake.eventReasons('default/data').includes('ProvisioningSucceeded'));
  assert.deepEqual(rest.paths, [
    '/apis/snapshot.storage.k8s.io/v1/namespaces/default/volumesnapshots/snap',
    '/apis/snapshot.storage.k8s.io/v1/volumesnapshotcontents/snapcontent-snap',
  ], 'both read live, once each');
});

test('a restore refused: a missing snapshot gets external-provisioner\'s message, nothing is made, the intent is never written, and the claim backs off', async () => {
  const { fake, plugin, provisioner, messages } = await restore('none');
  assert.deepEqual(messages, [`${CLASS}error getting snapshot snap from api server: volumesnapshots.snapshot.storage.k8s.io "snap" not found`]);
  assert.equal(plugin.provisionCalls.length, 0);
  assert.equal(fake.successfulWrites({ kind: 'PersistentVolumeClaim' }).length, 0);
  assert.ok(provisioner.isBackingOff('default/data'), 'retried after the normal backoff, not in a hot loop');
});

const refusals: { name: string; snapshot: SnapshotOptions; claim?: ClaimOptions; message: string }[] = [
  { name: 'a snapshot being deleted (no restore under way)', snapshot: { deleting: true, finalizers: [] }, message: 'snapshot snap is being deleted' },
  { name: 'a snapshot not bound to a content', snapshot: { unbound: true }, message: 'snapshot snap not bound' },
  { name: 'a snapshot not ready to use', snapshot: { ready: false }, message: 'snapshot snap is not Ready' },
  { name: 'a content without a snapshot handle', snapshot: { handle: null }, message: 'snapshot handle snap is not available' },
  {
    name: 'a content of another driver',
    snapshot: { driver: 'other.example.com' },
    message: 'snapshotcontent snapcontent-snap for snapshot snap is not handled by CSI driver of StorageClass fast',
  },
  {
    name: 'a claim smaller than the restoreSize',
    snapshot: { restoreSize: '2Gi' },
    message: `requested volume size ${1024 ** 3} is less than the size ${2 * 1024 ** 3} for the source snapshot snap`,
  },
  {
    name: 'another volumeMode without the content\'s permission',
    snapshot: { sourceVolumeMode: 'Block' },
    claim: { volumeMode: 'Filesystem' },
    message: `requested volume default/data modifies the mode of the source volume but does not have permission to do so. ${ANN_ALLOW_VOLUME_MODE_CHANGE} annotation is not present on snapshotcontent snapcontent-snap`,
  },
  {
    name: 'another volumeMode the content forbids',
    snapshot: { sourceVolumeMode: 'Block', contentAnnotations: { [ANN_ALLOW_VOLUME_MODE_CHANGE]: 'false' } },
    message: `requested volume default/data modifies the mode of the source volume but does not have permission to do so. ${ANN_ALLOW_VOLUME_MODE_CHANGE} is set to false on snapshotcontent snapcontent-snap`,
  },
  {
    name: 'another volumeMode with an unparsable permission',
    snapshot: { sourceVolumeMode: 'Block', contentAnnotations: { [ANN_ALLOW_VOLUME_MODE_CHANGE]: 'yes' } },
    message: `requested volume default/data modifies the mode of the source volume but does not have permission to do so. failed to convert ${ANN_ALLOW_VOLUME_MODE_CHANGE} annotation value to boolean with error: strconv.ParseBool: parsing "yes": invalid syntax`,
  },
];

for (const r of refusals) {
  test(`a restore refused: ${r.name}`, async () => {
    const { plugin, messages, fake, provisioner } = await restore(r.snapshot, r.claim);
    assert.deepEqual(messages, [`${CLASS}${r.message}`]);
    assert.equal(plugin.provisionCalls.length, 0, 'nothing made');
    assert.equal(fake.successfulWrites().length, 0, 'nothing written');
    assert.ok(provisioner.isBackingOff('default/data'));
  });
}

test('a content bound to another snapshot is refused', async () => {
  const rest = new FakeSnapshotApi();
  const pair = snapshotPair('snap');
  pair.content.spec.volumeSnapshotRef.uid = 'someone-else';
  rest.add(pair);
  const { fake, plugin, provisioner } = harness({ plugin: new FakeSnapshotPlugin(), rest });
  fake.addClass(storageClass('fast'));
  await provisioner.provisionClaim(fake.addClaim(restoreClaim('data', 'snap')));
  await provisioner.idle();
  assert.deepEqual(fake.eventsFor('default/data').map((e) => e.message), [`${CLASS}snapshotcontent snapcontent-snap for snapshot snap is bound to a different snapshot`]);
  assert.equal(plugin.provisionCalls.length, 0);
});

test('a volumeMode change the content allows is restored', async () => {
  const { plugin } = await restore({ sourceVolumeMode: 'Block', contentAnnotations: { [ANN_ALLOW_VOLUME_MODE_CHANGE]: 'true' } });
  assert.equal(plugin.restoreCalls.length, 1);
  assert.equal(plugin.restoreCalls[0].snapshot.sourceVolumeMode, 'Block');
});

test('a snapshot being deleted that still carries the as-source finalizer is restored (the restore began before the deletion)', async () => {
  const { plugin } = await restore({ deleting: true });
  assert.equal(plugin.restoreCalls.length, 1);
});

test('a content of the in-tree plugin\'s migrated CSI driver is restored by that plugin', async () => {
  const plugin = new FakeSnapshotPlugin(true, 'kubernetes.io/fake-in-tree');
  Object.assign(plugin, { csiDriver: 'fake.csi.example.com' });
  const rest = new FakeSnapshotApi();
  rest.add(snapshotPair('snap', { driver: 'fake.csi.example.com' }));
  const { fake, provisioner } = harness({ plugin, rest });
  fake.addClass(storageClass('fast', { provisioner: 'kubernetes.io/fake-in-tree' }));
  await provisioner.provisionClaim(fake.addClaim(restoreClaim('data', 'snap')));
  await provisioner.idle();
  assert.equal(plugin.restoreCalls.length, 1);
});

test('a plugin without the snapshot capability refuses a restore, naming itself; nothing is read or made', async () => {
  const plugin = new FakePlugin();
  const rest = new FakeSnapshotApi();
  rest.add(snapshotPair('snap'));
  const { fake, provisioner } = harness({ plugin, rest });
  fake.addClass(storageClass('fast'));
  await provisioner.provisionClaim(fake.addClaim(restoreClaim('data', 'snap')));
  await provisioner.idle();
  assert.deepEqual(fake.eventsFor('default/data').map((e) => e.message), [
    'Failed to provision volume with StorageClass "fast": volume plugin example.com/fake does not support snapshot restore: it has no snapshot capability',
  ]);
  assert.equal(plugin.provisionCalls.length, 0);
  assert.deepEqual(rest.paths, []);
  assert.ok(provisioner.isBackingOff('default/data'));
});

test('a controller without REST access for snapshots refuses a restore clearly', async () => {
  const plugin = new FakeSnapshotPlugin();
  const { fake, provisioner } = harness({ plugin });
  fake.addClass(storageClass('fast'));
  await provisioner.provisionClaim(fake.addClaim(restoreClaim('data', 'snap')));
  await provisioner.idle();
  assert.match(fake.eventsFor('default/data')[0].message, /error getting snapshot snap from api server: this controller has no client for snapshot\.storage\.k8s\.io/);
  assert.equal(plugin.provisionCalls.length, 0);
});

test('a claim deleted mid-restore leaves no volume: the cleanup deletes it with the same contentSource on its request', async () => {
  const plugin = new FakeSnapshotPlugin();
  const rest = new FakeSnapshotApi();
  rest.add(snapshotPair('snap'));
  const { fake, provisioner } = harness({ plugin, rest });
  fake.addClass(storageClass('fast'));
  const pvc = fake.addClaim(restoreClaim('data', 'snap'));
  const gate = plugin.holdProvision();
  await provisioner.provisionClaim(pvc);
  await gate.reached;
  const held = fake.claim('default/data')!;
  assert.ok(held.metadata.finalizers?.includes(FINALIZER_PROVISIONING), 'intent recorded before the restore');
  fake.addClaim({ ...held, metadata: { ...held.metadata, deletionTimestamp: '2024-01-01T00:00:00Z' } });
  gate.release();
  await provisioner.idle();
  assert.equal(plugin.volumes.size, 0, 'the restored volume was deleted');
  assert.equal(fake.volume(`pvc-${pvc.metadata.uid}`), undefined, 'no PV');
  assert.equal(plugin.deleteCalls.length, 1);
  assert.deepEqual(plugin.deleteCalls[0].provision?.contentSource, plugin.restoreCalls[0].req.contentSource);
  assert.ok(!(fake.claim('default/data')?.metadata.finalizers ?? []).includes(FINALIZER_PROVISIONING));
});

test('a claim of a populator\'s kind is left alone: no volume, no event, no write, no backoff', async () => {
  const plugin = new FakeSnapshotPlugin();
  const { fake, provisioner } = harness({ plugin });
  fake.addClass(storageClass('fast'));
  const pvc = claim('data');
  pvc.spec.dataSourceRef = { apiGroup: 'populators.example.com', kind: 'Tarball', name: 'seed' };
  const added = fake.addClaim(pvc);
  for (let i = 0; i < 3; i++) {
    await provisioner.provisionClaim(added);
    await provisioner.idle();
  }
  assert.equal(plugin.provisionCalls.length, 0);
  assert.deepEqual(fake.eventsFor('default/data'), []);
  assert.equal(fake.successfulWrites().length, 0);
  assert.equal(provisioner.isBackingOff('default/data'), false);
  assert.deepEqual(fake.enqueuedClaims, [], 'nothing wakes it again (the binder would hand it back, round and round)');
});

test('a dataSourceRef naming a namespace is refused clearly and nothing is made', async () => {
  const plugin = new FakeSnapshotPlugin();
  const { fake, provisioner } = harness({ plugin, rest: new FakeSnapshotApi() });
  fake.addClass(storageClass('fast'));
  const pvc = claim('data');
  pvc.spec.dataSourceRef = { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'snap', namespace: 'other' };
  await provisioner.provisionClaim(fake.addClaim(pvc));
  await provisioner.idle();
  assert.deepEqual(fake.eventsFor('default/data').map((e) => e.message), [
    'Failed to provision volume with StorageClass "fast": dataSourceRef namespace specified but the CrossNamespaceVolumeDataSource feature is disabled: VolumeSnapshot "other/snap" cannot be the source of a claim in namespace "default"',
  ]);
  assert.equal(plugin.provisionCalls.length, 0);
  assert.ok(provisioner.isBackingOff('default/data'));
});

test('a VolumeSnapshot of another API group is refused with external-provisioner\'s message', async () => {
  const plugin = new FakeSnapshotPlugin();
  const { fake, provisioner } = harness({ plugin, rest: new FakeSnapshotApi() });
  fake.addClass(storageClass('fast'));
  const pvc = claim('data');
  pvc.spec.dataSource = { apiGroup: 'snapshot.example.com', kind: 'VolumeSnapshot', name: 'snap' };
  await provisioner.provisionClaim(fake.addClaim(pvc));
  await provisioner.idle();
  assert.match(fake.eventsFor('default/data')[0].message, /the PVC source does not belong to the right APIGroup\. Expected snapshot\.storage\.k8s\.io, Got snapshot\.example\.com/);
  assert.equal(plugin.provisionCalls.length, 0);
});
