/**
 * Dynamic snapshots through the common controller and the sidecar, on the fake context: the
 * content, its finalizers and intent, the one backend snapshot, its proof, and the snapshot's status.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ANN_SNAPSHOT_BEING_CREATED,
  ANN_SNAPSHOT_PROVENANCE,
  FINALIZER_PVC_AS_SNAPSHOT_SOURCE,
  FINALIZER_SNAPSHOT_AS_SOURCE,
  FINALIZER_SNAPSHOT_BOUND,
  FINALIZER_SNAPSHOT_CONTENT_BOUND,
  type VolumeSnapshot,
  type VolumeSnapshotContent,
} from '@pv-controller/kube/snapshot-types.js';
import { PluginError } from '../../../src/plugins/api/errors.js';
import { syncSnapshot } from '../../../src/controller/snapshot/snapshot-sync.js';
import { syncContent } from '../../../src/controller/snapshot/content-sync.js';
import { FakeCluster } from '../../helpers/fake-context.js';
import { DRIVER, PROVENANCE, seedBoundClaim, settle, snapshotClass, snapshotFixture, volumeSnapshot } from './fakes.js';

function dynamicSetup() {
  const fake = new FakeCluster();
  const fx = snapshotFixture(fake);
  seedBoundClaim(fake, 'ns', 'data');
  fx.server.seed('VolumeSnapshotClass', snapshotClass('fast-snap'));
  const vs = fx.server.seed<VolumeSnapshot>('VolumeSnapshot', volumeSnapshot('ns', 'snap-1', { persistentVolumeClaimName: 'data' }, 'fast-snap'));
  return { fake, fx, vs, contentName: `snapcontent-${vs.metadata.uid}` };
}

test('a dynamic snapshot gets content snapcontent-<uid> naming it by uid, with the class driver, policy, volume handle and mode', async () => {
  const { fx, vs, contentName } = dynamicSetup();
  await syncSnapshot(fx.deps, fx.server.stores.snapshots.get('ns/snap-1')!);
  const content = fx.server.get<VolumeSnapshotContent>('VolumeSnapshotContent', contentName);
  assert.ok(content, 'content made');
  assert.deepEqual(
    { ...content.spec.volumeSnapshotRef, resourceVersion: undefined },
    { kind: 'VolumeSnapshot', apiVersion: 'snapshot.storage.k8s.io/v1', name: 'snap-1', namespace: 'ns', uid: vs.metadata.uid, resourceVersion: undefined },
  );
  assert.equal(content.spec.driver, DRIVER);
  assert.equal(content.spec.deletionPolicy, 'Delete');
  assert.equal(content.spec.volumeSnapshotClassName, 'fast-snap');
  assert.deepEqual(content.spec.source, { volumeHandle: 'pv-data' });
  assert.equal(content.spec.sourceVolumeMode, 'Filesystem');
  assert.deepEqual(content.metadata.finalizers, [FINALIZER_SNAPSHOT_CONTENT_BOUND]);
  assert.ok(fx.fake.claim('ns/data')?.metadata.finalizers?.includes(FINALIZER_PVC_AS_SNAPSHOT_SOURCE), 'source claim protected while cut');
  assert.ok(fx.fake.eventReasons('ns/snap-1').includes('CreatingSnapshot'));
  assert.equal(fx.plugin.creates.length, 0, 'the common controller makes no backend call');
});

test('the sidecar records the intent before the backend call and cuts one snapshot named <cluster>-snapshot-<uid>', async () => {
  const { fx, vs, contentName } = dynamicSetup();
  await syncSnapshot(fx.deps, fx.server.stores.snapshots.get('ns/snap-1')!);
  const gate = fx.plugin.holdNextCreate();
  const running = syncContent(fx.deps, fx.server.stores.contents.get(contentName)!);
  await gate.reached;
  const during = fx.server.get<VolumeSnapshotContent>('VolumeSnapshotContent', contentName)!;
  assert.equal(during.metadata.annotations?.[ANN_SNAPSHOT_BEING_CREATED], 'yes', 'intent recorded before the call returns');
  gate.release();
  await running;
  const after = fx.server.get<VolumeSnapshotContent>('VolumeSnapshotContent', contentName)!;
  assert.equal(fx.plugin.creates.length, 1);
  assert.equal(fx.plugin.creates[0].snapshotName, `kubernetes-snapshot-${vs.metadata.uid}`);
  assert.deepEqual(fx.plugin.creates[0].snapshot, { name: 'snap-1', namespace: 'ns', contentName });
  assert.equal(after.status?.snapshotHandle, `snap-kubernetes-snapshot-${vs.metadata.uid}`);
  assert.equal(after.status?.readyToUse, true);
  assert.equal(after.status?.restoreSize, 1024 ** 3);
  assert.equal(after.metadata.annotations?.[ANN_SNAPSHOT_BEING_CREATED], undefined, 'intent ends with the answer recorded');
  assert.ok(PROVENANCE.verifySnapshot(DRIVER, after.status!.snapshotHandle!, contentName, after.metadata.annotations?.[ANN_SNAPSHOT_PROVENANCE]), 'proof signed');
});

test('a ready content gives the snapshot its status: bound name, readyToUse, restoreSize as a Quantity, RFC 3339 creationTime', async () => {
  const { fx, contentName } = dynamicSetup();
  await settle(fx);
  const vs = fx.server.get<VolumeSnapshot>('VolumeSnapshot', 'ns/snap-1')!;
  assert.deepEqual(vs.status, { boundVolumeSnapshotContentName: contentName, readyToUse: true, restoreSize: '1Gi', creationTime: '2024-01-01T00:00:05Z' });
  assert.deepEqual(vs.metadata.finalizers, [FINALIZER_SNAPSHOT_AS_SOURCE, FINALIZER_SNAPSHOT_BOUND]);
  assert.deepEqual(fx.fake.eventReasons('ns/snap-1'), ['CreatingSnapshot', 'SnapshotCreated', 'SnapshotReady']);
  assert.equal(fx.fake.eventsFor('ns/snap-1')[2].message, 'Snapshot ns/snap-1 is ready to use.');
  assert.equal(fx.fake.claim('ns/data')?.metadata.finalizers?.includes(FINALIZER_PVC_AS_SNAPSHOT_SOURCE), false, 'claim released once the snapshot is ready');
  assert.equal(fx.plugin.backend.size, 1);
});

test('an unknown outcome (InProgress) keeps the intent and the repeat makes no second snapshot', async () => {
  const { fx, contentName } = dynamicSetup();
  fx.plugin.createFailures.push(new PluginError('InProgress', 'deadline exceeded', true));
  await syncSnapshot(fx.deps, fx.server.stores.snapshots.get('ns/snap-1')!);
  await syncContent(fx.deps, fx.server.stores.contents.get(contentName)!);
  const kept = fx.server.get<VolumeSnapshotContent>('VolumeSnapshotContent', contentName)!;
  assert.equal(kept.metadata.annotations?.[ANN_SNAPSHOT_BEING_CREATED], 'yes');
  assert.match(kept.status?.error?.message ?? '', /deadline exceeded/);
  assert.ok(fx.fake.eventReasons(contentName).includes('SnapshotCreationFailed'));
  await settle(fx);
  assert.equal(fx.plugin.creates.length, 2);
  assert.equal(fx.plugin.creates[0].snapshotName, fx.plugin.creates[1].snapshotName);
  assert.equal(fx.plugin.backend.size, 1);
  assert.equal(fx.server.get<VolumeSnapshot>('VolumeSnapshot', 'ns/snap-1')?.status?.readyToUse, true);
});

test('a final create error lets the intent go and records the error on the content', async () => {
  const { fx, contentName } = dynamicSetup();
  fx.plugin.createFailures.push(new PluginError('InvalidParameter', 'bad parameter "x"', false));
  await syncSnapshot(fx.deps, fx.server.stores.snapshots.get('ns/snap-1')!);
  await syncContent(fx.deps, fx.server.stores.contents.get(contentName)!);
  const content = fx.server.get<VolumeSnapshotContent>('VolumeSnapshotContent', contentName)!;
  assert.equal(content.metadata.annotations?.[ANN_SNAPSHOT_BEING_CREATED], undefined);
  assert.equal(content.status?.error?.message, 'Failed to create snapshot: bad parameter "x"');
  await syncSnapshot(fx.deps, fx.server.stores.snapshots.get('ns/snap-1')!);
  assert.equal(fx.server.get<VolumeSnapshot>('VolumeSnapshot', 'ns/snap-1')?.status?.error?.message, 'Failed to create snapshot: bad parameter "x"');
});

test('a crash after the backend call (status written, intent still there) repeats the create and finds the same snapshot', async () => {
  const { fx, contentName } = dynamicSetup();
  await syncSnapshot(fx.deps, fx.server.stores.snapshots.get('ns/snap-1')!);
  const content = fx.server.stores.contents.get(contentName)!;
  // The state a crash between the backend call and the proof leaves: intent on, handle in status, no proof.
  const marked = await fx.deps.api.updateContent({ ...content, metadata: { ...content.metadata, annotations: { [ANN_SNAPSHOT_BEING_CREATED]: 'yes' } } });
  const info = await fx.plugin.createSnapshot(fx.plugin.creates[0] ?? { snapshotName: `kubernetes-snapshot-${content.spec.volumeSnapshotRef.uid}`, clusterName: 'kubernetes', pv: fx.fake.volume('pv-data')!, parameters: {}, snapshot: { name: 'snap-1', namespace: 'ns', contentName } });
  await fx.deps.api.updateContentStatus({ ...marked, status: { snapshotHandle: info.snapshotId, readyToUse: true } });
  await settle(fx);
  const after = fx.server.get<VolumeSnapshotContent>('VolumeSnapshotContent', contentName)!;
  assert.equal(fx.plugin.backend.size, 1, 'one backend snapshot');
  assert.equal(after.metadata.annotations?.[ANN_SNAPSHOT_BEING_CREATED], undefined);
  assert.ok(PROVENANCE.verifySnapshot(DRIVER, info.snapshotId, contentName, after.metadata.annotations?.[ANN_SNAPSHOT_PROVENANCE]));
});
