import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import {
  ANN_BETA_STORAGE_CLASS,
  ANN_BETA_STORAGE_PROVISIONER,
  ANN_BIND_COMPLETED,
  ANN_BOUND_BY_CONTROLLER,
  ANN_SELECTED_NODE,
  ANN_STORAGE_PROVISIONER,
} from '@pv-controller/kube/annotations.js';
import { syncClaim } from '../../../src/controller/binder/index.js';
import { harness, pv, pvc, storageClass, ROX, RWO } from './fixtures.js';

const KEY = 'default/c';

async function sync(h: ReturnType<typeof harness>, key = KEY) {
  const claim = h.fake.ctx.claims.get(key);
  assert.ok(claim, `claim ${key} in cache`);
  return syncClaim(h.fake.ctx, h.index, claim, h.hooks);
}

test('an unbound claim is bound to the best volume with four writes, and a second sync writes nothing', async () => {
  const h = harness();
  h.fake.addVolume(pv('big', '10Gi'));
  h.fake.addVolume(pv('fit', '2Gi'));
  const c = h.fake.addClaim(pvc('c', '1Gi'));
  assert.deepEqual(await sync(h), { kind: 'done' });
  const vol = h.fake.volume('fit')!;
  assert.equal(vol.spec.claimRef?.uid, c.metadata.uid);
  assert.equal(vol.status?.phase, 'Bound');
  assert.equal(vol.metadata.annotations?.[ANN_BOUND_BY_CONTROLLER], 'yes');
  const bound = h.fake.claim(KEY)!;
  assert.equal(bound.spec.volumeName, 'fit');
  assert.equal(bound.metadata.annotations?.[ANN_BIND_COMPLETED], 'yes');
  assert.equal(bound.metadata.annotations?.[ANN_BOUND_BY_CONTROLLER], 'yes');
  assert.deepEqual(bound.status, { phase: 'Bound', accessModes: [RWO], capacity: { storage: '2Gi' } });
  assert.deepEqual(
    h.fake.successfulWrites().map((w) => `${w.kind}/${w.verb}`),
    ['PersistentVolume/update', 'PersistentVolume/updateStatus', 'PersistentVolumeClaim/update', 'PersistentVolumeClaim/updateStatus'],
  );
  assert.equal(h.fake.volume('big')!.spec.claimRef, undefined);
  const writes = h.fake.writes.length;
  assert.deepEqual(await sync(h), { kind: 'done' });
  assert.equal(h.fake.writes.length, writes, 'no write when nothing changed');
});

test('a claim naming a volume binds it: bound-by-controller on the volume only', async () => {
  const h = harness();
  h.fake.addVolume(pv('named', '5Gi'));
  h.fake.addVolume(pv('smaller', '1Gi'));
  h.fake.addClaim(pvc('c', '1Gi', { volumeName: 'named', selector: { matchLabels: { never: 'matches' } } }));
  assert.deepEqual(await sync(h), { kind: 'done' });
  assert.equal(h.fake.volume('named')!.metadata.annotations?.[ANN_BOUND_BY_CONTROLLER], 'yes');
  const bound = h.fake.claim(KEY)!;
  assert.equal(bound.metadata.annotations?.[ANN_BOUND_BY_CONTROLLER], undefined);
  assert.equal(bound.metadata.annotations?.[ANN_BIND_COMPLETED], 'yes');
  assert.equal(bound.status?.phase, 'Bound');
});

test('a claim naming a volume with the wrong access mode stays Pending with a VolumeMismatch event', async () => {
  const h = harness();
  h.fake.addVolume(pv('named', '5Gi', { modes: [ROX] }));
  h.fake.addClaim(pvc('c', '1Gi', { volumeName: 'named', modes: [RWO] }));
  await sync(h);
  const e = h.fake.eventsFor(KEY);
  assert.equal(e.length, 1);
  assert.equal(e[0].reason, 'VolumeMismatch');
  assert.equal(e[0].type, 'Warning');
  assert.equal(e[0].message, 'Cannot bind to requested volume "named": incompatible accessMode');
  assert.equal(h.fake.claim(KEY)!.status?.phase, 'Pending');
  assert.equal(h.fake.volume('named')!.spec.claimRef, undefined);
});

