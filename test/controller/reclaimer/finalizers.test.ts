import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { FINALIZER_EXTERNAL_PROVISIONER, FINALIZER_PV_CONTROLLER, FINALIZER_PV_PROTECTION } from '@pv-controller/kube/annotations.js';
import { syncVolume, VolumeIndex } from '../../../src/controller/binder/index.js';
import { annealDeletionFinalizer } from '../../../src/controller/reclaimer/finalizers.js';
import { FAKE_PROVISIONER, claim, rig, volume } from './fixtures.js';

const serves = (name: string) => name === FAKE_PROVISIONER;

test('annealing adds our finalizer to a provisioned Delete PV and removes it when the policy becomes Retain or Recycle', async () => {
  const r = rig();
  r.fake.addVolume(volume('d', { provisionedBy: FAKE_PROVISIONER, phase: 'Bound' }));
  r.fake.addVolume(volume('k', { provisionedBy: FAKE_PROVISIONER, phase: 'Bound', policy: 'Retain', finalizers: [FINALIZER_PV_PROTECTION, FINALIZER_PV_CONTROLLER] }));
  r.fake.addVolume(volume('y', { provisionedBy: FAKE_PROVISIONER, phase: 'Bound', policy: 'Recycle', finalizers: [FINALIZER_PV_CONTROLLER] }));
  for (const name of ['d', 'k', 'y']) assert.equal(await r.presync(name), undefined, 'the binder runs next');
  assert.deepEqual(r.fake.volume('d')!.metadata.finalizers, [FINALIZER_PV_CONTROLLER]);
  assert.deepEqual(r.fake.volume('k')!.metadata.finalizers, [FINALIZER_PV_PROTECTION]);
  assert.equal(r.fake.volume('y')!.metadata.finalizers, undefined);
  const writes = r.fake.successfulWrites().length;
  for (const name of ['d', 'k', 'y']) await r.presync(name);
  assert.equal(r.fake.successfulWrites().length, writes, 'annealed PVs need no further write');
});

test('an in-tree provisioned Delete PV trades the external provisioner\'s finalizer for ours, as kube-controller-manager does', async () => {
  const r = rig();
  r.fake.addVolume(volume('d', { provisionedBy: FAKE_PROVISIONER, phase: 'Bound', finalizers: [FINALIZER_PV_PROTECTION, FINALIZER_EXTERNAL_PROVISIONER] }));
  r.fake.addVolume(volume('k', { provisionedBy: FAKE_PROVISIONER, phase: 'Bound', policy: 'Retain', finalizers: [FINALIZER_EXTERNAL_PROVISIONER] }));
  for (const name of ['d', 'k']) await r.presync(name);
  assert.deepEqual(r.fake.volume('d')!.metadata.finalizers, [FINALIZER_PV_PROTECTION, FINALIZER_PV_CONTROLLER]);
  assert.equal(r.fake.volume('k')!.metadata.finalizers, undefined);
});

test('a PV provisioned under a migrated in-tree name keeps external-provisioner\'s finalizer beside ours: the migrated driver\'s sidecar puts it back on every such PV', () => {
  const pv = volume('d', { provisionedBy: 'kubernetes.io/aws-ebs', phase: 'Bound', finalizers: [FINALIZER_PV_PROTECTION, FINALIZER_EXTERNAL_PROVISIONER] });
  const servesEbs = (name: string) => name === 'kubernetes.io/aws-ebs';
  const annealed = annealDeletionFinalizer(pv, servesEbs);
  assert.deepEqual(annealed?.metadata.finalizers, [FINALIZER_PV_PROTECTION, FINALIZER_EXTERNAL_PROVISIONER, FINALIZER_PV_CONTROLLER]);
  assert.equal(annealDeletionFinalizer(annealed!, servesEbs), undefined, 'nothing more to write: no loop with the sidecar');
});

test('annealing leaves static PVs, external provisioners and unknown policies alone', async () => {
  const r = rig();
  r.fake.addVolume(volume('static', { phase: 'Bound' }));
  r.fake.addVolume(volume('ext', { provisionedBy: 'example.com/csi', phase: 'Bound', finalizers: [FINALIZER_PV_CONTROLLER], policy: 'Retain' }));
  r.fake.addVolume(volume('odd', { provisionedBy: FAKE_PROVISIONER, phase: 'Bound', policy: 'Shred', finalizers: [FINALIZER_PV_CONTROLLER] }));
  for (const name of ['static', 'ext', 'odd']) await r.presync(name);
  assert.equal(r.fake.successfulWrites().length, 0);
});

test('a PV deleted while Bound is not touched: the backing volume waits for the claim to go', async () => {
  const r = rig();
  r.fake.addClaim(claim('c'));
  const pv = volume('v', { provisionedBy: FAKE_PROVISIONER, phase: 'Bound', finalizers: [FINALIZER_PV_PROTECTION, FINALIZER_PV_CONTROLLER] });
  r.fake.addVolume({ ...pv, metadata: { ...pv.metadata, deletionTimestamp: '2024-01-01T00:00:00Z' } });
  assert.equal(await r.presync(), undefined);
  assert.deepEqual(r.plugin.calls, []);
  assert.equal(r.fake.successfulWrites().length, 0, 'no finalizer is added to an object being deleted either');
});

test('an unbound PV deleted first still has its backing volume deleted, then our finalizer goes and so does the PV', async () => {
  const r = rig();
  const pv = volume('v', { provisionedBy: FAKE_PROVISIONER, phase: 'Available', claim: null, finalizers: [FINALIZER_PV_CONTROLLER] });
  r.fake.addVolume({ ...pv, metadata: { ...pv.metadata, deletionTimestamp: '2024-01-01T00:00:00Z' } });
  assert.deepEqual(await r.presync(), { kind: 'done' });
  assert.equal(r.plugin.calls.length, 1);
  assert.equal(r.fake.volume('v'), undefined);
});

test('through the binder: a Bound PV whose claim is gone is Released and deleted by the reclaim hook', async () => {
  const r = rig();
  const index = new VolumeIndex();
  r.fake.addVolume(volume('v', { provisionedBy: FAKE_PROVISIONER, phase: 'Bound', finalizers: [FINALIZER_PV_CONTROLLER] }));
  const hooks = { reclaimVolume: (pv: PersistentVolume) => r.reclaimer.reclaimVolume(pv), servesProvisioner: serves, logger: pino({ level: 'silent' }) };
  await syncVolume(r.fake.ctx, index, r.fake.ctx.volumes.get('v')!, hooks);
  await r.reclaimer.settled();
  assert.equal(r.plugin.calls.length, 1);
  assert.equal(r.fake.volume('v'), undefined);
  const phases = r.fake.successfulWrites({ verb: 'updateStatus' }).map((w) => (w.result as PersistentVolume).status?.phase);
  assert.deepEqual(phases, ['Released']);
});
