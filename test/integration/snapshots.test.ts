/**
 * The snapshot controller through a real API server (the embedded one, or kube-apiserver with
 * external-snapshotter's CRDs under `npm run test:cluster`): dynamic and pre-provisioned
 * snapshots, the default class, Delete and Retain, the finalizers on the way, a snapshot deleted
 * while its backend snapshot is being cut, and a forged content refused.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ANN_SNAPSHOT_BEING_DELETED,
  ANN_SNAPSHOT_PROVENANCE,
  FINALIZER_PVC_AS_SNAPSHOT_SOURCE,
  FINALIZER_SNAPSHOT_AS_SOURCE,
  FINALIZER_SNAPSHOT_BOUND,
  FINALIZER_SNAPSHOT_CONTENT_BOUND,
} from '@pv-controller/kube/snapshot-types.js';
import { defaultModules } from '../../src/controller/modules.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { ensureSnapshotKinds } from '../helpers/snapshot-crds.js';
import { waitFor } from '../helpers/wait.js';
import { DRIVER, FileSnapshotPlugin, SnapshotTestApi } from './snapshot-helpers.js';

let cluster: TestCluster;
let api: SnapshotTestApi;
let plugin: FileSnapshotPlugin;
let backendDir: string;

before(async () => {
  backendDir = await mkdtemp(join(tmpdir(), 'pvc-snapshots-'));
  plugin = new FileSnapshotPlugin(backendDir);
  cluster = await startTestCluster({ plugins: [plugin], noController: true, modules: defaultModules({ snapshot: { probePeriodMs: 200 } }) });
  await ensureSnapshotKinds(cluster.api);
  await cluster.startController();
  api = new SnapshotTestApi(cluster.kc);
  await api.createClass('snap-delete', { deletionPolicy: 'Delete' });
  await api.createClass('snap-retain', { deletionPolicy: 'Retain' });
});

after(async () => {
  api?.close();
  await cluster?.stop();
  await rm(backendDir, { recursive: true, force: true });
});

const ready = (ns: string, name: string) =>
  waitFor(async () => {
    const vs = await api.snapshot(ns, name);
    return vs?.status?.readyToUse === true && vs;
  }, `snapshot ${ns}/${name} ready`);

test('a dynamic snapshot is cut once, bound, protected by its finalizers, and reports its status and events', async () => {
  await api.boundClaim('default', 'db');
  await waitFor(async () => (await api.claim('default', 'db'))?.status?.phase === 'Bound', 'claim bound');
  const created = await api.createSnapshot('default', 'db-snap', { persistentVolumeClaimName: 'db' }, 'snap-delete');
  const vs = await ready('default', 'db-snap');
  const contentName = `snapcontent-${created.metadata.uid}`;
  assert.equal(vs.status?.boundVolumeSnapshotContentName, contentName);
  assert.equal(vs.status?.restoreSize, '1Gi');
  assert.match(vs.status?.creationTime ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  assert.deepEqual([...(vs.metadata.finalizers ?? [])].sort(), [FINALIZER_SNAPSHOT_AS_SOURCE, FINALIZER_SNAPSHOT_BOUND].sort());
  const content = (await api.content(contentName))!;
  assert.deepEqual(content.metadata.finalizers, [FINALIZER_SNAPSHOT_CONTENT_BOUND]);
  assert.equal(content.spec.volumeSnapshotRef.uid, created.metadata.uid);
  assert.equal(content.spec.driver, DRIVER);
  assert.ok(content.metadata.annotations?.[ANN_SNAPSHOT_PROVENANCE]);
  assert.deepEqual(await plugin.ids(), [content.status?.snapshotHandle]);
  await waitFor(async () => !(await api.claim('default', 'db'))?.metadata.finalizers?.includes(FINALIZER_PVC_AS_SNAPSHOT_SOURCE), 'source claim released');
  const reasons = (await api.events('default', 'db-snap')).map((e) => e.reason);
  for (const reason of ['CreatingSnapshot', 'SnapshotCreated', 'SnapshotReady']) assert.ok(reasons.includes(reason), `${reason} in ${reasons.join(',')}`);

  await api.deleteSnapshot('default', 'db-snap');
  await waitFor(async () => !(await api.snapshot('default', 'db-snap')) && !(await api.content(contentName)), 'snapshot and content gone');
  assert.deepEqual(await plugin.ids(), [], 'backend snapshot deleted');
});

test('a snapshot naming no class gets its driver\'s default class; under Retain its deletion keeps content and backend snapshot', async () => {
  await api.createClass('snap-default', { deletionPolicy: 'Retain', metadata: { name: 'snap-default', annotations: { 'snapshot.storage.kubernetes.io/is-default-class': 'true' } } });
  await api.boundClaim('default', 'logs');
  await waitFor(async () => (await api.claim('default', 'logs'))?.status?.phase === 'Bound', 'claim bound');
  const created = await api.createSnapshot('default', 'logs-snap', { persistentVolumeClaimName: 'logs' });
  await ready('default', 'logs-snap');
  const contentName = `snapcontent-${created.metadata.uid}`;
  const content = (await api.content(contentName))!;
  assert.equal(content.spec.volumeSnapshotClassName, 'snap-default');
  assert.equal(content.spec.deletionPolicy, 'Retain');
  await api.deleteSnapshot('default', 'logs-snap');
  await waitFor(async () => !(await api.snapshot('default', 'logs-snap')), 'snapshot gone');
  const kept = (await api.content(contentName))!;
  assert.equal(kept.metadata.annotations?.[ANN_SNAPSHOT_BEING_DELETED], 'yes');
  assert.ok(kept.status?.snapshotHandle && (await plugin.ids()).includes(kept.status.snapshotHandle), 'backend snapshot kept');
});

test('a pre-provisioned snapshot binds the content that names it', async () => {
  await api.createContent({
    metadata: { name: 'imported-1' },
    spec: { volumeSnapshotRef: { namespace: 'default', name: 'imported' }, driver: DRIVER, deletionPolicy: 'Retain', source: { snapshotHandle: 'snap-imported-1' } },
  });
  const created = await api.createSnapshot('default', 'imported', { volumeSnapshotContentName: 'imported-1' });
  const vs = await ready('default', 'imported');
  assert.equal(vs.status?.boundVolumeSnapshotContentName, 'imported-1');
  assert.equal((await api.content('imported-1'))?.spec.volumeSnapshotRef.uid, created.metadata.uid);
});

test('a snapshot deleted while its backend snapshot is being cut leaves nothing behind', async () => {
  await api.boundClaim('default', 'cache');
  await waitFor(async () => (await api.claim('default', 'cache'))?.status?.phase === 'Bound', 'claim bound');
  const gate = plugin.holdNextCreate();
  const created = await api.createSnapshot('default', 'cache-snap', { persistentVolumeClaimName: 'cache' }, 'snap-delete');
  let reached = false;
  void gate.reached.then(() => (reached = true));
  await waitFor(() => reached, 'the backend call under way');
  await api.deleteSnapshot('default', 'cache-snap');
  const contentName = `snapcontent-${created.metadata.uid}`;
  await waitFor(async () => (await api.content(contentName))?.metadata.deletionTimestamp, 'content deletion requested during the cut');
  gate.release();
  await waitFor(async () => !(await api.snapshot('default', 'cache-snap')) && !(await api.content(contentName)), 'snapshot and content gone');
  const handles = await plugin.ids();
  assert.ok(!handles.some((h) => h.includes(created.metadata.uid ?? '')), `no backend snapshot of it left (${handles.join(',')})`);
});

test('a claim left holding pvc-as-source by a controller killed mid-snapshot is freed once no snapshot of it is being cut, so its deletion completes', async () => {
  // What a chaos run found (seed 7): a controller added the finalizer for a snapshot, was killed,
  // the snapshot was deleted before any other controller cut it, and the claim, deleted later,
  // stayed Terminating: nothing synced a claim with no snapshot left.
  await api.boundClaim('default', 'orphaned-source');
  await waitFor(async () => (await api.claim('default', 'orphaned-source'))?.status?.phase === 'Bound', 'claim bound');
  await api.modifyClaim('default', 'orphaned-source', (claim) => ({
    ...claim,
    metadata: { ...claim.metadata, finalizers: [...(claim.metadata.finalizers ?? []), FINALIZER_PVC_AS_SNAPSHOT_SOURCE] },
  }));
  await api.deleteClaim('default', 'orphaned-source');
  await waitFor(async () => !(await api.claim('default', 'orphaned-source')), 'the claim deleted: pvc-as-source taken off, no snapshot of it being cut');
});

test('a claim whose snapshot is still being cut keeps pvc-as-source until the snapshot is ready', async () => {
  await api.boundClaim('default', 'busy-source');
  await waitFor(async () => (await api.claim('default', 'busy-source'))?.status?.phase === 'Bound', 'claim bound');
  const gate = plugin.holdNextCreate();
  await api.createSnapshot('default', 'busy-snap', { persistentVolumeClaimName: 'busy-source' }, 'snap-delete');
  let reached = false;
  void gate.reached.then(() => (reached = true));
  await waitFor(() => reached, 'the backend call under way');
  const held = await api.claim('default', 'busy-source');
  assert.ok(held?.metadata.finalizers?.includes(FINALIZER_PVC_AS_SNAPSHOT_SOURCE), 'the finalizer is on while the snapshot is being cut');
  // A claim update wakes the claim queue: it must see the snapshot being cut and keep the finalizer.
  await api.modifyClaim('default', 'busy-source', (claim) => ({ ...claim, metadata: { ...claim.metadata, labels: { touched: 'yes' } } }));
  await new Promise((r) => setTimeout(r, 500));
  assert.ok((await api.claim('default', 'busy-source'))?.metadata.finalizers?.includes(FINALIZER_PVC_AS_SNAPSHOT_SOURCE), 'still on while the cut is under way');
  gate.release();
  await ready('default', 'busy-snap');
  await waitFor(async () => !(await api.claim('default', 'busy-source'))?.metadata.finalizers?.includes(FINALIZER_PVC_AS_SNAPSHOT_SOURCE), 'released once ready');
  await api.deleteSnapshot('default', 'busy-snap');
});

test('a content that claims to be dynamic with a forged proof deletes nothing and says why', async () => {
  await plugin.createSnapshot({ snapshotName: 'victim', clusterName: 'kubernetes', pv: { metadata: { name: 'v' }, spec: {} } as never, parameters: {}, snapshot: { name: 'x', namespace: 'y', contentName: 'z' } });
  const forged = await api.createContent({
    metadata: { name: 'forged', finalizers: [FINALIZER_SNAPSHOT_CONTENT_BOUND], annotations: { [ANN_SNAPSHOT_BEING_DELETED]: 'yes', [ANN_SNAPSHOT_PROVENANCE]: 'v1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' } },
    spec: { volumeSnapshotRef: { namespace: 'default', name: 'nobody', uid: 'u-nobody' }, driver: DRIVER, deletionPolicy: 'Delete', source: { volumeHandle: 'pv-default-db' } },
  });
  // The controller may write the content meanwhile (it refuses to cut it): set the status on the newest copy.
  await waitFor(async () => {
    const current = (await api.content(forged.metadata.name ?? ''))!;
    return api.updateContentStatus({ ...current, status: { snapshotHandle: 'snap-victim', readyToUse: true } }).then(() => true);
  }, 'the forged status written');
  await api.deleteContent('forged');
  await waitFor(async () => /^Refusing to delete snapshot snap-victim: /.test((await api.content('forged'))?.status?.error?.message ?? ''), 'refusal recorded');
  assert.ok((await plugin.ids()).includes('snap-victim'), 'backend snapshot still there');
  const reasons = (await api.events('', 'forged')).map((e) => e.reason);
  assert.ok(reasons.includes('SnapshotDeleteError'), reasons.join(','));
});
