import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER } from '@pv-controller/kube/annotations.js';
import { syncClaim } from '../../../src/controller/binder/index.js';
import type { WriteMatcher } from '../../helpers/fake-context.js';
import { harness, pv, pvc, RWO } from './fixtures.js';

const KEY = 'default/c';
const BOUND = { [ANN_BIND_COMPLETED]: 'yes', [ANN_BOUND_BY_CONTROLLER]: 'yes' };

async function sync(h: ReturnType<typeof harness>) {
  return syncClaim(h.fake.ctx, h.index, h.fake.ctx.claims.get(KEY)!, h.hooks);
}

const BIND_STEPS: WriteMatcher[] = [
  { kind: 'PersistentVolume', verb: 'update' },
  { kind: 'PersistentVolume', verb: 'updateStatus' },
  { kind: 'PersistentVolumeClaim', verb: 'update' },
  { kind: 'PersistentVolumeClaim', verb: 'updateStatus' },
];

for (let done = 1; done <= 4; done++) {
  test(`a bind interrupted after write ${done} of 4 is finished by the next sync with only the missing writes`, async () => {
    const h = harness();
    h.fake.addVolume(pv('small', '1Gi'));
    h.fake.addVolume(pv('spare', '2Gi'));
    const c = h.fake.addClaim(pvc('c', '1Gi'));
    if (done < 4) h.fake.failNextWrites(BIND_STEPS[done], 1);
    const first = await sync(h);
    assert.equal(first.kind, done < 4 ? 'retry' : 'done');
    assert.equal(h.fake.successfulWrites().length, done);
    assert.deepEqual(await sync(h), { kind: 'done' });
    assert.equal(h.fake.successfulWrites().length, 4, 'each of the four writes happened exactly once');
    const vol = h.fake.volume('small')!;
    assert.equal(vol.spec.claimRef?.uid, c.metadata.uid);
    assert.equal(vol.status?.phase, 'Bound');
    const claim = h.fake.claim(KEY)!;
    assert.equal(claim.spec.volumeName, 'small');
    assert.equal(claim.status?.phase, 'Bound');
    assert.equal(h.fake.volume('spare')!.spec.claimRef, undefined);
  });
}

test('a bound claim whose volumeName was cleared becomes Lost once, with one ClaimLost event', async () => {
  const h = harness();
  h.fake.addClaim(pvc('c', '1Gi', { annotations: BOUND, phase: 'Bound' }));
  await sync(h);
  await sync(h);
  const claim = h.fake.claim(KEY)!;
  assert.equal(claim.status?.phase, 'Lost');
  assert.deepEqual(h.fake.eventReasons(KEY), ['ClaimLost']);
  assert.equal(h.fake.eventsFor(KEY)[0].message, 'Bound claim has lost reference to PersistentVolume. Data on the volume is lost!');
  assert.equal(h.fake.successfulWrites().length, 1);
});

test('a bound claim whose volume disappeared becomes Lost (checked live) and is re-bound when it reappears unbound', async () => {
  const h = harness();
  const seeded = pvc('c', '1Gi', { annotations: BOUND, volumeName: 'gone', phase: 'Bound' });
  seeded.status = { phase: 'Bound', accessModes: [RWO], capacity: { storage: '1Gi' } };
  const c = h.fake.addClaim(seeded);
  await sync(h);
  let claim = h.fake.claim(KEY)!;
  assert.equal(claim.status?.phase, 'Lost');
  assert.deepEqual(claim.status, { phase: 'Lost' });
  assert.equal(h.fake.eventsFor(KEY)[0].message, 'Bound claim has lost its PersistentVolume. Data on the volume is lost!');
  assert.ok(h.fake.reads.some((r) => r.kind === 'PersistentVolume' && r.key === 'gone'), 'volume looked up live');
  h.fake.addVolume(pv('gone', '1Gi'));
  await sync(h);
  claim = h.fake.claim(KEY)!;
  assert.equal(claim.status?.phase, 'Bound');
  const vol = h.fake.volume('gone')!;
  assert.equal(vol.spec.claimRef?.uid, c.metadata.uid);
  assert.equal(vol.metadata.annotations?.[ANN_BOUND_BY_CONTROLLER], 'yes');
  assert.deepEqual(h.fake.eventReasons(KEY), ['ClaimLost']);
});

test('a Lost claim whose volume reappears pointing at it by uid is Bound again', async () => {
  const h = harness();
  const c = h.fake.addClaim(pvc('c', '1Gi', { annotations: BOUND, volumeName: 'v', phase: 'Lost' }));
  h.fake.addVolume(pv('v', '1Gi', { claim: c, phase: 'Released' }));
  await sync(h);
  assert.equal(h.fake.claim(KEY)!.status?.phase, 'Bound');
  assert.equal(h.fake.volume('v')!.status?.phase, 'Bound');
});

test('a bound claim whose volume points at another claim is Lost with ClaimMisbound', async () => {
  for (const nameOnly of [false, true]) {
    const h = harness();
    const other = h.fake.addClaim(pvc('other', '1Gi'));
    const c = h.fake.addClaim(pvc('c', '1Gi', { annotations: BOUND, volumeName: 'v', phase: 'Bound' }));
    // Same-name claim with another uid, or a name-only reservation: both are "elsewhere".
    const vol = nameOnly ? pv('v', '1Gi', { claim: c, claimNameOnly: true }) : pv('v', '1Gi', { claim: other, phase: 'Bound' });
    h.fake.addVolume(vol);
    await sync(h);
    assert.equal(h.fake.claim(KEY)!.status?.phase, 'Lost');
    assert.deepEqual(h.fake.eventReasons(KEY), ['ClaimMisbound']);
    assert.equal(h.fake.eventsFor(KEY)[0].message, 'Two claims are bound to the same volume, this one is bound incorrectly');
  }
});

test('a correctly bound pair is left alone: no writes, no events', async () => {
  const h = harness();
  const c = h.fake.addClaim(pvc('c', '1Gi', { annotations: BOUND, volumeName: 'v' }));
  h.fake.addVolume(pv('v', '1Gi', { claim: c, phase: 'Bound', annotations: { [ANN_BOUND_BY_CONTROLLER]: 'yes' } }));
  await sync(h);
  const once = h.fake.successfulWrites().length;
  assert.equal(once, 1, 'only the claim status (Pending ⇒ Bound) was written');
  await sync(h);
  assert.equal(h.fake.successfulWrites().length, once);
  assert.deepEqual(h.fake.events, []);
});