test('a claim naming a too small or other-class volume gets the matching VolumeMismatch reason', async () => {
  for (const [vol, reason] of [
    [pv('named', '1Mi'), 'requested PV is too small'],
    [pv('named', '5Gi', { cls: 'gold' }), 'storageClassName does not match'],
    [pv('named', '5Gi', { volumeMode: 'Block' }), 'incompatible volumeMode'],
  ] as const) {
    const h = harness();
    h.fake.addVolume(vol);
    h.fake.addClaim(pvc('c', '1Gi', { volumeName: 'named' }));
    await sync(h);
    assert.equal(h.fake.eventsFor(KEY)[0]?.message, `Cannot bind to requested volume "named": ${reason}`);
  }
});

test('a claim naming a missing volume stays Pending without writes', async () => {
  const h = harness();
  h.fake.addClaim(pvc('c', '1Gi', { volumeName: 'nowhere' }));
  assert.deepEqual(await sync(h), { kind: 'done' });
  assert.equal(h.fake.successfulWrites().length, 0);
});

test('a claim naming a volume bound to another claim stays Pending with a FailedBinding warning', async () => {
  const h = harness();
  const other = h.fake.addClaim(pvc('other', '1Gi', { volumeName: 'named' }));
  h.fake.addVolume(pv('named', '5Gi', { claim: other, phase: 'Bound' }));
  h.fake.addClaim(pvc('c', '1Gi', { volumeName: 'named' }));
  await sync(h);
  assert.deepEqual(h.fake.eventReasons(KEY), ['FailedBinding']);
  assert.equal(h.fake.eventsFor(KEY)[0].message, 'volume "named" already bound to a different claim.');
  assert.equal(h.fake.volume('named')!.spec.claimRef?.name, 'other');
});

test('a volume pre-bound by name gets the claim uid and no bound-by-controller; the claim gets only bind-completed', async () => {
  const h = harness();
  const c = h.fake.addClaim(pvc('c', '1Gi'));
  h.fake.addVolume(pv('reserved', '5Gi', { claim: c, claimNameOnly: true }));
  h.fake.addVolume(pv('smaller', '1Gi'));
  await sync(h);
  const vol = h.fake.volume('reserved')!;
  assert.equal(vol.spec.claimRef?.uid, c.metadata.uid);
  assert.equal(vol.metadata.annotations?.[ANN_BOUND_BY_CONTROLLER], undefined);
  const bound = h.fake.claim(KEY)!;
  assert.equal(bound.spec.volumeName, 'reserved');
  assert.equal(bound.metadata.annotations?.[ANN_BOUND_BY_CONTROLLER], 'yes');
  assert.equal(bound.metadata.annotations?.[ANN_BIND_COMPLETED], 'yes');
});

test('a claim naming a volume pre-bound to it by the user keeps the user-set pointers unmarked', async () => {
  const h = harness();
  const c = h.fake.addClaim(pvc('c', '1Gi', { volumeName: 'reserved' }));
  h.fake.addVolume(pv('reserved', '5Gi', { claim: c, claimNameOnly: true }));
  await sync(h);
  assert.equal(h.fake.volume('reserved')!.metadata.annotations?.[ANN_BOUND_BY_CONTROLLER], undefined);
  const bound = h.fake.claim(KEY)!;
  assert.equal(bound.metadata.annotations?.[ANN_BOUND_BY_CONTROLLER], undefined);
  assert.equal(bound.metadata.annotations?.[ANN_BIND_COMPLETED], 'yes');
});

test('a nil-class claim with no matching volume gets the newest default class', async () => {
  const h = harness();
  h.fake.addClass(storageClass('old-default', { isDefault: true, created: '2023-01-01T00:00:00Z' }));
  h.fake.addClass(storageClass('new-default', { isDefault: true, created: '2023-06-01T00:00:00Z' }));
  h.fake.addClass(storageClass('plain'));
  h.fake.addClaim(pvc('c', '1Gi', { cls: null }));
  assert.deepEqual(await sync(h), { kind: 'done' });
  assert.equal(h.fake.claim(KEY)!.spec.storageClassName, 'new-default');
  assert.equal(h.fake.successfulWrites().length, 1);
});

