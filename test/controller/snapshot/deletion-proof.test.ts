/**
 * What a backend snapshot deletion needs: a dynamic content's valid provenance proof, or a
 * pre-provisioned content's own Delete policy and a plugin that owns the handle. A forged content
 * deletes nothing; a node agent acts on its own node's handles only.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ANN_SNAPSHOT_BEING_DELETED,
  ANN_SNAPSHOT_PROVENANCE,
  FINALIZER_SNAPSHOT_CONTENT_BOUND,
  type VolumeSnapshotContent,
} from '@pv-controller/kube/snapshot-types.js';
import { syncContent } from '../../../src/controller/snapshot/content-sync.js';
import { HmacProvenance } from '../../../src/controller/provenance/key.js';
import { FakeCluster } from '../../helpers/fake-context.js';
import { DRIVER, preProvisionedContent, seedBoundClaim, snapshotFixture, type SnapshotFixture } from './fakes.js';

const VICTIM = 'snap-someone-elses';

function victimFixture(): SnapshotFixture {
  const fx = snapshotFixture(new FakeCluster());
  seedBoundClaim(fx.fake, 'ns', 'data');
  fx.plugin.backend.set(VICTIM, { snapshotName: 'x', snapshotId: VICTIM, sourceVolumeId: 'v', sizeBytes: 1n, createdAt: new Date(), readyToUse: true });
  return fx;
}

/** A content that claims to be dynamic (it names a source volume) and records the victim's handle, already being deleted. */
function forgedContent(fx: SnapshotFixture, proof: string | undefined): VolumeSnapshotContent {
  const seeded = fx.server.seed<VolumeSnapshotContent>('VolumeSnapshotContent', {
    apiVersion: 'snapshot.storage.k8s.io/v1',
    kind: 'VolumeSnapshotContent',
    metadata: {
      name: 'forged',
      finalizers: [FINALIZER_SNAPSHOT_CONTENT_BOUND],
      annotations: { [ANN_SNAPSHOT_BEING_DELETED]: 'yes', ...(proof ? { [ANN_SNAPSHOT_PROVENANCE]: proof } : {}) },
    },
    spec: { volumeSnapshotRef: { namespace: 'ns', name: 'gone', uid: 'u-gone' }, driver: DRIVER, deletionPolicy: 'Delete', source: { volumeHandle: 'pv-data' } },
    status: { snapshotHandle: VICTIM, readyToUse: true },
  });
  fx.server.delete('VolumeSnapshotContent', 'forged');
  return fx.server.stores.contents.get(seeded.metadata.name!)!;
}

for (const [what, proof] of [
  ['no proof', undefined],
  ['a proof made with another key', new HmacProvenance(Buffer.alloc(32, 9)).signSnapshot(DRIVER, VICTIM, 'forged')],
  ['a proof of another content', new HmacProvenance(Buffer.alloc(32, 5)).signSnapshot(DRIVER, VICTIM, 'snapcontent-real')],
] as const) {
  test(`a content claiming to be dynamic with ${what} deletes nothing on the backend, says why, and keeps its finalizer`, async () => {
    const fx = victimFixture();
    const result = await syncContent(fx.deps, forgedContent(fx, proof));
    assert.equal(fx.plugin.deletes.length, 0, 'no backend deletion');
    assert.ok(fx.plugin.backend.has(VICTIM));
    const after = fx.server.get<VolumeSnapshotContent>('VolumeSnapshotContent', 'forged')!;
    assert.deepEqual(after.metadata.finalizers, [FINALIZER_SNAPSHOT_CONTENT_BOUND], 'kept: nothing is released on a refused deletion');
    assert.match(after.status?.error?.message ?? '', new RegExp(`^Refusing to delete snapshot ${VICTIM}: `));
    assert.deepEqual(fx.fake.eventReasons('forged'), ['SnapshotDeleteError']);
    assert.equal(result.kind, 'requeueAfter');
  });
}

