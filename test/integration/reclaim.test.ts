/**
 * Retain, Delete and Recycle end to end: the embedded API server, a controller with the binder,
 * provisioner, reclaimer and protection controllers, and the real host-path and nfs-subdir
 * plugins on temp directories.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { FINALIZER_PV_CONTROLLER } from '@pv-controller/kube/annotations.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { HOST_PATH_PROVISIONER } from '../../src/plugins/host-path/index.js';
import { NFS_SUBDIR_PROVISIONER, NfsSubdirPlugin } from '../../src/plugins/nfs-subdir/index.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { TestApi } from './provisioning-helpers.js';
import { ReclaimApi, claimFor, decoy, entries, exists, fill, reclaimModules, staticVolume, volumeSyncsPass, waitFor } from './reclaim-helpers.js';

interface Rig {
  cluster: TestCluster;
  api: ReclaimApi;
  classes: TestApi;
  nfsMount: string;
}

async function withRig(body: (r: Rig) => Promise<void>): Promise<void> {
  const outside = await decoy();
  const nfsMount = join(outside.dir, 'export');
  await mkdir(nfsMount);
  const nfs = new NfsSubdirPlugin({ mounts: [{ server: 'nfs.test', share: '/exports', mountPath: nfsMount }] });
  const cluster = await startTestCluster({ plugins: [nfs], modules: reclaimModules(), controllerOptions: { syncPeriodMs: 300 } });
  const api = new ReclaimApi(cluster.kc);
  const classes = new TestApi(cluster.kc);
  try {
    await body({ cluster, api, classes, nfsMount });
  } finally {
    api.close();
    classes.close();
    await cluster.stop();
    await rm(outside.dir, { recursive: true, force: true });
  }
}

async function createClass(r: Rig, name: string, provisioner: string, reclaimPolicy: string, parameters: Record<string, string> = {}): Promise<void> {
  await r.classes.createClass({ metadata: { name }, provisioner, reclaimPolicy, volumeBindingMode: 'Immediate', parameters });
}

/** Creates a claim of `cls` and waits until it is Bound; returns its PV. */
async function provisionedVolume(r: Rig, claimName: string, cls: string): Promise<PersistentVolume> {
  await r.api.createClaim({ ...claimFor(claimName), spec: { ...claimFor(claimName).spec, storageClassName: cls } });
  const bound = await waitFor(async () => {
    const c = await r.api.claim(claimName);
    return c?.status?.phase === 'Bound' ? c : undefined;
  }, `claim ${claimName} to be Bound`);
  return (await r.api.volume(bound.spec.volumeName ?? ''))!;
}

async function phaseOf(r: Rig, name: string, phase: string): Promise<PersistentVolume> {
  return waitFor(async () => {
    const pv = await r.api.volume(name);
    return pv?.status?.phase === phase ? pv : undefined;
  }, `PV ${name} to be ${phase}`);
}

test('Delete (host-path): deleting the claim removes the directory and the PV', async () => {
  await withRig(async (r) => {
    await createClass(r, 'hp-delete', HOST_PATH_PROVISIONER, 'Delete');
    const pv = await provisionedVolume(r, 'data', 'hp-delete');
    const dir = pv.spec.hostPath!.path;
    await fill(dir);
    await waitFor(async () => (await r.api.volume(pv.metadata.name!))?.metadata.finalizers?.includes(FINALIZER_PV_CONTROLLER), 'our deletion finalizer');
    await r.api.deleteClaim('data');
    await waitFor(async () => (await r.api.volume(pv.metadata.name!)) === undefined, 'the PV to be gone');
    assert.equal(await exists(dir), false);
    assert.equal(await r.api.claim('data'), undefined, 'the claim is gone too (pvc-protection removed)');
  });
});

