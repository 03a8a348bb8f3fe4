import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolume, PersistentVolumeAccessMode, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER } from '@pv-controller/kube/annotations.js';
import { claimRefFor, volumeCapacityBytes, claimRequestBytes, storageClassOfVolume, accessModesContain, volumeModeOf } from '@pv-controller/kube/volume-helpers.js';
import { labelSelectorMatches } from '@pv-controller/kube/selectors.js';
import { syncClaim, syncVolume } from '../../../src/controller/binder/index.js';
import { capturingLogger, harness, pv, pvc, ROX, RWO, RWX } from './fixtures.js';

const KEY = 'default/c';

test('the same claim synced twice at once binds exactly one volume; the loser gets a 409 and retries silently', async () => {
  const log = capturingLogger();
  const h = harness({ logger: log.logger });
  h.fake.addVolume(pv('a', '1Gi'));
  h.fake.addVolume(pv('b', '2Gi'));
  h.fake.addClaim(pvc('c', '1Gi'));
  const claim = h.fake.ctx.claims.get(KEY)!;
  const hold = h.fake.holdNextWrite({ kind: 'PersistentVolume', verb: 'update' });
  const first = syncClaim(h.fake.ctx, h.index, claim, h.hooks);
  await hold.reached;
  const second = await syncClaim(h.fake.ctx, h.index, claim, h.hooks);
  hold.release();
  assert.deepEqual(second, { kind: 'done' });
  assert.deepEqual(await first, { kind: 'retry', reason: 'conflict' });
  assert.equal(h.fake.writes.filter((w) => w.outcome === 'conflict').length, 1);
  assert.equal(h.fake.claim(KEY)!.spec.volumeName, 'a');
  assert.equal(h.fake.volume('a')!.status?.phase, 'Bound');
  assert.equal(h.fake.volume('b')!.spec.claimRef, undefined);
  assert.deepEqual(h.fake.events, []);
  assert.deepEqual(log.lines.filter((l) => l.level >= 50), [], 'nothing logged at error level');
  // The retry decides again on fresh data and has nothing left to do.
  const writes = h.fake.successfulWrites().length;
  assert.deepEqual(await syncClaim(h.fake.ctx, h.index, h.fake.ctx.claims.get(KEY)!, h.hooks), { kind: 'done' });
  assert.equal(h.fake.successfulWrites().length, writes);
});

test('two claims synced at once never race for one volume: each takes its own, with no 409', async () => {
  const h = harness();
  h.fake.addVolume(pv('a', '1Gi'));
  h.fake.addVolume(pv('b', '1Gi'));
  h.fake.addClaim(pvc('c1', '1Gi'));
  h.fake.addClaim(pvc('c2', '1Gi'));
  const hold = h.fake.holdNextWrite({ kind: 'PersistentVolume', verb: 'update' });
  const first = syncClaim(h.fake.ctx, h.index, h.fake.ctx.claims.get('default/c1')!, h.hooks);
  await hold.reached;
  // c1's bind is mid-flight; the index still shows its volume as Available.
  const second = syncClaim(h.fake.ctx, h.index, h.fake.ctx.claims.get('default/c2')!, h.hooks);
  hold.release();
  assert.deepEqual(await Promise.all([first, second]), [{ kind: 'done' }, { kind: 'done' }]);
  assert.equal(h.fake.writes.filter((w) => w.outcome === 'conflict').length, 0);
  const names = [h.fake.claim('default/c1')!.spec.volumeName, h.fake.claim('default/c2')!.spec.volumeName].sort();
  assert.deepEqual(names, ['a', 'b']);
});

test('a cache behind the server never binds a claim a second time', async () => {
  const h = harness();
  h.fake.addVolume(pv('small', '1Gi'));
  const a = h.fake.addVolume(pv('a', '2Gi'));
  const c = h.fake.addClaim(pvc('c', '1Gi'));
  h.fake.pauseCache();
  // Meanwhile on the server (another controller instance, or our own earlier writes): c ⇔ a.
  const api = h.fake.ctx.api;
  const boundA = await api.updateVolume({ ...structuredClone(a), spec: { ...structuredClone(a.spec), claimRef: claimRefFor(c) } });
  await api.updateVolumeStatus({ ...structuredClone(boundA), status: { phase: 'Bound' } });
  const boundC = await api.updateClaim({
    ...structuredClone(c),
    metadata: { ...structuredClone(c.metadata), annotations: { [ANN_BIND_COMPLETED]: 'yes', [ANN_BOUND_BY_CONTROLLER]: 'yes' } },
    spec: { ...structuredClone(c.spec), volumeName: 'a' },
  });
  await api.updateClaimStatus({ ...structuredClone(boundC), status: { phase: 'Bound', accessModes: [RWO], capacity: { storage: '2Gi' } } });
  const before = h.fake.successfulWrites().length;

  const result = await syncClaim(h.fake.ctx, h.index, h.fake.ctx.claims.get(KEY)!, h.hooks);
  assert.equal(result.kind, 'retry');
  assert.equal(h.fake.successfulWrites().length, before, 'no write succeeded on stale data');
  assert.equal(h.fake.volume('small')!.spec.claimRef, undefined);
  assert.equal(h.fake.claim(KEY)!.spec.volumeName, 'a');

  h.fake.resumeCache();
  assert.deepEqual(await syncClaim(h.fake.ctx, h.index, h.fake.ctx.claims.get(KEY)!, h.hooks), { kind: 'done' });
  assert.equal(h.fake.successfulWrites().length, before);
});

