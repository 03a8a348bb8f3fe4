import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ANN_RECLAIM_FAILED_ATTEMPTS,
  ANN_RECLAIM_LAST_ATTEMPT,
  FINALIZER_EXTERNAL_PROVISIONER,
  FINALIZER_PV_CONTROLLER,
  FINALIZER_PV_PROTECTION,
  ANN_NODE_GONE_CLAIM,
} from '@pv-controller/kube/annotations.js';
import { pino } from 'pino';
import { finishDeletion } from '../../../src/controller/reclaimer/delete.js';
import { OperationRunner } from '../../../src/controller/runtime/operations.js';
import type { ReclaimerDeps } from '../../../src/controller/reclaimer/deps.js';
import { PluginError } from '../../../src/plugins/api/errors.js';
import { PluginRegistry } from '../../../src/plugins/registry.js';
import { claim, FAKE_PROVISIONER, INTERVAL, rig, volume } from './fixtures.js';

const attemptsOf = (r: ReturnType<typeof rig>, name = 'v') => r.fake.volume(name)?.metadata.annotations?.[ANN_RECLAIM_FAILED_ATTEMPTS];

test('Retain does nothing: no write, no plugin call, the PV stays Released with its claimRef', async () => {
  const r = rig();
  r.fake.addVolume(volume('v', { policy: 'Retain' }));
  assert.deepEqual(await r.reclaim(), { kind: 'done' });
  assert.equal(r.fake.successfulWrites().length, 0);
  assert.deepEqual(r.plugin.calls, []);
  assert.equal(r.fake.volume('v')!.spec.claimRef?.name, 'c');
});

test('Delete charges the attempt before calling the plugin, then deletes the PV object', async () => {
  const r = rig();
  r.fake.addVolume(volume('v'));
  assert.deepEqual(await r.reclaim(), { kind: 'done' });
  assert.deepEqual(r.plugin.calls, [{ op: 'delete', pv: 'v', backingName: 'kubernetes-dynamic-v', attemptsOnServer: '1' }]);
  assert.equal(r.fake.volume('v'), undefined);
  assert.deepEqual(r.fake.enqueuedVolumes, ['v'], 'the end of the operation enqueues the PV');
});

test('Delete marks the PV deleted, then removes our finalizer and, the PV not being Bound, pv-protection\'s in one write: the PV disappears', async () => {
  const r = rig();
  r.fake.addVolume(volume('a', { provisionedBy: FAKE_PROVISIONER, finalizers: [FINALIZER_PV_CONTROLLER] }));
  r.fake.addVolume(volume('b', { provisionedBy: FAKE_PROVISIONER, finalizers: [FINALIZER_PV_PROTECTION, FINALIZER_PV_CONTROLLER] }));
  await r.reclaim('a');
  await r.reclaim('b');
  assert.equal(r.fake.volume('a'), undefined);
  assert.equal(r.fake.volume('b'), undefined, 'no finalizer is left to hold the deleted PV');
  const bWrites = r.fake.successfulWrites().filter((w) => w.key === 'b').map((w) => w.verb);
  assert.deepEqual(bWrites, ['update', 'update', 'delete', 'update'], 'attempt charged; backing volume recorded gone; delete (marks it); both finalizers off in one write (removes it)');
});

test('our delete also takes external-provisioner\'s finalizer off (the backing volume it guards is gone): the PV disappears', async () => {
  const r = rig();
  r.fake.addVolume(volume('v', { provisionedBy: FAKE_PROVISIONER, finalizers: [FINALIZER_PV_PROTECTION, FINALIZER_EXTERNAL_PROVISIONER, FINALIZER_PV_CONTROLLER] }));
  await r.reclaim('v');
  assert.equal(r.plugin.calls.length, 1);
  assert.equal(r.fake.volume('v'), undefined, 'no finalizer is left to hold the deleted PV');
});

