import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import type { PersistentVolume, PersistentVolumeClaim, Pod } from '@pv-controller/kube/types.js';
import { FINALIZER_PV_PROTECTION, FINALIZER_PVC_PROTECTION } from '@pv-controller/kube/annotations.js';
import { claimKeysOfPod, syncClaimProtection, syncVolumeProtection, type ProtectionDeps } from '../../../src/controller/protection/index.js';
import { FakeCluster } from '../../helpers/fake-context.js';

const DELETED = '2024-01-01T00:00:00Z';

function setup(): { fake: FakeCluster; deps: ProtectionDeps } {
  const fake = new FakeCluster();
  return { fake, deps: { ctx: fake.ctx, logger: pino({ level: 'silent' }) } };
}

function claim(name: string, o: { deleting?: boolean; finalizers?: string[]; ownerPodUid?: string } = {}): PersistentVolumeClaim {
  const pvc: PersistentVolumeClaim = {
    metadata: { name, namespace: 'ns', finalizers: o.finalizers ?? [FINALIZER_PVC_PROTECTION] },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  };
  if (o.deleting) pvc.metadata.deletionTimestamp = DELETED;
  if (o.ownerPodUid) pvc.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: o.ownerPodUid, controller: true }];
  return pvc;
}

function pod(name: string, claimName: string, o: { phase?: string; nodeName?: string | null; ephemeral?: boolean; uid?: string } = {}): Pod {
  const volume = o.ephemeral ? { name: claimName, ephemeral: { volumeClaimTemplate: {} } } : { name: 'data', persistentVolumeClaim: { claimName } };
  return {
    metadata: { name, namespace: 'ns', ...(o.uid ? { uid: o.uid } : {}) },
    spec: { ...(o.nodeName === null ? {} : { nodeName: o.nodeName ?? 'node-1' }), volumes: [volume] },
    status: { phase: o.phase ?? 'Running' },
  };
}

function volume(name: string, phase: string, deleting: boolean, finalizers = [FINALIZER_PV_PROTECTION]): PersistentVolume {
  return {
    metadata: { name, finalizers, ...(deleting ? { deletionTimestamp: DELETED } : {}) },
    spec: { capacity: { storage: '1Gi' }, hostPath: { path: `/tmp/${name}` } },
    status: { phase },
  };
}

test('a deleted claim no pod uses loses pvc-protection and goes away', async () => {
  const { fake, deps } = setup();
  fake.addClaim(claim('c', { deleting: true }));
  fake.addPod(pod('other', 'unrelated'));
  assert.deepEqual(await syncClaimProtection(deps, fake.ctx.claims.get('ns/c')!), { kind: 'done' });
  assert.equal(fake.claim('ns/c'), undefined);
});

test('a deleted claim keeps pvc-protection while a scheduled running pod uses it', async () => {
  const { fake, deps } = setup();
  fake.addClaim(claim('c', { deleting: true }));
  fake.addPod(pod('app', 'c'));
  await syncClaimProtection(deps, fake.ctx.claims.get('ns/c')!);
  assert.deepEqual(fake.claim('ns/c')!.metadata.finalizers, [FINALIZER_PVC_PROTECTION]);
  assert.equal(fake.successfulWrites().length, 0);
});

test('terminated and unscheduled pods do not hold a claim', async () => {
  const { fake, deps } = setup();
  fake.addClaim(claim('c', { deleting: true }));
  fake.addPod(pod('finished', 'c', { phase: 'Succeeded' }));
  fake.addPod(pod('crashed', 'c', { phase: 'Failed' }));
  fake.addPod(pod('pending', 'c', { phase: 'Pending', nodeName: null }));
  await syncClaimProtection(deps, fake.ctx.claims.get('ns/c')!);
  assert.equal(fake.claim('ns/c'), undefined);
});

test('a pod the cache has not seen yet is found by the live list, and the claim is kept', async () => {
  const { fake, deps } = setup();
  fake.addClaim(claim('c', { deleting: true }));
  fake.pauseCache('Pod');
  fake.addPod(pod('new', 'c'));
  await syncClaimProtection(deps, fake.ctx.claims.get('ns/c')!);
  assert.ok(fake.claim('ns/c'));
});

