/**
 * Pre-provisioned binding and deletion on the fake context: deletionPolicy Delete and Retain, the
 * being-deleted mark, a snapshot deleted while its backend snapshot is being cut, a deletion held
 * while a claim restores from the snapshot, and the sidecar role that never touches snapshots.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ANN_SNAPSHOT_BEING_DELETED,
  FINALIZER_SNAPSHOT_AS_SOURCE,
  FINALIZER_SNAPSHOT_BOUND,
  type VolumeSnapshot,
  type VolumeSnapshotContent,
} from '@pv-controller/kube/snapshot-types.js';
import { syncSnapshot } from '../../../src/controller/snapshot/snapshot-sync.js';
import { syncContent } from '../../../src/controller/snapshot/content-sync.js';
import { FakeCluster } from '../../helpers/fake-context.js';
import { preProvisionedContent, seedBoundClaim, settle, snapshotClass, snapshotFixture, volumeSnapshot, type SnapshotFixture } from './fakes.js';

function dynamic(policy: 'Delete' | 'Retain' = 'Delete'): { fx: SnapshotFixture; contentName: string } {
  const fake = new FakeCluster();
  const fx = snapshotFixture(fake);
  seedBoundClaim(fake, 'ns', 'data');
  fx.server.seed('VolumeSnapshotClass', snapshotClass('c', { deletionPolicy: policy }));
  const vs = fx.server.seed<VolumeSnapshot>('VolumeSnapshot', volumeSnapshot('ns', 'snap', { persistentVolumeClaimName: 'data' }, 'c'));
  return { fx, contentName: `snapcontent-${vs.metadata.uid}` };
}

test('a pre-provisioned snapshot binds the content that names it (uid filled in) and takes its status', async () => {
  const fake = new FakeCluster();
  const fx = snapshotFixture(fake);
  fx.plugin.backend.set('snap-old', { snapshotName: 'old', snapshotId: 'snap-old', sourceVolumeId: 'v', sizeBytes: 2n << 30n, createdAt: new Date('2023-05-01T10:00:00Z'), readyToUse: true });
  fx.server.seed('VolumeSnapshotContent', preProvisionedContent('imported', { namespace: 'ns', name: 'snap' }, 'snap-old', 'Retain'));
  const vs = fx.server.seed<VolumeSnapshot>('VolumeSnapshot', volumeSnapshot('ns', 'snap', { volumeSnapshotContentName: 'imported' }));
  await settle(fx);
  const content = fx.server.get<VolumeSnapshotContent>('VolumeSnapshotContent', 'imported')!;
  assert.equal(content.spec.volumeSnapshotRef.uid, vs.metadata.uid);
  assert.equal(content.status?.snapshotHandle, 'snap-old');
  const bound = fx.server.get<VolumeSnapshot>('VolumeSnapshot', 'ns/snap')!;
  assert.deepEqual(bound.status, { boundVolumeSnapshotContentName: 'imported', readyToUse: true, restoreSize: '2Gi', creationTime: '2023-05-01T10:00:00Z' });
  assert.deepEqual(bound.metadata.finalizers, [FINALIZER_SNAPSHOT_AS_SOURCE], 'Retain: no bound finalizer');
  assert.equal(fx.plugin.creates.length, 0, 'nothing cut for a pre-provisioned snapshot');
});

test('a pre-provisioned content bound to another snapshot is not taken: SnapshotContentMisbound', async () => {
  const fake = new FakeCluster();
  const fx = snapshotFixture(fake);
  fx.server.seed('VolumeSnapshotContent', preProvisionedContent('theirs', { namespace: 'ns', name: 'other', uid: 'u-1' }, 'snap-x'));
  fx.server.seed('VolumeSnapshot', volumeSnapshot('ns', 'snap', { volumeSnapshotContentName: 'theirs' }));
  await syncSnapshot(fx.deps, fx.server.stores.snapshots.get('ns/snap')!);
  assert.equal(fx.server.get<VolumeSnapshot>('VolumeSnapshot', 'ns/snap')?.status?.error?.message, 'VolumeSnapshotContent [theirs] is bound to a different snapshot');
  assert.deepEqual(fx.fake.eventReasons('ns/snap'), ['SnapshotContentMisbound']);
  assert.equal(fx.server.get<VolumeSnapshotContent>('VolumeSnapshotContent', 'theirs')?.spec.volumeSnapshotRef.uid, 'u-1', 'untouched');
});

test('a pre-provisioned snapshot whose content does not exist: SnapshotContentMissing', async () => {
  const fx = snapshotFixture(new FakeCluster());
  fx.server.seed('VolumeSnapshot', volumeSnapshot('ns', 'snap', { volumeSnapshotContentName: 'nowhere' }));
  await syncSnapshot(fx.deps, fx.server.stores.snapshots.get('ns/snap')!);
  assert.equal(fx.server.get<VolumeSnapshot>('VolumeSnapshot', 'ns/snap')?.status?.error?.message, 'VolumeSnapshotContent is missing');
});

test('deleting a snapshot under Delete deletes its content and backend snapshot, then lets both go', async () => {
  const { fx, contentName } = dynamic('Delete');
  await settle(fx);
  assert.equal(fx.plugin.backend.size, 1);
  fx.server.delete('VolumeSnapshot', 'ns/snap');
  await settle(fx);
  assert.equal(fx.plugin.backend.size, 0, 'backend snapshot deleted');
  assert.equal(fx.plugin.deletes.length, 1);
  assert.equal(fx.server.get('VolumeSnapshotContent', contentName), undefined, 'content gone');
  assert.equal(fx.server.get('VolumeSnapshot', 'ns/snap'), undefined, 'snapshot gone');
});

test('deleting a snapshot under Retain keeps its content (marked being-deleted) and the backend snapshot', async () => {
  const { fx, contentName } = dynamic('Retain');
  await settle(fx);
  fx.server.delete('VolumeSnapshot', 'ns/snap');
  await settle(fx);
  assert.equal(fx.server.get('VolumeSnapshot', 'ns/snap'), undefined, 'snapshot gone');
  const content = fx.server.get<VolumeSnapshotContent>('VolumeSnapshotContent', contentName)!;
  assert.equal(content.metadata.annotations?.[ANN_SNAPSHOT_BEING_DELETED], 'yes');
  assert.equal(content.metadata.deletionTimestamp, undefined, 'content not deleted');
  assert.equal(fx.plugin.backend.size, 1, 'backend snapshot kept');
  assert.equal(fx.plugin.deletes.length, 0);
});

test('a snapshot deleted while its backend snapshot is being cut: the cut finishes, is recorded, then deleted; nothing leaks', async () => {
  const { fx, contentName } = dynamic('Delete');
  await syncSnapshot(fx.deps, fx.server.stores.snapshots.get('ns/snap')!);
  const gate = fx.plugin.holdNextCreate();
  const cutting = syncContent(fx.deps, fx.server.stores.contents.get(contentName)!);
  await gate.reached;
  fx.server.delete('VolumeSnapshot', 'ns/snap');
  await syncSnapshot(fx.deps, fx.server.stores.snapshots.get('ns/snap')!);
  const marked = fx.server.get<VolumeSnapshotContent>('VolumeSnapshotContent', contentName)!;
  assert.ok(marked.metadata.deletionTimestamp, 'content deletion requested while the cut runs');
  // The content is not let go while the cut may be in flight.
  await syncContent(fx.deps, fx.server.stores.contents.get(contentName)!);
  assert.ok(fx.server.get('VolumeSnapshotContent', contentName), 'content kept while being created');
  gate.release();
  await cutting;
  await settle(fx);
  assert.equal(fx.plugin.backend.size, 0, 'the snapshot cut is deleted');
  assert.equal(fx.server.get('VolumeSnapshotContent', contentName), undefined);
  assert.equal(fx.server.get('VolumeSnapshot', 'ns/snap'), undefined);
});

test('a snapshot a Pending claim restores from is not let go: SnapshotDeletePending until the claim binds', async () => {
  const { fx } = dynamic('Delete');
  await settle(fx);
  const restoring = fx.fake.addClaim({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { namespace: 'ns', name: 'restored' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'snap' } },
    status: { phase: 'Pending' },
  });
  fx.server.delete('VolumeSnapshot', 'ns/snap');
  await settle(fx);
  const held = fx.server.get<VolumeSnapshot>('VolumeSnapshot', 'ns/snap')!;
  assert.deepEqual(held.metadata.finalizers, [FINALIZER_SNAPSHOT_AS_SOURCE, FINALIZER_SNAPSHOT_BOUND]);
  assert.ok(fx.fake.eventReasons('ns/snap').includes('SnapshotDeletePending'));
  assert.equal(fx.plugin.backend.size, 1);
  fx.fake.seed('PersistentVolumeClaim', { ...restoring, status: { phase: 'Bound' } });
  await settle(fx);
  assert.equal(fx.server.get('VolumeSnapshot', 'ns/snap'), undefined);
  assert.equal(fx.plugin.backend.size, 0);
});

test('in the sidecar role no snapshot is written: only our drivers\' contents are cut', async () => {
  const fake = new FakeCluster();
  const fx = snapshotFixture(fake, 'sidecar');
  seedBoundClaim(fake, 'ns', 'data');
  fx.server.seed('VolumeSnapshotClass', snapshotClass('c'));
  const vs = fx.server.seed<VolumeSnapshot>('VolumeSnapshot', volumeSnapshot('ns', 'snap', { persistentVolumeClaimName: 'data' }, 'c'));
  await settle(fx);
  assert.equal(fx.server.stores.contents.list().length, 0, 'the sidecar makes no content');
  // What external-snapshotter's snapshot-controller would make:
  const content = fx.server.seed<VolumeSnapshotContent>('VolumeSnapshotContent', {
    apiVersion: 'snapshot.storage.k8s.io/v1',
    kind: 'VolumeSnapshotContent',
    metadata: { name: `snapcontent-${vs.metadata.uid}`, finalizers: ['snapshot.storage.kubernetes.io/volumesnapshotcontent-bound-protection'] },
    spec: { volumeSnapshotRef: { kind: 'VolumeSnapshot', namespace: 'ns', name: 'snap', uid: vs.metadata.uid }, driver: fx.plugin.name, deletionPolicy: 'Delete', volumeSnapshotClassName: 'c', source: { volumeHandle: 'pv-data' } },
  });
  await settle(fx);
  assert.equal(fx.plugin.backend.size, 1);
  assert.equal(fx.server.get<VolumeSnapshotContent>('VolumeSnapshotContent', content.metadata.name!)?.status?.readyToUse, true);
  assert.equal(fx.server.writes.filter((w) => w.kind === 'VolumeSnapshot').length, 0, 'no VolumeSnapshot write');
});
