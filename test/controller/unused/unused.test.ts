import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolumeClaim, PersistentVolumeClaimCondition, Pod } from '@pv-controller/kube/types.js';
import type { ModuleInstance } from '../../../src/controller/runtime/module.js';
import { parseControllerOptions } from '../../../src/controller/options.js';
import {
  PodClaimIndex,
  isPodTerminated,
  pvcUnusedModule,
  unusedConditionOf,
  withUnusedCondition,
} from '../../../src/controller/unused/index.js';
import { FakeCluster } from '../../helpers/fake-context.js';
import { fakeChanges, testModuleEnv } from '../../helpers/module-env.js';

const T0 = '2024-01-01T00:00:00Z';

function claim(name: string, o: { phase?: string; deleting?: boolean; ownerPodUid?: string; conditions?: PersistentVolumeClaimCondition[] } = {}): PersistentVolumeClaim {
  const pvc: PersistentVolumeClaim = {
    metadata: { name, namespace: 'ns' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeName: `pv-${name}` },
    status: { phase: o.phase ?? 'Bound', capacity: { storage: '1Gi' }, ...(o.conditions ? { conditions: o.conditions } : {}) },
  };
  if (o.deleting) pvc.metadata.deletionTimestamp = T0;
  if (o.ownerPodUid) pvc.metadata.ownerReferences = [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: o.ownerPodUid, controller: true }];
  return pvc;
}

interface PodOpts { phase?: string; nodeName?: string; ephemeral?: boolean; uid?: string; deleting?: boolean; containers?: Record<string, unknown>[] }

function pod(name: string, claimName: string, o: PodOpts = {}): Pod {
  const volume = o.ephemeral ? { name: claimName, ephemeral: { volumeClaimTemplate: {} } } : { name: 'data', persistentVolumeClaim: { claimName } };
  return {
    metadata: { name, namespace: 'ns', ...(o.uid ? { uid: o.uid } : {}), ...(o.deleting ? { deletionTimestamp: T0 } : {}) },
    spec: { ...(o.nodeName ? { nodeName: o.nodeName } : {}), volumes: [volume] },
    status: { phase: o.phase ?? 'Running', ...(o.containers ? { containerStatuses: o.containers } : {}) },
  };
}

/** The module wired to a fake cluster as the controller wires it: pod cache changes feed its index. */
function setup(): { fake: FakeCluster; instance: ModuleInstance; sync: (key: string) => Promise<unknown>; results: string[] } {
  const fake = new FakeCluster();
  const results: string[] = [];
  const unusedConditions = { unusedConditionSync: (result: string) => void results.push(result) };
  const instance = pvcUnusedModule().create(fake.ctx, testModuleEnv(parseControllerOptions({}), { changes: fakeChanges(fake), unusedConditions }));
  return { fake, instance, sync: (key) => instance.syncClaim!(fake.ctx.claims.get(key)!), results };
}

test('a Bound claim no pod references gets Unused=True, NoPodsUsingPVC, with the time it was seen', async () => {
  const { fake, sync } = setup();
  fake.addClaim(claim('c'));
  assert.deepEqual(await sync('ns/c'), { kind: 'done' });
  const c = unusedConditionOf(fake.claim('ns/c')!);
  assert.deepEqual(c, { type: 'Unused', status: 'True', lastTransitionTime: T0, reason: 'NoPodsUsingPVC', message: 'No pods are currently referencing this PVC' });
  assert.equal(fake.successfulWrites({ verb: 'updateStatus' }).length, 1);
});

test('the same usage again writes nothing and keeps the transition time', async () => {
  const { fake, sync } = setup();
  fake.addClaim(claim('c'));
  await sync('ns/c');
  fake.clock.advance(60_000);
  await sync('ns/c');
  assert.equal(fake.successfulWrites({ verb: 'updateStatus' }).length, 1);
  assert.equal(unusedConditionOf(fake.claim('ns/c')!)?.lastTransitionTime, T0);
});

test('a Pending claim and a claim being deleted are left without the condition', async () => {
  const { fake, sync } = setup();
  fake.addClaim(claim('pending', { phase: 'Pending' }));
  fake.addClaim(claim('going', { deleting: true }));
  await sync('ns/pending');
  await sync('ns/going');
  assert.equal(fake.successfulWrites().length, 0);
});

test('a pod starting flips it to False/PodUsingPVC, and its end back to True, each with its own later time', async () => {
  const { fake, sync } = setup();
  fake.addClaim(claim('c'));
  await sync('ns/c');
  fake.clock.advance(5_000);
  fake.addPod(pod('app', 'c', { nodeName: 'n1' }));
  await sync('ns/c');
  const used = unusedConditionOf(fake.claim('ns/c')!);
  assert.deepEqual([used?.status, used?.reason, used?.message, used?.lastTransitionTime], ['False', 'PodUsingPVC', 'A pod is currently referencing this PVC', '2024-01-01T00:00:05Z']);
  fake.clock.advance(5_000);
  fake.addPod(pod('app', 'c', { nodeName: 'n1', phase: 'Succeeded' }));
  await sync('ns/c');
  const unused = unusedConditionOf(fake.claim('ns/c')!);
  assert.deepEqual([unused?.status, unused?.reason, unused?.lastTransitionTime], ['True', 'NoPodsUsingPVC', '2024-01-01T00:00:10Z']);
  assert.equal(fake.successfulWrites({ verb: 'updateStatus' }).length, 3);
});