test('finishing a deletion leaves pv-protection on a PV that is Bound', async () => {
  const r = rig();
  const bound = r.fake.addVolume(volume('c', { phase: 'Bound', finalizers: [FINALIZER_PV_PROTECTION, FINALIZER_PV_CONTROLLER] }));
  const deps: ReclaimerDeps = {
    ctx: r.fake.ctx,
    plugins: new PluginRegistry(),
    policy: { maxAttempts: 3, intervalMs: INTERVAL },
    clusterName: 'kubernetes',
    ops: new OperationRunner({ name: 'reclaimer', concurrency: 1 }),
    log: pino({ level: 'silent' }),
    backingDeleted: new Set(),
  };
  await finishDeletion(deps, bound);
  assert.deepEqual(r.fake.volume('c')!.metadata.finalizers, [FINALIZER_PV_PROTECTION]);
  assert.ok(r.fake.volume('c')!.metadata.deletionTimestamp, 'delete was requested');
});

test('a deleter that fails twice then succeeds: attempts counted in annotations, spaced by the interval, then deleted', async () => {
  const r = rig();
  r.plugin.outcomes.push(new PluginError('Transient', 'backend busy', true), new Error('socket hang up'));
  r.fake.addVolume(volume('v'));
  await r.reclaim();
  assert.equal(attemptsOf(r), '1');
  assert.equal(r.fake.volume('v')!.metadata.annotations?.[ANN_RECLAIM_LAST_ATTEMPT], r.fake.clock.now().toISOString());
  assert.equal(r.fake.volume('v')!.status?.phase, 'Released');
  r.fake.clock.advance(INTERVAL / 4);
  assert.deepEqual(await r.reclaim(), { kind: 'requeueAfter', ms: (INTERVAL * 3) / 4 }, 'not before the interval');
  assert.equal(r.plugin.calls.length, 1);
  r.fake.clock.advance((INTERVAL * 3) / 4);
  await r.reclaim();
  assert.equal(attemptsOf(r), '2');
  r.fake.clock.advance(INTERVAL);
  await r.reclaim();
  assert.equal(r.plugin.calls.length, 3);
  assert.equal(r.fake.volume('v'), undefined);
  const warnings = r.fake.eventsFor('v').filter((e) => e.type === 'Warning');
  assert.deepEqual(warnings.map((e) => e.reason), ['VolumeFailedDelete', 'VolumeFailedDelete']);
  assert.match(warnings[0].message, /backend busy \(attempt 1 of 3/);
});

test('a deleter that always fails gets exactly the configured attempts, then the PV is Failed with the error and a Warning', async () => {
  const r = rig({ maxAttempts: 2 });
  for (let i = 0; i < 5; i++) r.plugin.outcomes.push(new Error(`disk error ${i + 1}`));
  r.fake.addVolume(volume('v'));
  for (let i = 0; i < 5; i++) {
    await r.reclaim();
    r.fake.clock.advance(INTERVAL);
  }
  assert.equal(r.plugin.calls.length, 2);
  const pv = r.fake.volume('v')!;
  assert.equal(pv.status?.phase, 'Failed');
  assert.equal(pv.status?.message, 'disk error 2');
  assert.equal(attemptsOf(r), '2');
  const last = r.fake.eventsFor('v').at(-1)!;
  assert.equal(last.reason, 'VolumeFailedDelete');
  assert.equal(last.type, 'Warning');
  assert.match(last.message, /to retry, fix the cause and remove annotations pv-controller\.io\/reclaim-failed-attempts and pv-controller\.io\/reclaim-last-attempt: /);
  assert.match(last.message, /kubectl annotate pv \S+ pv-controller\.io\/reclaim-failed-attempts- pv-controller\.io\/reclaim-last-attempt-\)$/);
});

test('a refusal that is not retryable (unsafe path) fails at once, counted as one attempt', async () => {
  const r = rig();
  r.plugin.outcomes.push(new PluginError('Unsafe', 'refusing path "/etc": not inside any configured root', false));
  r.fake.addVolume(volume('v'));
  await r.reclaim();
  const pv = r.fake.volume('v')!;
  assert.equal(pv.status?.phase, 'Failed');
  assert.match(pv.status?.message ?? '', /refusing path/);
  assert.equal(attemptsOf(r), '1');
  r.fake.clock.advance(INTERVAL * 10);
  await r.reclaim();
  assert.equal(r.plugin.calls.length, 1, 'a Failed PV waits for the operator');
});

