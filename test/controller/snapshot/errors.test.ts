/**
 * What a dynamic snapshot that cannot be cut says, in upstream's reasons and words: the default
 * class of its volume's driver (none, two), a missing class, a driver mismatch, a claim that is not
 * bound or is being deleted, a bad source. Nothing is made in any of them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { VolumeSnapshot } from '@pv-controller/kube/snapshot-types.js';
import { syncSnapshot } from '../../../src/controller/snapshot/snapshot-sync.js';
import { FakeCluster } from '../../helpers/fake-context.js';
import { seedBoundClaim, settle, snapshotClass, snapshotFixture, volumeSnapshot, type SnapshotFixture } from './fakes.js';

async function attempt(fx: SnapshotFixture, vs: VolumeSnapshot): Promise<VolumeSnapshot> {
  await syncSnapshot(fx.deps, fx.server.seed<VolumeSnapshot>('VolumeSnapshot', vs));
  return fx.server.get<VolumeSnapshot>('VolumeSnapshot', `${vs.metadata.namespace}/${vs.metadata.name}`)!;
}

function setup(): SnapshotFixture {
  const fake = new FakeCluster();
  const fx = snapshotFixture(fake);
  seedBoundClaim(fake, 'ns', 'data');
  return fx;
}

const nothingMade = (fx: SnapshotFixture): void => {
  assert.equal(fx.server.stores.contents.list().length, 0, 'no content');
  assert.equal(fx.plugin.creates.length, 0, 'no backend call');
};

test('a snapshot naming no class gets the single default class of its volume\'s driver', async () => {
  const fx = setup();
  fx.server.seed('VolumeSnapshotClass', snapshotClass('other-driver', { driver: 'other.example.com' }, true));
  fx.server.seed('VolumeSnapshotClass', snapshotClass('plain'));
  fx.server.seed('VolumeSnapshotClass', snapshotClass('the-default', { deletionPolicy: 'Retain' }, true));
  fx.server.seed('VolumeSnapshot', volumeSnapshot('ns', 'snap', { persistentVolumeClaimName: 'data' }));
  await settle(fx);
  const [content] = fx.server.stores.contents.list();
  assert.equal(content.spec.volumeSnapshotClassName, 'the-default');
  assert.equal(content.spec.deletionPolicy, 'Retain');
  assert.equal(fx.server.get<VolumeSnapshot>('VolumeSnapshot', 'ns/snap')?.status?.readyToUse, true);
});

test('two default classes for the driver: SetDefaultSnapshotClassFailed, nothing made', async () => {
  const fx = setup();
  fx.server.seed('VolumeSnapshotClass', snapshotClass('a', {}, true));
  fx.server.seed('VolumeSnapshotClass', snapshotClass('b', {}, true));
  const vs = await attempt(fx, volumeSnapshot('ns', 'snap', { persistentVolumeClaimName: 'data' }));
  assert.equal(vs.status?.error?.message, 'Failed to set default snapshot class with error 2 default snapshot classes were found');
  assert.deepEqual(fx.fake.eventReasons('ns/snap'), ['SetDefaultSnapshotClassFailed']);
  nothingMade(fx);
});

test('no default class for the driver: SetDefaultSnapshotClassFailed, nothing made', async () => {
  const fx = setup();
  const vs = await attempt(fx, volumeSnapshot('ns', 'snap', { persistentVolumeClaimName: 'data' }));
  assert.equal(vs.status?.error?.message, 'Failed to set default snapshot class with error cannot find default snapshot class');
  nothingMade(fx);
});

test('a class that does not exist: SnapshotContentCreationFailed naming it, readyToUse false', async () => {
  const fx = setup();
  const vs = await attempt(fx, volumeSnapshot('ns', 'snap', { persistentVolumeClaimName: 'data' }, 'missing'));
  assert.equal(vs.status?.readyToUse, false);
  assert.match(vs.status?.error?.message ?? '', /^Failed to create snapshot content with error failed to get input parameters to create snapshot snap: .*volumesnapshotclass.snapshot.storage.k8s.io \\"missing\\" not found/);
  assert.deepEqual(fx.fake.eventReasons('ns/snap'), ['SnapshotContentCreationFailed']);
  nothingMade(fx);
});

test('a class of another driver than the volume\'s: refused, nothing made', async () => {
  const fx = setup();
  fx.server.seed('VolumeSnapshotClass', snapshotClass('foreign', { driver: 'other.example.com' }));
  const vs = await attempt(fx, volumeSnapshot('ns', 'snap', { persistentVolumeClaimName: 'data' }, 'foreign'));
  assert.match(vs.status?.error?.message ?? '', /is for driver other\.example\.com/);
  nothingMade(fx);
});

test('a claim not yet bound: upstream\'s "is not yet bound to a PV" error', async () => {
  const fake = new FakeCluster();
  const fx = snapshotFixture(fake);
  fake.addClaim({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { namespace: 'ns', name: 'pending' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } }, status: { phase: 'Pending' } });
  fx.server.seed('VolumeSnapshotClass', snapshotClass('c'));
  const vs = await attempt(fx, volumeSnapshot('ns', 'snap', { persistentVolumeClaimName: 'pending' }, 'c'));
  assert.match(vs.status?.error?.message ?? '', /the PVC pending is not yet bound to a PV, will not attempt to take a snapshot/);
  nothingMade(fx);
});

test('a claim being deleted gets no source finalizer and no snapshot', async () => {
  const fake = new FakeCluster();
  const fx = snapshotFixture(fake);
  const { pvc } = seedBoundClaim(fake, 'ns', 'going');
  fake.seed('PersistentVolumeClaim', { ...pvc, metadata: { ...pvc.metadata, finalizers: ['kubernetes.io/pvc-protection'], deletionTimestamp: '2024-01-01T00:00:00Z' } });
  fx.server.seed('VolumeSnapshotClass', snapshotClass('c'));
  const vs = await attempt(fx, volumeSnapshot('ns', 'snap', { persistentVolumeClaimName: 'going' }, 'c'));
  assert.match(vs.status?.error?.message ?? '', /cannot add finalizer on claim because it is being deleted/);
  assert.deepEqual(fx.fake.claim('ns/going')?.metadata.finalizers, ['kubernetes.io/pvc-protection']);
  nothingMade(fx);
});

test('a snapshot naming both a claim and a content: SnapshotValidationError', async () => {
  const fx = setup();
  const vs = await attempt(fx, volumeSnapshot('ns', 'snap', { persistentVolumeClaimName: 'data', volumeSnapshotContentName: 'c' }));
  assert.equal(vs.status?.error?.message, 'Exactly one of PersistentVolumeClaimName and VolumeSnapshotContentName should be specified');
  assert.deepEqual(fx.fake.eventReasons('ns/snap'), ['SnapshotValidationError']);
});

test('the same error is recorded and announced once however often the snapshot is synced', async () => {
  const fx = setup();
  await attempt(fx, volumeSnapshot('ns', 'snap', { persistentVolumeClaimName: 'data' }, 'missing'));
  await syncSnapshot(fx.deps, fx.server.stores.snapshots.get('ns/snap')!);
  await syncSnapshot(fx.deps, fx.server.stores.snapshots.get('ns/snap')!);
  assert.equal(fx.fake.eventReasons('ns/snap').length, 1);
});