test('an unscheduled Pending pod keeps a claim in use; Succeeded and Failed pods do not', async () => {
  const { fake, sync } = setup();
  fake.addClaim(claim('pending-pod'));
  fake.addPod(pod('waiting', 'pending-pod', { phase: 'Pending' }));
  fake.addClaim(claim('done-pods'));
  fake.addPod(pod('ok', 'done-pods', { phase: 'Succeeded', nodeName: 'n1' }));
  fake.addPod(pod('bad', 'done-pods', { phase: 'Failed', nodeName: 'n1' }));
  await sync('ns/pending-pod');
  await sync('ns/done-pods');
  assert.equal(unusedConditionOf(fake.claim('ns/pending-pod')!)?.status, 'False');
  assert.equal(unusedConditionOf(fake.claim('ns/done-pods')!)?.status, 'True');
});

test('a pod being deleted stops counting once none of its containers runs (upstream IsPodTerminated)', () => {
  const running = { name: 'a', state: { running: { startedAt: T0 } } };
  const stopped = { name: 'a', state: { terminated: { exitCode: 0 } } };
  assert.equal(isPodTerminated(pod('p', 'c', { deleting: true })), true, 'no container status at all');
  assert.equal(isPodTerminated(pod('p', 'c', { deleting: true, containers: [stopped] })), true);
  assert.equal(isPodTerminated(pod('p', 'c', { deleting: true, containers: [stopped, running] })), false);
  assert.equal(isPodTerminated(pod('p', 'c', { containers: [stopped] })), false, 'not being deleted, phase Running');
  assert.equal(isPodTerminated(pod('p', 'c', { phase: 'Failed', containers: [running] })), true);
});

test('a generic ephemeral volume keeps its claim in use only when its pod owns the claim', async () => {
  const { fake, sync } = setup();
  fake.addClaim(claim('app-scratch', { ownerPodUid: 'uid-app' }));
  fake.addClaim(claim('impostor-scratch', { ownerPodUid: 'uid-someone-else' }));
  fake.addPod(pod('app', 'scratch', { ephemeral: true, uid: 'uid-app', nodeName: 'n1' }));
  fake.addPod(pod('impostor', 'scratch', { ephemeral: true, uid: 'uid-impostor', nodeName: 'n1' }));
  await sync('ns/app-scratch');
  await sync('ns/impostor-scratch');
  assert.equal(unusedConditionOf(fake.claim('ns/app-scratch')!)?.status, 'False');
  assert.equal(unusedConditionOf(fake.claim('ns/impostor-scratch')!)?.status, 'True');
});

test('a pod change re-queues the claims it names, generic ephemeral ones included', () => {
  const { fake } = setup();
  fake.addPod(pod('app', 'scratch', { ephemeral: true, uid: 'uid-app' }));
  fake.addPod(pod('db', 'data'));
  assert.ok(fake.enqueuedClaims.includes('ns/app-scratch'));
  assert.ok(fake.enqueuedClaims.includes('ns/data'));
});

test('the other conditions stay where they were; the first Unused one is replaced in place (upstream setUnusedCondition)', () => {
  const resizing = { type: 'Resizing', status: 'True', lastTransitionTime: T0 };
  const old = { type: 'Unused', status: 'False', lastTransitionTime: T0, reason: 'PodUsingPVC', message: 'x' };
  const next = withUnusedCondition(claim('c', { conditions: [resizing, old] }), false, '2024-02-01T00:00:00Z');
  assert.deepEqual(next?.status?.conditions?.map((c) => `${c.type}=${c.status}@${c.lastTransitionTime}`), ['Resizing=True@' + T0, 'Unused=True@2024-02-01T00:00:00Z']);
  const appended = withUnusedCondition(claim('c', { conditions: [resizing] }), true, '2024-02-01T00:00:00Z');
  assert.deepEqual(appended?.status?.conditions?.map((c) => `${c.type}=${c.status}`), ['Resizing=True', 'Unused=False']);
});

test('an Unknown status stays while the claim is in use and becomes True once it is not (upstream updateUnusedCondition)', () => {
  const unknown = { type: 'Unused', status: 'Unknown', lastTransitionTime: T0 };
  assert.equal(withUnusedCondition(claim('c', { conditions: [unknown] }), true, '2024-02-01T00:00:00Z'), undefined);
  assert.equal(unusedConditionOf(withUnusedCondition(claim('c', { conditions: [unknown] }), false, '2024-02-01T00:00:00Z')!)?.status, 'True');
});

test('a write on a stale copy meets a conflict and is decided again (retry), leaving the claim as it was', async () => {
  const { fake, sync, results } = setup();
  fake.addClaim(claim('c'));
  fake.setCached('PersistentVolumeClaim', { ...fake.claim('ns/c')!, metadata: { ...fake.claim('ns/c')!.metadata, resourceVersion: '1' } });
  const result = (await sync('ns/c')) as { kind: string; reason?: string };
  assert.equal(result.kind, 'retry');
  assert.equal(result.reason, 'conflict');
  assert.equal(unusedConditionOf(fake.claim('ns/c')!), undefined);
  fake.resumeCache();
  fake.setCached('PersistentVolumeClaim', fake.claim('ns/c')!);
  assert.deepEqual(await sync('ns/c'), { kind: 'done' });
  assert.deepEqual(results, ['error', 'success'], 'each write attempt counted by how it ended');
});

test('the index holds each claim\'s pods only, and forgets a pod once it is gone or renamed its claims', () => {
  const index = new PodClaimIndex();
  index.update('ns/a', pod('a', 'one'));
  index.update('ns/b', pod('b', 'two'));
  assert.deepEqual(index.podsOf('ns/one'), ['ns/a']);
  index.update('ns/a', pod('a', 'two'));
  assert.deepEqual(index.podsOf('ns/one'), []);
  assert.deepEqual(index.podsOf('ns/two').sort(), ['ns/a', 'ns/b']);
  index.update('ns/b', undefined);
  assert.deepEqual(index.podsOf('ns/two'), ['ns/a']);
  assert.equal(index.size(), 1);
});