test('"in use" is retried without counting: Normal VolumeDelete, never Failed', async () => {
  const r = rig({ maxAttempts: 2 });
  for (let i = 0; i < 4; i++) r.plugin.outcomes.push(new PluginError('InUse', 'volume is attached to node-1', true));
  r.fake.addVolume(volume('v'));
  for (let i = 0; i < 4; i++) {
    await r.reclaim();
    assert.deepEqual(await r.reclaim(), { kind: 'requeueAfter', ms: INTERVAL }, 'the next try still waits an interval');
    r.fake.clock.advance(INTERVAL);
  }
  assert.equal(r.fake.volume('v')!.status?.phase, 'Released');
  assert.equal(attemptsOf(r), '0');
  assert.ok(r.fake.eventsFor('v').every((e) => e.type === 'Normal' && e.reason === 'VolumeDelete'));
  await r.reclaim();
  assert.equal(r.fake.volume('v'), undefined, 'deleted once no longer in use');
});

test('a Failed PV whose attempts annotation was removed goes back to Released and gets a fresh set of attempts', async () => {
  const r = rig();
  const failed = volume('v', { phase: 'Failed', annotations: { [ANN_RECLAIM_LAST_ATTEMPT]: '2023-12-31T00:00:00Z' } });
  failed.status!.message = 'old error';
  r.fake.addVolume(failed);
  r.plugin.outcomes.push(new Error('still broken'));
  await r.reclaim();
  const pv = r.fake.volume('v')!;
  assert.equal(pv.status?.phase, 'Released');
  assert.equal(attemptsOf(r), '1');
  assert.equal(r.plugin.calls.length, 1);
});

test('a Failed PV switched to Retain and its attempts annotation removed is Released again, and nothing is deleted', async () => {
  const r = rig();
  const failed = volume('v', { phase: 'Failed', policy: 'Retain' });
  failed.status!.message = 'delete gave up';
  r.fake.addVolume(failed);
  assert.deepEqual(await r.reclaim(), { kind: 'done' });
  const pv = r.fake.volume('v')!;
  assert.equal(pv.status?.phase, 'Released');
  assert.equal(pv.status?.message ?? '', '');
  assert.deepEqual(r.plugin.calls, []);
  assert.equal(pv.spec.claimRef?.name, 'c', 'the claimRef stays: reuse is the operator\'s step');
});

test('a Failed PV switched to Retain that still has its attempts annotation stays Failed until the annotation is removed', async () => {
  const r = rig();
  r.fake.addVolume(volume('v', { phase: 'Failed', policy: 'Retain', annotations: { [ANN_RECLAIM_FAILED_ATTEMPTS]: '3' } }));
  await r.reclaim();
  assert.equal(r.fake.volume('v')!.status?.phase, 'Failed');
  assert.equal(r.fake.successfulWrites().length, 0);
});

test('a count at the limit without a finished attempt (crash after charging) ends Failed without another plugin call', async () => {
  const r = rig();
  r.fake.addVolume(volume('v', { annotations: { [ANN_RECLAIM_FAILED_ATTEMPTS]: '3', [ANN_RECLAIM_LAST_ATTEMPT]: '2023-01-01T00:00:00Z' } }));
  await r.reclaim();
  assert.deepEqual(r.plugin.calls, []);
  assert.equal(r.fake.volume('v')!.status?.phase, 'Failed');
  assert.match(r.fake.volume('v')!.status?.message ?? '', /3 of 3 reclaim attempts failed/);
});

test('a malformed attempts annotation is treated as exhausted, never as zero', async () => {
  const r = rig();
  r.fake.addVolume(volume('v', { annotations: { [ANN_RECLAIM_FAILED_ATTEMPTS]: 'many' } }));
  await r.reclaim();
  assert.deepEqual(r.plugin.calls, []);
  assert.equal(r.fake.volume('v')!.status?.phase, 'Failed');
});

