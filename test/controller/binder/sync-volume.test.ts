import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER, ANN_PROVISIONED_BY } from '@pv-controller/kube/annotations.js';
import { syncVolume } from '../../../src/controller/binder/index.js';
import type { ReclaimFacts } from '../../../src/controller/binder/hooks.js';
import { harness, pv, pvc } from './fixtures.js';

const BOUND = { [ANN_BIND_COMPLETED]: 'yes', [ANN_BOUND_BY_CONTROLLER]: 'yes' };
const BY_CONTROLLER = { [ANN_BOUND_BY_CONTROLLER]: 'yes' };

async function sync(h: ReturnType<typeof harness>, name = 'v') {
  return syncVolume(h.fake.ctx, h.index, h.fake.ctx.volumes.get(name)!, h.hooks);
}

test('a volume without claimRef, or reserved by name only, becomes Available', async () => {
  const h = harness();
  h.fake.addVolume(pv('v', '1Gi', { phase: 'Pending' }));
  const c = h.fake.addClaim(pvc('c', '1Gi'));
  h.fake.addVolume(pv('r', '1Gi', { phase: 'Pending', claim: c, claimNameOnly: true }));
  await sync(h);
  await sync(h, 'r');
  assert.equal(h.fake.volume('v')!.status?.phase, 'Available');
  assert.equal(h.fake.volume('r')!.status?.phase, 'Available');
  await sync(h);
  assert.equal(h.fake.successfulWrites().length, 2, 'no write when the phase is already right');
});

test('a volume whose claim is gone is Released and handed to the reclaim hook', async () => {
  const reclaimed: string[] = [];
  const h = harness({
    reclaimVolume: async (v: PersistentVolume, facts?: ReclaimFacts) => (reclaimed.push(`${v.metadata.name}:${v.status?.phase}:${facts?.claimConfirmedGone === true}`), { kind: 'done' }),
  });
  const c = pvc('c', '1Gi');
  c.metadata.uid = 'deleted-uid';
  h.fake.addVolume(pv('v', '1Gi', { claim: c, phase: 'Bound' }));
  await sync(h);
  assert.equal(h.fake.volume('v')!.status?.phase, 'Released');
  assert.deepEqual(reclaimed, ['v:Released:true'], 'the hook learns the claim was found gone by a live read');
  await sync(h);
  assert.deepEqual(reclaimed, ['v:Released:true', 'v:Released:false'], 'a Released volume with no cached claim is not re-read: no fact to pass');
});

test('a volume whose claim the watch saw deleted (that uid) is released without a live read, and the hook is told', async () => {
  const facts: Array<ReclaimFacts | undefined> = [];
  const h = harness({ reclaimVolume: async (_v: PersistentVolume, f?: ReclaimFacts) => (facts.push(f), { kind: 'done' }) });
  const c = pvc('c', '1Gi');
  c.metadata.uid = 'deleted-uid';
  h.fake.addVolume(pv('v', '1Gi', { claim: c, phase: 'Bound' }));
  const claims = h.fake.ctx.claims as { wasDeleted?: (key: string, uid: string) => boolean };
  claims.wasDeleted = (key, uid) => key === 'default/c' && uid === 'deleted-uid';
  await sync(h);
  assert.equal(h.fake.volume('v')!.status?.phase, 'Released');
  assert.deepEqual(h.fake.reads.filter((r) => r.kind === 'PersistentVolumeClaim'), [], 'no GET: the deletion was observed');
  assert.deepEqual(facts, [{ claimConfirmedGone: true }]);
});

test('a volume whose claim is missing from the cache but present live is not released', async () => {
  const h = harness();
  const c = h.fake.addClaim(pvc('c', '1Gi', { annotations: BOUND, volumeName: 'v', phase: 'Bound' }));
  h.fake.addVolume(pv('v', '1Gi', { claim: c, phase: 'Bound' }));
  h.fake.dropCached('PersistentVolumeClaim', 'default/c');
  await sync(h);
  assert.equal(h.fake.volume('v')!.status?.phase, 'Bound');
  assert.equal(h.fake.successfulWrites().length, 0);
  assert.ok(h.fake.reads.some((r) => r.kind === 'PersistentVolumeClaim' && r.key === 'default/c'));
});

test('a cached claim with another uid is confirmed live before the volume is released', async () => {
  const h = harness();
  const c = h.fake.addClaim(pvc('c', '1Gi', { annotations: BOUND, volumeName: 'v', phase: 'Bound' }));
  h.fake.addVolume(pv('v', '1Gi', { claim: c, phase: 'Bound' }));
  // The cache still holds an older incarnation of default/c.
  h.fake.setCached('PersistentVolumeClaim', { ...structuredClone(c), metadata: { ...structuredClone(c.metadata), uid: 'older', resourceVersion: '1' } });
  await sync(h);
  assert.equal(h.fake.volume('v')!.status?.phase, 'Bound');
  // A live claim with another uid really is a different claim: released.
  const h2 = harness();
  const old = pvc('c', '1Gi');
  old.metadata.uid = 'gone-uid';
  h2.fake.addClaim(pvc('c', '1Gi'));
  h2.fake.addVolume(pv('v', '1Gi', { claim: old, phase: 'Bound' }));
  await sync(h2);
  assert.equal(h2.fake.volume('v')!.status?.phase, 'Released');
});

