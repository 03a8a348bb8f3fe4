/**
 * Restores end to end: the test creates a VolumeSnapshot and its VolumeSnapshotContent and sets
 * their statuses through the status subresource, as a snapshot controller would; the controller
 * provisions the claim through the test double (copying-plugin.ts), which copies the snapshot's
 * files. Runs on the embedded server and on the real kube-apiserver (`npm run test:cluster --
 * integration/restore`, the CRDs installed by ensureSnapshotKinds); skipped, saying so, on a
 * server that does not serve snapshot.storage.k8s.io.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ANN_ALLOW_VOLUME_MODE_CHANGE, SNAPSHOT_API_VERSION } from '@pv-controller/kube/snapshot-types.js';
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { HOST_PATH_PROVISIONER } from '../../src/plugins/host-path/index.js';
import { ensureSnapshotKinds } from '../helpers/snapshot-crds.js';
import { boundClaim, dataSourceClusters, type DataSourceCluster } from './data-source-helpers.js';
import { waitFor } from './provisioning-helpers.js';

type Setup = DataSourceCluster;

const startCluster = dataSourceClusters();

/** A cluster serving the snapshot kinds, or undefined (the test skipped) when its server does not. */
async function setup(t: TestContext): Promise<Setup | undefined> {
  const s = await startCluster();
  await ensureSnapshotKinds(s.cluster.api);
  if (!(await s.api.servesSnapshots())) {
    t.skip('this API server does not serve snapshot.storage.k8s.io');
    return undefined;
  }
  await s.ready();
  return s;
}

interface SnapshotSetup {
  ready?: boolean;
  restoreSize?: string;
  sourceVolumeMode?: string;
  contentAnnotations?: Record<string, string>;
}

/** A pre-provisioned VolumeSnapshot `name` and its content, bound both ways, statuses set; its files written. */
async function snapshotWithData(s: Setup, name: string, o: SnapshotSetup = {}): Promise<string> {
  const handle = `handle-${name}`;
  const dir = await s.plugin.snapshotDir(handle);
  await writeFile(join(dir, 'table.db'), `rows of ${name}\n`);
  const contentName = `content-${name}`;
  const snapshot = await s.api.createSnapshot({
    apiVersion: SNAPSHOT_API_VERSION,
    kind: 'VolumeSnapshot',
    metadata: { name, namespace: 'default' },
    spec: { source: { volumeSnapshotContentName: contentName } },
  });
  const content = await s.api.createContent({
    apiVersion: SNAPSHOT_API_VERSION,
    kind: 'VolumeSnapshotContent',
    metadata: { name: contentName, annotations: o.contentAnnotations ?? {} },
    spec: {
      volumeSnapshotRef: { kind: 'VolumeSnapshot', name, namespace: 'default', uid: snapshot.metadata.uid ?? '' },
      deletionPolicy: 'Retain',
      driver: HOST_PATH_PROVISIONER,
      source: { snapshotHandle: handle },
      sourceVolumeMode: o.sourceVolumeMode ?? 'Filesystem',
    },
  });
  await s.api.contentStatus({ ...content, status: { snapshotHandle: handle, readyToUse: true, restoreSize: 1024 ** 3 } });
  await s.api.snapshotStatus({ ...snapshot, status: { boundVolumeSnapshotContentName: contentName, readyToUse: o.ready ?? true, restoreSize: o.restoreSize ?? '1Gi' } });
  return handle;
}

function restoreClaim(name: string, snapshot: string, o: { size?: string; volumeMode?: string } = {}): PersistentVolumeClaim {
  const pvc: PersistentVolumeClaim = {
    metadata: { name, namespace: 'default' },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: o.size ?? '1Gi' } },
      storageClassName: 'dirs',
      dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: snapshot },
    },
  };
  if (o.volumeMode) pvc.spec.volumeMode = o.volumeMode;
  return pvc;
}

const failure = (s: Setup, name: string, pattern: RegExp): Promise<string> =>
  waitFor(async () => (await s.api.eventsFor('default', name)).map((e) => e.message ?? '').find((m) => pattern.test(m)), `an event matching ${pattern} on ${name}`);

test('a claim restored from a ready snapshot holds the snapshot\'s data', async (t) => {
  const s = await setup(t);
  if (!s) return;
  const handle = await snapshotWithData(s, 'nightly');
  await s.api.createClaim(restoreClaim('restored', 'nightly'));
  const claim = await boundClaim(s, 'restored');
  const dir = (await s.api.volume(claim.spec.volumeName ?? ''))?.spec.hostPath?.path ?? '';
  assert.equal(await readFile(join(dir, 'table.db'), 'utf8'), 'rows of nightly\n');
  const restore = s.plugin.calls.find((c) => c.kind === 'restore');
  assert.deepEqual(restore?.req.contentSource, { kind: 'snapshot', snapshotId: handle, restoreSize: 1024n ** 3n, sourceVolumeMode: 'Filesystem' });
});

test('a claim waits for its snapshot to be ready to use, saying so, and is restored once it is', async (t) => {
  const s = await setup(t);
  if (!s) return;
  await snapshotWithData(s, 'cutting', { ready: false });
  await s.api.createClaim(restoreClaim('restored', 'cutting'));
  await failure(s, 'restored', /snapshot cutting is not Ready/);
  assert.equal(s.plugin.calls.length, 0, 'nothing made while it is not ready');
  const live = (await s.api.snapshot('default', 'cutting'))!;
  await s.api.snapshotStatus({ ...live, status: { ...live.status, readyToUse: true } });
  await boundClaim(s, 'restored');
});

test('restores refused: smaller than the restoreSize, or another volumeMode without the content\'s permission; nothing is made', async (t) => {
  const s = await setup(t);
  if (!s) return;
  await snapshotWithData(s, 'big', { restoreSize: '2Gi' });
  await snapshotWithData(s, 'raw', { sourceVolumeMode: 'Block' });
  await snapshotWithData(s, 'raw-allowed', { sourceVolumeMode: 'Block', contentAnnotations: { [ANN_ALLOW_VOLUME_MODE_CHANGE]: 'true' } });
  await s.api.createClaim(restoreClaim('small', 'big'));
  await s.api.createClaim(restoreClaim('files', 'raw'));
  await s.api.createClaim(restoreClaim('converted', 'raw-allowed'));
  await failure(s, 'small', /requested volume size 1073741824 is less than the size 2147483648 for the source snapshot big/);
  await failure(s, 'files', /requested volume default\/files modifies the mode of the source volume but does not have permission to do so\. snapshot\.storage\.kubernetes\.io\/allow-volume-mode-change annotation is not present on snapshotcontent content-raw/);
  await boundClaim(s, 'converted');
  assert.deepEqual(s.plugin.calls.map((c) => c.req.claim.name), ['converted'], 'only the permitted one was made');
});