test('a PV of a provisioner we do not serve is left to that external deleter', async () => {
  const r = rig();
  r.fake.addVolume(volume('v', { provisionedBy: 'example.com/csi-driver' }));
  await r.reclaim();
  assert.deepEqual(r.plugin.calls, []);
  assert.equal(r.fake.successfulWrites().length, 0);
});

test('a PV provisioned under a migrated in-tree name no plugin here serves is left to the CSI driver\'s external deleter, never marked Failed', async () => {
  const r = rig();
  r.fake.addVolume(volume('v', { provisionedBy: 'kubernetes.io/aws-ebs', path: '/elsewhere/v' }));
  await r.reclaim();
  assert.deepEqual(r.plugin.calls, []);
  assert.equal(r.fake.successfulWrites().length, 0);
  assert.equal(r.fake.volume('v')!.status?.phase, 'Released');
});

test('a PV of an in-tree name that never migrated and no plugin here serves still goes Failed', async () => {
  const r = rig();
  r.fake.addVolume(volume('v', { provisionedBy: 'kubernetes.io/glusterfs', path: '/elsewhere/v' }));
  await r.reclaim();
  assert.equal(r.fake.volume('v')!.status?.phase, 'Failed');
});

test('no plugin for the volume: Failed with VolumeFailedDelete after one counted attempt', async () => {
  const r = rig();
  r.fake.addVolume(volume('v', { path: '/elsewhere/v' }));
  await r.reclaim();
  const pv = r.fake.volume('v')!;
  assert.equal(pv.status?.phase, 'Failed');
  assert.equal(pv.status?.message, 'error getting deleter volume plugin for volume "v": no volume plugin matched');
  assert.deepEqual(r.fake.eventReasons('v'), ['VolumeFailedDelete']);
  assert.equal(attemptsOf(r), '1');
});

test('an unknown reclaim policy: Failed and VolumeUnknownReclaimPolicy once, nothing deleted', async () => {
  const r = rig();
  r.fake.addVolume(volume('v', { policy: 'Shred' }));
  await r.reclaim();
  await r.reclaim();
  assert.equal(r.fake.volume('v')!.status?.phase, 'Failed');
  assert.equal(r.fake.volume('v')!.status?.message, 'Volume has unrecognized PersistentVolumeReclaimPolicy');
  assert.deepEqual(r.fake.eventReasons('v'), ['VolumeUnknownReclaimPolicy']);
  assert.deepEqual(r.plugin.calls, []);
});

test('a claim the cache lost but the server still has (same uid, bound to this PV) stops the deletion', async () => {
  const r = rig();
  const c = claim('c');
  c.spec.volumeName = 'v';
  r.fake.addClaim(c);
  r.fake.dropCached('PersistentVolumeClaim', 'default/c');
  r.fake.addVolume(volume('v', { claim: r.fake.claim('default/c')! }));
  await r.reclaim();
  assert.deepEqual(r.plugin.calls, []);
  assert.ok(r.fake.volume('v'));
});

test('a stale PV copy loses the charging write (409) and nothing is called', async () => {
  const r = rig();
  r.fake.addVolume(volume('v'));
  const stale = r.fake.ctx.volumes.get('v')!;
  const newer = structuredClone(stale);
  newer.metadata.labels = { touched: 'yes' };
  await r.fake.ctx.api.updateVolume(newer);
  const result = await r.reclaimer.reclaimVolume(stale);
  await r.reclaimer.settled();
  assert.deepEqual(result, { kind: 'retry', reason: 'conflict' });
  assert.deepEqual(r.plugin.calls, []);
});

test('a second sync while the plugin call is running starts nothing', async () => {
  const r = rig();
  r.fake.addVolume(volume('v'));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const original = r.plugin.delete.bind(r.plugin);
  r.plugin.delete = async (req) => {
    await gate;
    return original(req);
  };
  await r.reclaimer.reclaimVolume(r.fake.ctx.volumes.get('v')!);
  assert.deepEqual(await r.reclaimer.reclaimVolume(r.fake.ctx.volumes.get('v')!), { kind: 'done' });
  release();
  await r.reclaimer.settled();
  assert.equal(r.plugin.calls.length, 1);
  assert.equal(r.fake.volume('v'), undefined);
});