test('a nil-class claim binds an existing class-less volume instead of taking the default class', async () => {
  const h = harness();
  h.fake.addClass(storageClass('std', { isDefault: true }));
  h.fake.addVolume(pv('classless', '1Gi'));
  h.fake.addClaim(pvc('c', '1Gi', { cls: null }));
  await sync(h);
  assert.equal(h.fake.claim(KEY)!.spec.storageClassName, undefined);
  assert.equal(h.fake.claim(KEY)!.spec.volumeName, 'classless');
});

test('claims with an explicit "" class or a beta class annotation never get the default class', async () => {
  for (const claim of [pvc('c', '1Gi', { cls: '' }), pvc('c', '1Gi', { cls: null, annotations: { [ANN_BETA_STORAGE_CLASS]: '' } })]) {
    const h = harness();
    h.fake.addClass(storageClass('std', { isDefault: true }));
    h.fake.addClaim(claim);
    await sync(h);
    const after = h.fake.claim(KEY)!;
    assert.equal(after.spec.storageClassName ?? '', '');
    assert.deepEqual(h.fake.eventReasons(KEY), ['FailedBinding']);
    assert.equal(h.fake.eventsFor(KEY)[0].message, 'no persistent volumes available for this claim and no storage class is set');
  }
});

test('WaitForFirstConsumer: no binding and a WaitForFirstConsumer event until a node is selected', async () => {
  const h = harness();
  h.fake.addClass(storageClass('local', { mode: 'WaitForFirstConsumer', provisioner: 'kubernetes.io/no-provisioner' }));
  h.fake.addVolume(pv('free', '1Gi', { cls: 'local' }));
  h.fake.addClaim(pvc('c', '1Gi', { cls: 'local' }));
  await sync(h);
  assert.deepEqual(h.fake.eventReasons(KEY), ['WaitForFirstConsumer']);
  assert.match(h.fake.eventsFor(KEY)[0].message ?? '', /^waiting for first consumer to be created before binding \(a scheduler sets annotation volume\.kubernetes\.io\/selected-node .*kubectl annotate pvc -n default \S+ volume\.kubernetes\.io\/selected-node=<node>\)$/);
  assert.equal(h.fake.volume('free')!.spec.claimRef, undefined);
  assert.equal(h.fake.successfulWrites().length, 0);
});

test('WaitForFirstConsumer names the unscheduled pods that wait for the claim', async () => {
  const h = harness();
  h.fake.addClass(storageClass('local', { mode: 'WaitForFirstConsumer' }));
  h.fake.addClaim(pvc('c', '1Gi', { cls: 'local' }));
  h.fake.addPod({ metadata: { name: 'p1', namespace: 'default' }, spec: { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'c' } }] } });
  await sync(h);
  assert.deepEqual(h.fake.eventReasons(KEY), ['WaitForPodScheduled']);
  assert.equal(h.fake.eventsFor(KEY)[0].message, 'waiting for pod p1 to be scheduled');
});

test('WaitForFirstConsumer with a selected node goes to the provisioner, not to a free volume', async () => {
  const provisioned: string[] = [];
  const h = harness({
    provisionClaim: async (claim: PersistentVolumeClaim) => (provisioned.push(claim.metadata.name ?? ''), { kind: 'done' }),
  });
  h.fake.addClass(storageClass('local', { mode: 'WaitForFirstConsumer' }));
  h.fake.addVolume(pv('free', '1Gi', { cls: 'local' }));
  h.fake.addClaim(pvc('c', '1Gi', { cls: 'local', annotations: { [ANN_SELECTED_NODE]: 'node-a' } }));
  await sync(h);
  assert.deepEqual(provisioned, ['c']);
  assert.equal(h.fake.volume('free')!.spec.claimRef, undefined);
});

test('an unserved external provisioner gets both provisioner annotations and an ExternalProvisioning event', async () => {
  const h = harness();
  h.fake.addClass(storageClass('fast', { provisioner: 'csi.example.com' }));
  h.fake.addClaim(pvc('c', '1Gi', { cls: 'fast' }));
  await sync(h);
  const after = h.fake.claim(KEY)!;
  assert.equal(after.metadata.annotations?.[ANN_STORAGE_PROVISIONER], 'csi.example.com');
  assert.equal(after.metadata.annotations?.[ANN_BETA_STORAGE_PROVISIONER], 'csi.example.com');
  assert.deepEqual(h.fake.eventReasons(KEY), ['ExternalProvisioning']);
  assert.match(h.fake.eventsFor(KEY)[0].message, /external provisioner 'csi.example.com'/);
  // The annotation is written once; later syncs only repeat the event.
  await sync(h);
  assert.equal(h.fake.successfulWrites().length, 1);
});