test('a generic ephemeral volume holds the claim only when its pod owns the claim', async () => {
  const { fake, deps } = setup();
  fake.addClaim(claim('p-scratch', { deleting: true, ownerPodUid: 'pod-uid' }));
  fake.addClaim(claim('q-scratch', { deleting: true, ownerPodUid: 'someone-else' }));
  fake.addPod(pod('p', 'scratch', { ephemeral: true, uid: 'pod-uid' }));
  fake.addPod(pod('q', 'scratch', { ephemeral: true, uid: 'q-uid' }));
  await syncClaimProtection(deps, fake.ctx.claims.get('ns/p-scratch')!);
  await syncClaimProtection(deps, fake.ctx.claims.get('ns/q-scratch')!);
  assert.ok(fake.claim('ns/p-scratch'));
  assert.equal(fake.claim('ns/q-scratch'), undefined);
});

test('a live claim without the finalizer gets it; one that has it is not written', async () => {
  const { fake, deps } = setup();
  fake.addClaim(claim('bare', { finalizers: [] }));
  fake.addClaim(claim('ok'));
  await syncClaimProtection(deps, fake.ctx.claims.get('ns/bare')!);
  await syncClaimProtection(deps, fake.ctx.claims.get('ns/ok')!);
  assert.deepEqual(fake.claim('ns/bare')!.metadata.finalizers, [FINALIZER_PVC_PROTECTION]);
  assert.equal(fake.successfulWrites().length, 1);
});

test('other finalizers stay when pvc-protection is removed', async () => {
  const { fake, deps } = setup();
  fake.addClaim(claim('c', { deleting: true, finalizers: ['example.com/keep', FINALIZER_PVC_PROTECTION] }));
  await syncClaimProtection(deps, fake.ctx.claims.get('ns/c')!);
  assert.deepEqual(fake.claim('ns/c')!.metadata.finalizers, ['example.com/keep']);
});

test('a stale claim copy loses the write (409) and asks for a retry', async () => {
  const { fake, deps } = setup();
  fake.addClaim(claim('c', { deleting: true }));
  const stale = fake.ctx.claims.get('ns/c')!;
  fake.pauseCache();
  const touched = structuredClone(stale);
  touched.metadata.labels = { x: 'y' };
  await fake.ctx.api.updateClaim(touched);
  assert.deepEqual(await syncClaimProtection(deps, stale), { kind: 'retry', reason: 'conflict' });
  assert.ok(fake.claim('ns/c'));
});

test('a deleted PV keeps pv-protection while Bound and loses it once it is not', async () => {
  const { fake, deps } = setup();
  fake.addVolume(volume('bound', 'Bound', true));
  fake.addVolume(volume('released', 'Released', true));
  fake.addVolume(volume('available', 'Available', true, [FINALIZER_PV_PROTECTION, 'kubernetes.io/pv-controller']));
  for (const name of ['bound', 'released', 'available']) await syncVolumeProtection(deps, fake.ctx.volumes.get(name)!);
  assert.deepEqual(fake.volume('bound')!.metadata.finalizers, [FINALIZER_PV_PROTECTION]);
  assert.equal(fake.volume('released'), undefined);
  assert.deepEqual(
    fake.volume('available')!.metadata.finalizers,
    [FINALIZER_PV_PROTECTION, 'kubernetes.io/pv-controller'],
    'a PV being deleted that still carries the reclaimer\'s finalizer is left to the reclaimer, which removes both in one write',
  );
});

test('a live PV without pv-protection gets it', async () => {
  const { fake, deps } = setup();
  fake.addVolume(volume('v', 'Available', false, []));
  await syncVolumeProtection(deps, fake.ctx.volumes.get('v')!);
  assert.deepEqual(fake.volume('v')!.metadata.finalizers, [FINALIZER_PV_PROTECTION]);
});

test('claimKeysOfPod names every claim a pod refers to, ephemeral ones included', () => {
  const p = pod('p', 'data-claim');
  p.spec!.volumes!.push({ name: 'scratch', ephemeral: {} }, { name: 'cfg', configMap: { name: 'x' } });
  assert.deepEqual(claimKeysOfPod(p), ['ns/data-claim', 'ns/p-scratch']);
});