/** mulberry32: a small deterministic PRNG so a failing seed can be replayed. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function satisfies(v: PersistentVolume, c: PersistentVolumeClaim): boolean {
  return (
    volumeCapacityBytes(v) >= claimRequestBytes(c) &&
    storageClassOfVolume(v) === (c.spec.storageClassName ?? '') &&
    accessModesContain(v.spec.accessModes, c.spec.accessModes) &&
    volumeModeOf(v) === volumeModeOf(c)
  );
}

const MODE_SETS: PersistentVolumeAccessMode[][] = [[RWO], [ROX], [RWO, ROX], [RWO, ROX, RWX], [RWX]];

for (const seed of [1, 2, 3, 4, 5, 6]) {
  test(`random volumes and claims synced concurrently (seed ${seed}): every bound pair satisfies its claim, no volume is bound twice`, async () => {
    const rnd = prng(seed);
    const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)];
    const h = harness();
    for (let i = 0; i < 30; i++) {
      h.fake.addVolume(
        pv(`pv-${i}`, `${1 + Math.floor(rnd() * 8)}Gi`, {
          modes: pick(MODE_SETS),
          cls: pick(['', 'gold']),
          labels: { tier: pick(['a', 'b']) },
          volumeMode: pick(['Filesystem', 'Block', 'Filesystem']),
        }),
      );
    }
    for (let i = 0; i < 24; i++) {
      h.fake.addClaim(
        pvc(`c-${i}`, `${1 + Math.floor(rnd() * 8)}Gi`, {
          modes: pick(MODE_SETS),
          cls: pick(['', 'gold']),
          volumeMode: pick(['Filesystem', 'Block', 'Filesystem']),
          selector: rnd() < 0.3 ? { matchLabels: { tier: pick(['a', 'b']) } } : undefined,
        }),
      );
    }
    for (let round = 0; round < 30; round++) {
      const claims = h.fake.ctx.claims.list();
      const volumes = h.fake.ctx.volumes.list();
      const results = await Promise.all([
        ...claims.map((c) => syncClaim(h.fake.ctx, h.index, c, h.hooks)),
        ...volumes.map((v) => syncVolume(h.fake.ctx, h.index, v, h.hooks)),
      ]);
      if (results.every((r) => r.kind === 'done')) break;
    }
    const claims = h.fake.serverList<PersistentVolumeClaim>('PersistentVolumeClaim');
    const volumes = new Map(h.fake.serverList<PersistentVolume>('PersistentVolume').map((v) => [v.metadata.name, v]));
    const taken = new Set<string>();
    for (const c of claims) {
      if (!c.spec.volumeName) {
        // Nothing was left unbound that a free volume could have served.
        const free = [...volumes.values()].filter((v) => !v.spec.claimRef && satisfies(v, c) && labelSelectorMatches(c.spec.selector, v.metadata.labels));
        assert.deepEqual(free.map((v) => v.metadata.name), [], `claim ${c.metadata.name} left Pending`);
        continue;
      }
      assert.ok(!taken.has(c.spec.volumeName), `${c.spec.volumeName} bound twice`);
      taken.add(c.spec.volumeName);
      const v = volumes.get(c.spec.volumeName)!;
      assert.equal(v.spec.claimRef?.uid, c.metadata.uid);
      assert.ok(satisfies(v, c), `${c.metadata.name} ⇔ ${v.metadata.name} does not satisfy the claim`);
      assert.ok(labelSelectorMatches(c.spec.selector, v.metadata.labels));
      assert.equal(c.status?.phase, 'Bound');
      assert.equal(v.status?.phase, 'Bound');
    }
    for (const v of volumes.values()) {
      if (v.spec.claimRef) assert.ok(taken.has(v.metadata.name ?? ''), `${v.metadata.name} points at a claim not bound to it`);
    }
    assert.ok(taken.size > 0);
  });
}