test('a migrated in-tree class nobody here serves goes to its CSI driver under the driver\'s name, as kube-controller-manager 1.37 does', async () => {
  // A process that provisions (it has the hook) but serves neither kubernetes.io/aws-ebs nor ebs.csi.aws.com.
  const h = harness({ provisionClaim: async () => ({ kind: 'done' as const }), servesProvisioner: (name: string) => name === 'pv-controller.io/host-path' });
  h.fake.addClass(storageClass('gp', { provisioner: 'kubernetes.io/aws-ebs' }));
  h.fake.addClaim(pvc('c', '1Gi', { cls: 'gp' }));
  await sync(h);
  const after = h.fake.claim(KEY)!;
  assert.equal(after.metadata.annotations?.[ANN_STORAGE_PROVISIONER], 'ebs.csi.aws.com');
  assert.equal(after.metadata.annotations?.[ANN_BETA_STORAGE_PROVISIONER], 'ebs.csi.aws.com');
  assert.deepEqual(h.fake.eventReasons(KEY), ['ExternalProvisioning']);
  assert.match(h.fake.eventsFor(KEY)[0].message, /external provisioner 'ebs.csi.aws.com'/);
});

test('a served provisioner receives the claim through the hook, an unknown kubernetes.io one fails', async () => {
  const seen: string[] = [];
  const h = harness({
    provisionClaim: async (c: PersistentVolumeClaim) => (seen.push(c.metadata.name ?? ''), { kind: 'requeueAfter', ms: 5 }),
    servesProvisioner: (name: string) => name === 'pv-controller.io/host-path',
  });
  h.fake.addClass(storageClass('hp', { provisioner: 'pv-controller.io/host-path' }));
  h.fake.addClass(storageClass('none', { provisioner: 'kubernetes.io/no-provisioner' }));
  h.fake.addClaim(pvc('c', '1Gi', { cls: 'hp' }));
  h.fake.addClaim(pvc('d', '1Gi', { cls: 'none' }));
  h.fake.addClaim(pvc('e', '1Gi', { cls: 'missing' }));
  assert.deepEqual(await sync(h), { kind: 'requeueAfter', ms: 5 });
  assert.deepEqual(seen, ['c']);
  await sync(h, 'default/d');
  assert.equal(h.fake.eventsFor('default/d')[0].message, 'no volume plugin matched name: kubernetes.io/no-provisioner');
  await sync(h, 'default/e');
  assert.equal(h.fake.eventsFor('default/e')[0].message, 'storageclass.storage.k8s.io "missing" not found');
  assert.equal(h.fake.successfulWrites().length, 0);
});

test('a VolumeMismatch sync that loses a 409 race emits no event and retries', async () => {
  const h = harness();
  h.fake.addVolume(pv('named', '5Gi', { modes: [ROX] }));
  h.fake.addClaim(pvc('c', '1Gi', { volumeName: 'named', modes: [RWO], phase: 'Bound' }));
  const stale = h.fake.ctx.claims.get(KEY)!;
  await h.fake.ctx.api.updateClaim({ ...structuredClone(stale), metadata: { ...structuredClone(stale.metadata), labels: { touched: 'yes' } } });
  h.fake.setCached('PersistentVolumeClaim', stale);
  assert.deepEqual(await syncClaim(h.fake.ctx, h.index, stale, h.hooks), { kind: 'retry', reason: 'conflict' });
  assert.deepEqual(h.fake.events, []);
});

test('an unbound claim whose provisioning operation is running is left alone, even with a matching volume', async () => {
  let busy = true;
  const h = harness({ claimBusy: (key) => busy && key === KEY });
  h.fake.addVolume(pv('fit', '2Gi'));
  h.fake.addClaim(pvc('c', '1Gi'));
  assert.deepEqual(await sync(h), { kind: 'done' });
  assert.equal(h.fake.successfulWrites().length, 0, 'the operation owns the claim: no write, so no 409 race with it');
  busy = false;
  await sync(h);
  assert.equal(h.fake.claim(KEY)!.spec.volumeName, 'fit', 'once the operation ended the claim binds as usual');
});
