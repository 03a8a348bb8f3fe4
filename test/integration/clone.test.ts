/**
 * Clones and populator claims end to end: API server over HTTPS, the controller, and the host-path
 * plugin (plain directories) with the test double's copy (copying-plugin.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Watch } from '@kubernetes/client-node';
import { ANN_CLONES_IN_PROGRESS, FINALIZER_PROVISIONING } from '@pv-controller/kube/annotations.js';
import { FINALIZER_CLONING_PROTECTION } from '@pv-controller/kube/snapshot-types.js';
import type { CoreEvent, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { boundClaim, dataSourceClusters, type DataSourceCluster } from './data-source-helpers.js';
import { claimLeft, exists, waitFor } from './provisioning-helpers.js';

type Setup = DataSourceCluster;

const startCluster = dataSourceClusters();

async function setup(): Promise<Setup> {
  const s = await startCluster();
  await s.ready();
  return s;
}

function newClaim(name: string, o: { size?: string; from?: string; volumeMode?: string } = {}): PersistentVolumeClaim {
  const pvc: PersistentVolumeClaim = {
    metadata: { name, namespace: 'default' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: o.size ?? '1Gi' } }, storageClassName: 'dirs' },
  };
  if (o.from) pvc.spec.dataSource = { kind: 'PersistentVolumeClaim', name: o.from };
  if (o.volumeMode) pvc.spec.volumeMode = o.volumeMode;
  return pvc;
}

/** A Bound claim whose directory holds two files (one in a subdirectory); returns its directory. */
async function sourceWithData(s: Setup): Promise<string> {
  await s.api.createClaim(newClaim('origin'));
  const origin = await boundClaim(s, 'origin');
  const dir = (await s.api.volume(origin.spec.volumeName ?? ''))?.spec.hostPath?.path ?? '';
  assert.ok(dir !== '', 'the source has a directory');
  await writeFile(join(dir, 'table.db'), 'rows 1..1000\n');
  await mkdir(join(dir, 'wal'));
  await writeFile(join(dir, 'wal', '0001'), 'checkpoint\n');
  return dir;
}

async function directoryOfClaim(s: Setup, name: string): Promise<string> {
  const claim = await s.api.claim('default', name);
  return (await s.api.volume(claim?.spec.volumeName ?? ''))?.spec.hostPath?.path ?? '';
}

const cloningFinalizer = async (s: Setup, name: string): Promise<boolean> =>
  ((await s.api.claim('default', name))?.metadata.finalizers ?? []).includes(FINALIZER_CLONING_PROTECTION);

test('a clone of a host-path volume holds its data; the source is protected while the copy runs and released after', async () => {
  const s = await setup();
  const sourceDir = await sourceWithData(s);
  const hold = s.plugin.holdNextProvision();
  const created = await s.api.createClaim(newClaim('copy', { from: 'origin' }));
  await hold.reached;
  const during = await s.api.claim('default', 'origin');
  assert.ok(during?.metadata.finalizers?.includes(FINALIZER_CLONING_PROTECTION), 'cloning protection while copying');
  assert.equal(during?.metadata.annotations?.[ANN_CLONES_IN_PROGRESS], `copy/${created.metadata.uid}`);
  hold.release();
  await boundClaim(s, 'copy');
  const copyDir = await directoryOfClaim(s, 'copy');
  assert.notEqual(copyDir, sourceDir);
  assert.equal(await readFile(join(copyDir, 'table.db'), 'utf8'), 'rows 1..1000\n');
  assert.equal(await readFile(join(copyDir, 'wal', '0001'), 'utf8'), 'checkpoint\n');
  await waitFor(async () => !(await cloningFinalizer(s, 'origin')), 'the cloning protection to be removed');
  assert.equal((await s.api.claim('default', 'origin'))?.metadata.annotations?.[ANN_CLONES_IN_PROGRESS], undefined);
  assert.deepEqual(s.plugin.calls.map((c) => c.kind), ['provision', 'clone']);
  assert.ok((await s.api.eventReasons('default', 'copy')).includes('ProvisioningSucceeded'));
});

