import assert from 'node:assert/strict';
import test from 'node:test';
import { ANN_NODE_GONE_CLAIM, ANN_NODE_GONE_CLAIM_TEMPLATE, ANN_NODE_GONE_KEPT } from '@pv-controller/kube/annotations.js';
import { CLAIM, DELAY_MS, NODE, PV, finishClaimDeletion, localVolume, nodeGoneRig, podUsing, recordOf } from './fixtures.js';

const MINUTE = 60_000;

test('a deleted node starts the clock on its volumes, recorded in a Lease of the controller’s own, and nothing is released before the delay', async () => {
  const { fake, sync } = nodeGoneRig();
  fake.remove('Node', NODE);
  assert.deepEqual(fake.enqueuedVolumes, [PV], 'the deletion enqueues the volumes pinned to the node');

  assert.deepEqual(await sync(), { kind: 'requeueAfter', ms: DELAY_MS });
  assert.equal(recordOf(fake)?.spec?.acquireTime, fake.clock.now().toISOString().replace('Z', '000Z'));
  assert.equal(fake.successfulWrites({ kind: 'PersistentVolume' }).length, 0, 'nothing is written on the PV');
  assert.deepEqual(fake.eventReasons(PV), ['ReferencedNodeDeleted']);
  assert.deepEqual(fake.eventReasons(CLAIM), ['ReferencedNodeDeleted']);
  assert.match(fake.eventsFor(CLAIM)[0].message, /node "node-a" was deleted.*5m0s.*claim is re-created/);

  fake.clock.advance(DELAY_MS - MINUTE);
  assert.deepEqual(await sync(), { kind: 'requeueAfter', ms: MINUTE });
  assert.equal(fake.claim(CLAIM)?.metadata.uid, 'claim-uid-1');
  assert.equal(fake.successfulWrites({ kind: 'PersistentVolumeClaim' }).length, 0);
});