test('Released and Failed volumes are never overwritten by the claim-missing branch', async () => {
  for (const phase of ['Released', 'Failed']) {
    const calls: string[] = [];
    const h = harness({ reclaimVolume: async (v: PersistentVolume) => (calls.push(v.status?.phase ?? ''), { kind: 'done' }) });
    const c = pvc('c', '1Gi');
    c.metadata.uid = 'deleted-uid';
    const vol = pv('v', '1Gi', { claim: c, phase });
    vol.status = { phase, message: 'keep me' };
    h.fake.addVolume(vol);
    await sync(h);
    assert.deepEqual(h.fake.volume('v')!.status, { phase, message: 'keep me' });
    assert.deepEqual(calls, [phase]);
    assert.equal(h.fake.successfulWrites().length, 0);
    assert.equal(h.fake.reads.length, 0, 'no live GET once the volume is Released/Failed');
  }
});

test('a volume pointing at a claim that has not bound yet enqueues the claim and writes nothing', async () => {
  const h = harness();
  const c = h.fake.addClaim(pvc('c', '1Gi'));
  h.fake.addVolume(pv('v', '1Gi', { claim: c, phase: 'Available' }));
  await sync(h);
  assert.deepEqual(h.fake.enqueuedClaims, ['default/c']);
  assert.equal(h.fake.successfulWrites().length, 0);
});

test('a volume and a claim of different volumeModes get VolumeMismatch on both', async () => {
  const h = harness();
  const c = h.fake.addClaim(pvc('c', '1Gi', { volumeMode: 'Block' }));
  h.fake.addVolume(pv('v', '1Gi', { claim: c }));
  await sync(h);
  assert.deepEqual(h.fake.eventReasons('v'), ['VolumeMismatch']);
  assert.deepEqual(h.fake.eventReasons('default/c'), ['VolumeMismatch']);
  assert.deepEqual(h.fake.enqueuedClaims, []);
});

test('a volume whose claim points back at it becomes Bound', async () => {
  const h = harness();
  const c = h.fake.addClaim(pvc('c', '1Gi', { annotations: BOUND, volumeName: 'v', phase: 'Bound' }));
  h.fake.addVolume(pv('v', '1Gi', { claim: c, phase: 'Available' }));
  await sync(h);
  assert.equal(h.fake.volume('v')!.status?.phase, 'Bound');
});

test('a volume whose claim names it but is not Bound yet leaves the phase to the claim sync (no racing write)', async () => {
  const h = harness();
  // A provisioned volume: the provisioner wrote the claim side first, the claim's phase is not Bound yet.
  const c = h.fake.addClaim(pvc('c', '1Gi', { annotations: BOUND, volumeName: 'v', phase: 'Pending' }));
  h.fake.addVolume(pv('v', '1Gi', { claim: c, phase: 'Pending' }));
  await sync(h);
  assert.deepEqual(h.fake.enqueuedClaims, ['default/c']);
  assert.equal(h.fake.successfulWrites().length, 0);
  assert.equal(h.fake.volume('v')!.status?.phase, 'Pending');
});

test('a controller-bound volume whose claim is bound elsewhere is unbound to Available', async () => {
  const h = harness();
  const c = h.fake.addClaim(pvc('c', '1Gi', { annotations: BOUND, volumeName: 'winner', phase: 'Bound' }));
  h.fake.addVolume(pv('v', '1Gi', { claim: c, phase: 'Bound', annotations: BY_CONTROLLER }));
  await sync(h);
  const vol = h.fake.volume('v')!;
  assert.equal(vol.spec.claimRef, undefined);
  assert.equal(vol.metadata.annotations, undefined);
  assert.equal(vol.status?.phase, 'Available');
});

test('a user-pre-bound volume whose claim is bound elsewhere keeps the claim name and loses the uid', async () => {
  const h = harness();
  const c = h.fake.addClaim(pvc('c', '1Gi', { annotations: BOUND, volumeName: 'winner', phase: 'Bound' }));
  h.fake.addVolume(pv('v', '1Gi', { claim: c, phase: 'Bound' }));
  await sync(h);
  const vol = h.fake.volume('v')!;
  assert.equal(vol.spec.claimRef?.name, 'c');
  assert.equal(vol.spec.claimRef?.uid, '');
  assert.equal(vol.status?.phase, 'Available');
});

test('a provisioned Delete volume whose claim is bound elsewhere is Released for deletion, not unbound', async () => {
  const reclaimed: string[] = [];
  const h = harness({ reclaimVolume: async (v: PersistentVolume) => (reclaimed.push(v.metadata.name ?? ''), { kind: 'done' }) });
  const c = h.fake.addClaim(pvc('c', '1Gi', { annotations: BOUND, volumeName: 'winner', phase: 'Bound' }));
  h.fake.addVolume(
    pv('v', '1Gi', { claim: c, phase: 'Bound', policy: 'Delete', annotations: { ...BY_CONTROLLER, [ANN_PROVISIONED_BY]: 'pv-controller.io/host-path' } }),
  );
  await sync(h);
  const vol = h.fake.volume('v')!;
  assert.equal(vol.status?.phase, 'Released');
  assert.equal(vol.spec.claimRef?.uid, c.metadata.uid);
  assert.deepEqual(reclaimed, ['v']);
});

test('a stale cached claim that seems bound elsewhere is re-read live before the volume is unbound', async () => {
  const h = harness();
  const c = h.fake.addClaim(pvc('c', '1Gi', { annotations: BOUND, volumeName: 'v', phase: 'Bound' }));
  h.fake.addVolume(pv('v', '1Gi', { claim: c, phase: 'Bound', annotations: BY_CONTROLLER }));
  const stale = structuredClone(c);
  stale.spec.volumeName = 'elsewhere';
  h.fake.setCached('PersistentVolumeClaim', stale);
  await sync(h);
  assert.equal(h.fake.volume('v')!.spec.claimRef?.uid, c.metadata.uid);
  assert.equal(h.fake.successfulWrites().length, 0);
});