test('a clone claim deleted while its copy is held leaves no directory, no PV, and an unprotected source', async () => {
  const s = await setup();
  await sourceWithData(s);
  const before = new Set(await readdir(s.cluster.hostPathRoot));
  const hold = s.plugin.holdNextProvision();
  const created = await s.api.createClaim(newClaim('copy', { from: 'origin' }));
  await hold.reached;
  const copyDir = join(s.cluster.hostPathRoot, `kubernetes-dynamic-pvc-${created.metadata.uid}`);
  assert.ok(await exists(join(copyDir, 'table.db')), 'the copy was made');
  assert.ok((await s.api.claim('default', 'copy'))?.metadata.finalizers?.includes(FINALIZER_PROVISIONING));
  await s.api.deleteClaim('default', 'copy');
  hold.release();
  await claimLeft(s.api, 'default', 'copy');
  assert.equal(await exists(copyDir), false, 'the copied directory is deleted');
  assert.equal(await s.api.volume(`pvc-${created.metadata.uid}`), undefined);
  await waitFor(async () => !(await cloningFinalizer(s, 'origin')), 'the cloning protection to be removed');
  const after = (await readdir(s.cluster.hostPathRoot)).filter((n) => !before.has(n) && n.startsWith('kubernetes-dynamic-'));
  assert.deepEqual(after, [], 'no new volume directory is left');
});

test('clones refused for size and volumeMode: ProvisioningFailed with external-provisioner\'s words, no volume, the source untouched', async () => {
  const s = await setup();
  await sourceWithData(s);
  await s.api.createClaim(newClaim('small', { from: 'origin', size: '512Mi' }));
  await s.api.createClaim(newClaim('block', { from: 'origin', volumeMode: 'Block' }));
  const failed = async (name: string): Promise<string> =>
    waitFor(async () => (await s.api.eventsFor('default', name)).find((e) => e.reason === 'ProvisioningFailed')?.message, `ProvisioningFailed on ${name}`);
  assert.match(await failed('small'), /new PVC request must be greater than or equal in size to the specified PVC data source, requested 536870912 but source is 1073741824/);
  assert.match(await failed('block'), /the source PVC and destination PVCs must have the same volume mode for cloning\. {2}Source is Filesystem, but new PVC requested Block/);
  assert.deepEqual(s.plugin.calls.map((c) => c.kind), ['provision'], 'only the source was ever made');
  assert.equal(await cloningFinalizer(s, 'origin'), false);
  for (const name of ['small', 'block']) assert.equal((await s.api.claim('default', name))?.status?.phase, 'Pending');
});

/** Events of the default namespace as they arrive, from a watch opened now (stopped by the caller). */
async function watchEvents(s: Setup): Promise<{ seen: CoreEvent[]; stop(): void }> {
  const seen: CoreEvent[] = [];
  const controller = await new Watch(s.cluster.kc).watch(
    '/api/v1/namespaces/default/events',
    {},
    (_type: string, obj: CoreEvent) => void seen.push(obj),
    () => undefined,
  );
  return { seen, stop: () => controller.abort() };
}

test('a claim whose dataSourceRef is a populator\'s kind is left alone: no volume, no event while other claims are provisioned around it', async () => {
  const s = await setup();
  const events = await watchEvents(s);
  try {
    const populated = newClaim('populated');
    populated.spec.dataSourceRef = { apiGroup: 'populators.example.com', kind: 'Tarball', name: 'seed' };
    await s.api.createClaim(populated);
    const about = (name: string, reason: string) => events.seen.some((e) => (e.involvedObject as { name?: string }).name === name && e.reason === reason);
    await s.api.createClaim(newClaim('first'));
    await waitFor(() => about('first', 'ProvisioningSucceeded'), 'the claim created after it to be provisioned');
    // Its own change syncs it again, then another claim goes through after it.
    await s.api.modifyClaim('default', 'populated', (live) => ({ ...live, metadata: { ...live.metadata, labels: { touched: 'yes' } } }));
    await s.api.createClaim(newClaim('second'));
    await waitFor(() => about('second', 'ProvisioningSucceeded'), 'the next claim to be provisioned');
    const aboutPopulated = events.seen.filter((e) => (e.involvedObject as { name?: string }).name === 'populated');
    assert.deepEqual(aboutPopulated.map((e) => `${e.reason}: ${e.message}`), [], 'no event about the populator\'s claim');
    const after = await s.api.claim('default', 'populated');
    assert.equal(after?.status?.phase, 'Pending');
    assert.equal(after?.spec.volumeName, undefined);
    assert.ok(!(after?.metadata.finalizers ?? []).includes(FINALIZER_PROVISIONING));
    assert.deepEqual(s.plugin.calls.map((c) => c.req.claim.name).sort(), ['first', 'second']);
  } finally {
    events.stop();
  }
});