test('after the delay the claim is re-created for a new node and the PV is removed, its data left on the node', async () => {
  const { fake, sync } = nodeGoneRig();
  fake.remove('Node', NODE);
  await sync();
  fake.clock.advance(DELAY_MS);

  assert.deepEqual(await sync(), { kind: 'requeueAfter', ms: 15_000 }, 'the claim waits for pvc-protection');
  assert.ok(fake.claim(CLAIM)?.metadata.deletionTimestamp);
  assert.ok(recordOf(fake)?.metadata.annotations?.[ANN_NODE_GONE_CLAIM_TEMPLATE], 'the claim to re-create is recorded first');
  assert.equal(fake.volume(PV)?.metadata.annotations?.[ANN_NODE_GONE_CLAIM], 'ns/data', 'the reclaimer is told to keep out');
  assert.ok(fake.reads.some((r) => r.kind === 'Node' && r.key === NODE), 'the absence is confirmed live');

  await finishClaimDeletion(fake);
  assert.deepEqual(await sync(), { kind: 'done' });
  const claim = fake.claim(CLAIM);
  assert.ok(claim && claim.metadata.uid !== 'claim-uid-1');
  assert.deepEqual(claim.metadata.labels, { app: 'db' });
  assert.deepEqual(claim.metadata.annotations, { team: 'storage' }, 'binding and selected-node annotations dropped');
  assert.equal(claim.spec.volumeName, undefined);
  assert.equal(claim.status?.phase, 'Pending');
  assert.equal(fake.volume(PV), undefined, 'the PV and its finalizers are gone');
  assert.equal(recordOf(fake), undefined, 'the record is removed');
  assert.deepEqual(fake.eventReasons(CLAIM), ['ReferencedNodeDeleted', 'NodeGoneClaimRecreated']);
  assert.match(fake.eventsFor(CLAIM)[1].message, /volume pvc-1111 was on node "node-a", gone for 5m0s/);
  assert.deepEqual(fake.eventReasons(PV), ['ReferencedNodeDeleted', 'NodeGoneVolumeDeleted']);
  assert.match(fake.eventsFor(PV)[1].message, /node "node-a" has been gone for 5m0s; its backing data stays on that node's disk/);
});

test('a node that comes back before the delay removes the record and nothing is released', async () => {
  const { fake, sync } = nodeGoneRig();
  fake.remove('Node', NODE);
  await sync();
  fake.addNode(NODE);
  assert.deepEqual(await sync(), { kind: 'done' });
  assert.equal(recordOf(fake), undefined);
  assert.deepEqual(fake.eventReasons(PV), ['ReferencedNodeDeleted', 'NodeGoneNodeReturned']);

  fake.clock.advance(2 * DELAY_MS);
  assert.deepEqual(await sync(), { kind: 'done' });
  assert.equal(fake.claim(CLAIM)?.metadata.uid, 'claim-uid-1');
  assert.ok(fake.volume(PV));
});

test('a node the cache has not yet seen come back is found by the live read and nothing is released', async () => {
  const { fake, sync } = nodeGoneRig();
  fake.remove('Node', NODE);
  await sync();
  fake.pauseCache('Node');
  fake.addNode(NODE);
  fake.clock.advance(DELAY_MS);
  assert.deepEqual(await sync(), { kind: 'done' });
  assert.equal(fake.claim(CLAIM)?.metadata.deletionTimestamp, undefined);
  assert.equal(recordOf(fake), undefined);
});

test('a Retain volume of a gone node is kept with its claim, marked, and said once', async () => {
  const { fake, sync } = nodeGoneRig('Retain');
  fake.remove('Node', NODE);
  await sync();
  assert.match(fake.eventsFor(PV)[0].message, /kept \(reclaim policy Retain\)/);
  fake.clock.advance(DELAY_MS);
  assert.deepEqual(await sync(), { kind: 'done' });
  assert.deepEqual(await sync(), { kind: 'done' });
  assert.ok(recordOf(fake)?.metadata.annotations?.[ANN_NODE_GONE_KEPT]);
  assert.equal(fake.claim(CLAIM)?.metadata.deletionTimestamp, undefined);
  assert.deepEqual(fake.eventReasons(PV), ['ReferencedNodeDeleted', 'NodeGoneVolumeKept']);
  assert.deepEqual(fake.eventReasons(CLAIM), ['ReferencedNodeDeleted', 'NodeGoneVolumeKept']);
  assert.match(fake.eventsFor(CLAIM)[1].message, /gone for 5m0s.*reclaim policy is Retain.*may be recovered/);
});

test('a claim a pod still uses waits, says so on the claim and the PV, and is released once the pod is gone', async () => {
  const { fake, sync } = nodeGoneRig();
  fake.addPod(podUsing('data'));
  fake.remove('Node', NODE);
  await sync();
  fake.clock.advance(DELAY_MS);
  assert.deepEqual(await sync(), { kind: 'requeueAfter', ms: 15_000 });
  assert.equal(fake.claim(CLAIM)?.metadata.deletionTimestamp, undefined);
  assert.equal(recordOf(fake)?.metadata.annotations?.[ANN_NODE_GONE_CLAIM_TEMPLATE], undefined);
  assert.match(fake.eventsFor(CLAIM).at(-1)!.message, /once no pod uses it \(used by db-0\)/);
  assert.equal(fake.eventReasons(PV).at(-1), 'NodeGoneClaimInUse');

  fake.remove('Pod', 'ns/db-0');
  await sync();
  assert.ok(fake.claim(CLAIM)?.metadata.deletionTimestamp);
});

test('a restarted controller keeps the clock: it neither forgets the deletion nor restarts the delay', async () => {
  const { fake, sync, restart } = nodeGoneRig();
  fake.remove('Node', NODE);
  await sync();
  fake.clock.advance(4 * MINUTE);
  restart();
  assert.deepEqual(await sync(), { kind: 'requeueAfter', ms: MINUTE });
  fake.clock.advance(MINUTE);
  await sync();
  assert.ok(fake.claim(CLAIM)?.metadata.deletionTimestamp);

  // Restarted between the claim's deletion and its re-creation: the PV's record finishes it.
  restart();
  await finishClaimDeletion(fake);
  assert.deepEqual(await sync(), { kind: 'done' });
  assert.deepEqual(fake.claim(CLAIM)?.metadata.labels, { app: 'db' });
  assert.equal(fake.volume(PV), undefined);
});

test('a volume whose node was never seen deleted is left alone, however long the node is absent', async () => {
  const { fake, sync } = nodeGoneRig('Delete', { node: false });
  fake.clock.advance(10 * DELAY_MS);
  assert.deepEqual(await sync(), { kind: 'done' });
  assert.equal(fake.successfulWrites().length, 0);
});

test('a volume made for the node after it was deleted is left alone', async () => {
  const { fake, sync } = nodeGoneRig('Delete', { bound: false });
  fake.remove('PersistentVolume', PV);
  fake.remove('Node', NODE);
  fake.clock.advance(1000);
  fake.addVolume(localVolume('Delete'));
  fake.clock.advance(DELAY_MS);
  assert.deepEqual(await sync(), { kind: 'done' });
  assert.equal(recordOf(fake), undefined);
});

test('an unbound Delete volume of a gone node is removed after the delay', async () => {
  const { fake, sync } = nodeGoneRig('Delete', { bound: false });
  fake.remove('Node', NODE);
  await sync();
  fake.clock.advance(DELAY_MS);
  assert.deepEqual(await sync(), { kind: 'done' });
  assert.equal(fake.volume(PV), undefined);
  assert.equal(fake.successfulWrites({ kind: 'PersistentVolumeClaim' }).length, 0);
});
