import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ControllerContext } from '../../../src/controller/runtime/context.js';
import { ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER } from '@pv-controller/kube/annotations.js';
import { claimRefFor } from '@pv-controller/kube/volume-helpers.js';
import { syncClaim } from '../../../src/controller/binder/index.js';
import { harness, pv, pvc, RWO } from './fixtures.js';

const KEY = 'default/c';

function withFence(ctx: ControllerContext, fence: number | undefined): ControllerContext {
  return { ...ctx, claimsFenceResourceVersion: () => fence };
}

function rvOf(obj: { metadata: { resourceVersion?: string } }): number {
  return Number(obj.metadata.resourceVersion);
}

test('a claim written after the fence is bound from the cache without a live GET', async () => {
  const h = harness();
  h.fake.addVolume(pv('a', '2Gi'));
  const c = h.fake.addClaim(pvc('c', '1Gi'));
  const ctx = withFence(h.fake.ctx, rvOf(c) - 1);
  assert.deepEqual(await syncClaim(ctx, h.index, ctx.claims.get(KEY)!, h.hooks), { kind: 'done' });
  assert.equal(h.fake.reads.filter((r) => r.kind === 'PersistentVolumeClaim').length, 0, 'no live GET of the claim');
  assert.equal(h.fake.claim(KEY)!.spec.volumeName, 'a');
  assert.equal(h.fake.successfulWrites().length, 4);
});

test('a claim copy at or below the fence is re-read live before a volume is taken', async () => {
  for (const fenceOffset of [0, 5]) {
    const h = harness();
    h.fake.addVolume(pv('a', '2Gi'));
    const c = h.fake.addClaim(pvc('c', '1Gi'));
    const ctx = withFence(h.fake.ctx, rvOf(c) + fenceOffset);
    assert.deepEqual(await syncClaim(ctx, h.index, ctx.claims.get(KEY)!, h.hooks), { kind: 'done' });
    assert.deepEqual(h.fake.reads.filter((r) => r.kind === 'PersistentVolumeClaim').map((r) => r.key), [KEY]);
  }
});

test('an unknown fence keeps the live GET, so a cache behind the server still never binds twice', async () => {
  const h = harness();
  h.fake.addVolume(pv('small', '1Gi'));
  const a = h.fake.addVolume(pv('a', '2Gi'));
  const c = h.fake.addClaim(pvc('c', '1Gi'));
  h.fake.pauseCache();
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
  for (const fence of [undefined, -1, rvOf(c)]) {
    const ctx = withFence(h.fake.ctx, fence);
    const result = await syncClaim(ctx, h.index, ctx.claims.get(KEY)!, h.hooks);
    assert.equal(result.kind, 'retry', `fence ${String(fence)}`);
    assert.equal(h.fake.successfulWrites().length, before, `no write on stale data with fence ${String(fence)}`);
    assert.equal(h.fake.volume('small')!.spec.claimRef, undefined);
  }
});