test('each plugin call is reported to the metrics with its outcome', async () => {
  const seen: string[] = [];
  const r = rig({ metrics: { onOperation: (plugin, op, seconds, err) => void seen.push(`${plugin} ${op} ${seconds >= 0} ${err?.message ?? 'ok'}`) } });
  r.plugin.outcomes.push(new Error('boom'));
  r.fake.addVolume(volume('v'));
  await r.reclaim();
  r.fake.clock.advance(INTERVAL);
  await r.reclaim();
  assert.deepEqual(seen, [`${FAKE_PROVISIONER} delete true boom`, `${FAKE_PROVISIONER} delete true ok`]);
});

test('a volume whose claim the binder found gone by a live read is deleted without reading the claim again', async () => {
  const r = rig();
  r.fake.addVolume(volume('v'));
  await r.reclaimer.reclaimVolume(r.fake.ctx.volumes.get('v')!, { claimConfirmedGone: true });
  await r.reclaimer.settled();
  assert.equal(r.fake.volume('v'), undefined);
  assert.deepEqual(r.fake.reads.filter((x) => x.kind === 'PersistentVolumeClaim'), [], 'the fact is not asked twice');
  // Without the fact the claim is confirmed live before anything is deleted.
  const r2 = rig();
  r2.fake.addVolume(volume('v'));
  await r2.reclaim();
  assert.equal(r2.fake.reads.filter((x) => x.kind === 'PersistentVolumeClaim').length, 1);
});

test('a Released Delete volume whose claim node-gone is replacing is not deleted by its plugin: its data is on a gone node', async () => {
  const r = rig();
  r.fake.addVolume(volume('v', { annotations: { [ANN_NODE_GONE_CLAIM]: '{"uid":"uid-c","metadata":{"name":"c","namespace":"default"},"spec":{}}' } }));
  assert.deepEqual(await r.reclaim(), { kind: 'done' });
  assert.deepEqual(r.plugin.calls, []);
  assert.equal(r.fake.successfulWrites().length, 0);
});

test('once the backing volume is deleted, PV writes that keep failing across restarts charge no attempt and call the plugin no more: the PV is removed, never Failed', async () => {
  const r = rig({ maxAttempts: 2 });
  r.fake.addVolume(volume('v', { provisionedBy: FAKE_PROVISIONER, finalizers: [FINALIZER_PV_CONTROLLER] }));
  // The plugin deletes the disk, then the PV DELETE fails (a lost answer, an API fault).
  r.fake.failNextWrites({ verb: 'delete', key: 'v' }, 1);
  await r.reclaim();
  assert.equal(r.plugin.calls.length, 1);
  assert.ok(r.fake.volume('v')?.metadata.annotations?.['pv-controller.io/backing-deleted'], 'the fact is on the PV');
  assert.equal(attemptsOf(r), undefined, 'the attempt that succeeded is not counted');
  // A new controller (nothing in memory), and the DELETE fails again, more times than the budget.
  for (let restart = 0; restart < 3; restart++) {
    const next = rig({ maxAttempts: 2 });
    next.fake.addVolume(r.fake.volume('v')!);
    next.fake.failNextWrites({ verb: 'delete', key: 'v' }, 1);
    await next.reclaim();
    assert.deepEqual(next.plugin.calls, [], 'no second plugin call');
    assert.notEqual(next.fake.volume('v')?.status?.phase, 'Failed');
    r.fake.addVolume(next.fake.volume('v')!);
  }
  const last = rig({ maxAttempts: 2 });
  last.fake.addVolume(r.fake.volume('v')!);
  await last.reclaim();
  assert.equal(last.fake.volume('v'), undefined, 'the PV is finally removed');
  assert.deepEqual(last.plugin.calls, []);
});