test('a content with a valid proof is deleted on the backend', async () => {
  const fx = victimFixture();
  await syncContent(fx.deps, forgedContent(fx, new HmacProvenance(Buffer.alloc(32, 5)).signSnapshot(DRIVER, VICTIM, 'forged')));
  assert.deepEqual(fx.plugin.deletes.map((d) => d.snapshotId), [VICTIM]);
  assert.equal(fx.server.get('VolumeSnapshotContent', 'forged'), undefined, 'released after the deletion');
});

function preProvisioned(fx: SnapshotFixture, handle: string, policy: string): VolumeSnapshotContent {
  fx.server.seed('VolumeSnapshotContent', { ...preProvisionedContent('imported', { namespace: 'ns', name: 'snap' }, handle, policy), metadata: { name: 'imported', finalizers: [FINALIZER_SNAPSHOT_CONTENT_BOUND] } });
  fx.server.delete('VolumeSnapshotContent', 'imported');
  return fx.server.stores.contents.get('imported')!;
}

test('a pre-provisioned content deleted under its own Delete policy deletes the handle its plugin owns', async () => {
  const fx = victimFixture();
  await syncContent(fx.deps, preProvisioned(fx, VICTIM, 'Delete'));
  assert.deepEqual(fx.plugin.deletes.map((d) => d.snapshotId), [VICTIM]);
  assert.equal(fx.server.get('VolumeSnapshotContent', 'imported'), undefined);
});

test('a pre-provisioned content under Retain deletes nothing and is let go', async () => {
  const fx = victimFixture();
  await syncContent(fx.deps, preProvisioned(fx, VICTIM, 'Retain'));
  assert.equal(fx.plugin.deletes.length, 0);
  assert.equal(fx.server.get('VolumeSnapshotContent', 'imported'), undefined);
});

test('a handle the plugin does not own (another node\'s, another kind) is never deleted here', async () => {
  const fx = victimFixture();
  fx.plugin.foreign.add(VICTIM);
  await syncContent(fx.deps, preProvisioned(fx, VICTIM, 'Delete'));
  assert.equal(fx.plugin.deletes.length, 0);
  assert.deepEqual(fx.server.get<VolumeSnapshotContent>('VolumeSnapshotContent', 'imported')?.metadata.finalizers, [FINALIZER_SNAPSHOT_CONTENT_BOUND], 'left to the process that owns it');
});

/** A class `c` and a dynamic content `name` (for a snapshot of uid `uid`) of the volume `handle`, not yet cut. */
function uncutContent(fx: SnapshotFixture, name: string, uid: string, handle: string): VolumeSnapshotContent {
  fx.server.seed('VolumeSnapshotClass', { apiVersion: 'snapshot.storage.k8s.io/v1', kind: 'VolumeSnapshotClass', metadata: { name: 'c' }, driver: DRIVER, deletionPolicy: 'Delete' });
  return fx.server.seed<VolumeSnapshotContent>('VolumeSnapshotContent', {
    apiVersion: 'snapshot.storage.k8s.io/v1',
    kind: 'VolumeSnapshotContent',
    metadata: { name },
    spec: { volumeSnapshotRef: { namespace: 'ns', name: 's', uid }, driver: DRIVER, deletionPolicy: 'Delete', volumeSnapshotClassName: 'c', source: { volumeHandle: handle } },
  });
}

test('a dynamic content not named snapcontent-<its snapshot uid> is not cut', async () => {
  const fx = victimFixture();
  const content = uncutContent(fx, 'handmade', 'u-s', 'pv-data');
  await syncContent(fx.deps, content);
  assert.equal(fx.plugin.creates.length, 0);
  assert.match(fx.server.get<VolumeSnapshotContent>('VolumeSnapshotContent', 'handmade')?.status?.error?.message ?? '', /is not named snapcontent-/);
});

test('a node agent cuts only snapshots of its own node\'s volumes (the plugin must handle the PV)', async () => {
  const fx = snapshotFixture(new FakeCluster(), 'sidecar');
  fx.fake.addVolume({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv-elsewhere' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/x' } } });
  const content = uncutContent(fx, 'snapcontent-u-1', 'u-1', 'pv-elsewhere');
  const before = fx.server.writes.length;
  await syncContent(fx.deps, content);
  assert.equal(fx.plugin.creates.length, 0);
  assert.equal(fx.server.writes.length, before, 'another process\'s content is not touched');
});