test('Delete (nfs-subdir, onDelete=delete): the sub-directory and the PV are removed', async () => {
  await withRig(async (r) => {
    await createClass(r, 'nfs-delete', NFS_SUBDIR_PROVISIONER, 'Delete', { onDelete: 'delete' });
    const pv = await provisionedVolume(r, 'shared', 'nfs-delete');
    const dir = join(r.nfsMount, pv.spec.nfs!.path.slice('/exports/'.length));
    await fill(dir);
    await r.api.deleteClaim('shared');
    await waitFor(async () => (await r.api.volume(pv.metadata.name!)) === undefined, 'the PV to be gone');
    assert.equal(await exists(dir), false);
  });
});

test('Retain (host-path): the PV stays Released with its claimRef and the data stays', async () => {
  await withRig(async (r) => {
    await createClass(r, 'hp-retain', HOST_PATH_PROVISIONER, 'Retain');
    const pv = await provisionedVolume(r, 'keep', 'hp-retain');
    const dir = pv.spec.hostPath!.path;
    await fill(dir);
    await r.api.deleteClaim('keep');
    await phaseOf(r, pv.metadata.name!, 'Released');
    await volumeSyncsPass(r.cluster.controller!, 5);
    const after = (await r.api.volume(pv.metadata.name!))!;
    assert.equal(after.status?.phase, 'Released');
    assert.equal(after.spec.claimRef?.name, 'keep');
    assert.equal(after.metadata.finalizers?.includes(FINALIZER_PV_CONTROLLER) ?? false, false, 'no deletion finalizer under Retain');
    assert.deepEqual(await entries(dir), ['data.txt', 'sub']);
  });
});

async function recycleScenario(r: Rig, pv: PersistentVolume, dir: string): Promise<void> {
  const outside = await decoy();
  try {
    await mkdir(dir, { recursive: true });
    await fill(dir);
    await symlink(outside.dir, join(dir, 'escape'));
    await r.api.createVolume(pv);
    await r.api.createClaim(claimFor('old', pv.metadata.name));
    await phaseOf(r, pv.metadata.name!, 'Bound');
    await r.api.deleteClaim('old');
    const available = await phaseOf(r, pv.metadata.name!, 'Available');
    assert.equal(available.spec.claimRef, undefined);
    assert.deepEqual(await entries(dir), [], 'the directory is empty');
    assert.ok(await exists(outside.file), 'the symlink target outside is untouched');
    await r.api.createClaim(claimFor('next'));
    await waitFor(async () => (await r.api.claim('next'))?.spec.volumeName === pv.metadata.name, 'a new claim to bind the recycled PV');
  } finally {
    await rm(outside.dir, { recursive: true, force: true });
  }
}

test('Recycle (host-path): the directory is emptied (a symlink out is removed, its target kept), the PV is Available and binds again', async () => {
  await withRig(async (r) => {
    const dir = join(r.cluster.hostPathRoot, 'recycled');
    await recycleScenario(r, staticVolume('hp-recycle', dir, 'Recycle'), dir);
  });
});

test('Recycle (nfs-subdir): the sub-directory is emptied, the PV is Available and binds again', async () => {
  await withRig(async (r) => {
    const pv = staticVolume('nfs-recycle', '/unused', 'Recycle');
    delete pv.spec.hostPath;
    pv.spec.nfs = { server: 'nfs.test', path: '/exports/team/vol' };
    await recycleScenario(r, pv, join(r.nfsMount, 'team', 'vol'));
  });
});

test('a claim deleted while the controller is down is reclaimed after the restart', async () => {
  await withRig(async (r) => {
    await createClass(r, 'hp-delete', HOST_PATH_PROVISIONER, 'Delete');
    const pv = await provisionedVolume(r, 'offline', 'hp-delete');
    const dir = pv.spec.hostPath!.path;
    await r.cluster.stopController();
    await r.api.deleteClaim('offline');
    assert.ok((await r.api.claim('offline'))?.metadata.deletionTimestamp, 'held by pvc-protection while nobody runs');
    await r.cluster.startController();
    await waitFor(async () => (await r.api.volume(pv.metadata.name!)) === undefined, 'the PV to be gone');
    assert.equal(await exists(dir), false);
    assert.equal(await r.api.claim('offline'), undefined);
  });
});
