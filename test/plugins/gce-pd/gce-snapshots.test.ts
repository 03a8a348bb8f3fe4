/** GCE PD snapshots, restore and clone against the Compute emulator (CREATING → UPLOADING → READY, 409 after a lost answer, refusals). */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { OAuth2Client } from 'google-auth-library';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { canSnapshot, type SnapshotRequest } from '../../../src/plugins/api/capabilities/snapshot.js';
import { PluginError } from '../../../src/plugins/api/errors.js';
import { GcePdPlugin, type GcePdPluginOptions } from '../../../src/plugins/gce-pd/gce-pd-plugin.js';
import { fastCloudOptions, GIB, provisionRequest } from '../../emulators/fixtures.js';
import { GceEmulator } from '../../emulators/gce.js';

const maxNameLength = 63;

describe('gce-pd snapshots against the Compute emulator', () => {
  const gce = new GceEmulator();
  const plugin = (options: Partial<GcePdPluginOptions> = {}): GcePdPlugin => {
    const authClient = new OAuth2Client({ clientId: gce.clientId, clientSecret: gce.clientSecret, endpoints: { oauth2TokenUrl: gce.tokenUrl } });
    authClient.setCredentials({ refresh_token: gce.refreshToken });
    return new GcePdPlugin({ project: gce.project, zone: 'us-central1-a', endpoint: gce.computeEndpoint, authClient, ...fastCloudOptions(), ...options });
  };
  const handle = (name: string): string => `projects/${gce.project}/global/snapshots/${name}`;
  before(() => gce.start());
  after(() => gce.stop());
  beforeEach(() => {
    gce.faults.clear();
    gce.snapshots.statusAfterCreate = 'READY';
  });

  async function sourcePv(pvName: string): Promise<PersistentVolume> {
    const made = await plugin().provision(provisionRequest({ pvName, maxNameLength }));
    return { metadata: { name: pvName, labels: made.labels ?? {} }, spec: { ...made.source } };
  }

  function snapshotRequest(pv: PersistentVolume, name: string): SnapshotRequest {
    return { snapshotName: name, clusterName: 'kubernetes', pv, parameters: {}, snapshot: { name: 'nightly', namespace: 'shop', contentName: `snapcontent-${name}` } };
  }

  it('claims snapshot and clone, and owns only snapshot handles of the projects/<p>/global/snapshots/<name> form', () => {
    const p = plugin();
    assert.ok(canSnapshot(p));
    assert.equal(p.supportsClone, true);
    assert.equal(p.ownsSnapshot(handle('snap-a')), true);
    for (const bad of ['snap-a', 'projects/p/global/snapshots/a', 'projects/emulated-project/zones/z/disks/d', `${handle('a')}/x`, 'snap-0123456789abcdef0']) {
      assert.equal(p.ownsSnapshot(bad), false, bad);
    }
  });

  it('snapshots.insert names the snapshot, its source disk, labels and the tags JSON; CREATING and UPLOADING are not ready, READY is', async () => {
    const pv = await sourcePv('pvc-gsnap-a');
    const p = plugin();
    const first = await p.createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-a'));
    const insert = gce.requests.filter((r) => r.action === 'snapshots.insert');
    assert.deepEqual(insert.map((r) => r.body), [
      {
        name: 'kubernetes-snapshot-a',
        sourceDisk: `projects/${gce.project}/zones/us-central1-a/disks/kubernetes-dynamic-pvc-gsnap-a`,
        description: JSON.stringify({
          Name: 'kubernetes-snapshot-a',
          'kubernetes.io/created-for/volumesnapshot/namespace': 'shop',
          'kubernetes.io/created-for/volumesnapshot/name': 'nightly',
          'kubernetes.io/created-for/volumesnapshotcontent/name': 'snapcontent-kubernetes-snapshot-a',
          'kubernetes.io/cluster/kubernetes': 'owned',
        }),
        labels: {
          'kubernetes-io-created-for-volumesnapshot-namespace': 'shop',
          'kubernetes-io-created-for-volumesnapshot-name': 'nightly',
          'kubernetes-io-created-for-volumesnapshotcontent-name': 'snapcontent-kubernetes-snapshot-a',
          'kubernetes-io-cluster-kubernetes': 'owned',
        },
      },
    ]);
    assert.equal(first.snapshotId, handle('kubernetes-snapshot-a'));
    assert.equal(first.sizeBytes, 10n * GIB);
    assert.equal(first.readyToUse, false);
    assert.equal((await p.createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-a'))).readyToUse, true);
    assert.equal(gce.requests.filter((r) => r.action === 'snapshots.insert').length, 1);
  });

  it('a lost insert answer: the retry finds the snapshot by its name, one snapshot in all', async () => {
    const pv = await sourcePv('pvc-gsnap-lost');
    gce.faults.inject('snapshots.insert', 'lostResponse');
    const info = await plugin().createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-lost'));
    assert.deepEqual(gce.snapshots.all().filter((s) => s.name === 'kubernetes-snapshot-lost').length, 1);
    assert.equal(info.snapshotId, handle('kubernetes-snapshot-lost'));
  });

  it("a snapshot of that name another cluster made is refused for good; a FAILED one of ours is deleted and the create retried", async () => {
    const pv = await sourcePv('pvc-gsnap-x');
    gce.snapshots.add({ name: 'kubernetes-snapshot-theirs', description: JSON.stringify({ 'kubernetes.io/cluster/other': 'owned' }) });
    await assert.rejects(plugin().createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-theirs')), (e: unknown) => e instanceof PluginError && !e.retryable);
    gce.snapshots.statusAfterCreate = 'FAILED';
    const p = plugin();
    await p.createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-fail')); // CREATING, then UPLOADING when read back
    await assert.rejects(p.createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-fail')), (e: unknown) => e instanceof PluginError && e.retryable);
    assert.equal(gce.snapshots.all().some((s) => s.name === 'kubernetes-snapshot-fail'), false);
    gce.snapshots.statusAfterCreate = 'READY';
    assert.equal((await p.createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-fail'))).snapshotId, handle('kubernetes-snapshot-fail'));
  });

  it('throttled and failing snapshot calls are retried: one snapshot', async () => {
    const pv = await sourcePv('pvc-gsnap-throttle');
    gce.faults.inject('snapshots.insert', 'throttle', 2);
    gce.faults.inject('snapshots.get', 'serverError');
    const info = await plugin().createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-throttle'));
    assert.equal(info.snapshotId, handle('kubernetes-snapshot-throttle'));
    assert.equal(gce.snapshots.all().filter((s) => s.name === 'kubernetes-snapshot-throttle').length, 1);
  });

  it("lists this cluster's snapshots only; deletes ours (waiting until it is gone) and again is success", async () => {
    const pv = await sourcePv('pvc-gsnap-del');
    const { snapshotId } = await plugin().createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-del'));
    gce.snapshots.add({ name: 'foreign', labels: { 'kubernetes-io-cluster-kubernetes': 'owned' }, description: '{}' });
    const listed = await plugin().listSnapshots('kubernetes');
    assert.ok(listed.some((s) => s.snapshotId === snapshotId && s.snapshotName === 'kubernetes-snapshot-del'));
    assert.ok(!listed.some((s) => s.snapshotName === 'foreign'), 'a label is not proof: the description is');
    await plugin().deleteSnapshot({ snapshotId, clusterName: 'kubernetes' });
    assert.equal(gce.snapshots.all().some((s) => s.name === 'kubernetes-snapshot-del'), false);
    await plugin().deleteSnapshot({ snapshotId, clusterName: 'kubernetes' });
  });

  it('refuses to delete a foreign snapshot, another project\'s, or without a cluster; a pre-provisioned handle under Delete is deleted', async () => {
    gce.snapshots.add({ name: 'decoy', description: JSON.stringify({ 'kubernetes.io/cluster/other': 'owned' }) });
    const unsafe = (e: unknown) => e instanceof PluginError && e.code === 'Unsafe' && !e.retryable;
    const before = gce.requests.length;
    await assert.rejects(plugin().deleteSnapshot({ snapshotId: handle('decoy'), clusterName: 'kubernetes' }), unsafe);
    await assert.rejects(plugin().deleteSnapshot({ snapshotId: handle('decoy') }), unsafe);
    await assert.rejects(plugin().deleteSnapshot({ snapshotId: 'projects/other-project/global/snapshots/decoy', preProvisioned: true }), unsafe);
    await assert.rejects(plugin().deleteSnapshot({ snapshotId: 'decoy', preProvisioned: true }), unsafe);
    assert.equal(gce.requests.slice(before).filter((r) => r.action === 'snapshots.delete').length, 0);
    await plugin().deleteSnapshot({ snapshotId: handle('decoy'), preProvisioned: true });
    assert.equal(gce.snapshots.all().some((s) => s.name === 'decoy'), false);
  });

  it('a snapshot a disk is being created from is InUse and stays', async () => {
    gce.snapshots.add({ name: 'busy', description: JSON.stringify({ 'kubernetes.io/cluster/kubernetes': 'owned' }) });
    gce.addDisk({ name: 'restoring', status: 'CREATING', sourceSnapshot: handle('busy') });
    await assert.rejects(plugin().deleteSnapshot({ snapshotId: handle('busy'), clusterName: 'kubernetes' }), (e: unknown) => e instanceof PluginError && e.code === 'InUse' && e.retryable);
    assert.ok(gce.snapshots.all().some((s) => s.name === 'busy'));
  });

  it('restore is disks.insert with sourceSnapshot, never smaller than the snapshot', async () => {
    const pv = await sourcePv('pvc-gsnap-src');
    const p = plugin();
    await p.createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-r'));
    const { snapshotId } = await p.createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-r'));
    const restored = await p.provisionFromSnapshot(provisionRequest({ pvName: 'pvc-grestored', requestBytes: 2n * GIB, maxNameLength }), { snapshotId, restoreSize: 10n * GIB });
    const insert = gce.requests.filter((r) => r.action === 'disks.insert').at(-1)?.body as Record<string, unknown>;
    assert.equal(insert.sourceSnapshot, snapshotId);
    assert.equal(insert.sizeGb, '10');
    assert.equal(restored.capacity, '10Gi');
  });

  it('clone is disks.insert with sourceDisk in the source zone; a node in another zone is refused', async () => {
    const pv = await sourcePv('pvc-gclone-src');
    const cloned = await plugin().provisionClone(provisionRequest({ pvName: 'pvc-gclone', maxNameLength }), pv);
    const insert = gce.requests.filter((r) => r.action === 'disks.insert').at(-1)?.body as Record<string, unknown>;
    assert.equal(insert.sourceDisk, `projects/${gce.project}/zones/us-central1-a/disks/kubernetes-dynamic-pvc-gclone-src`);
    assert.equal(cloned.labels?.['topology.kubernetes.io/zone'], 'us-central1-a');
    const req = provisionRequest({ pvName: 'pvc-gclone-b', maxNameLength }, { selectedNode: 'node-b' });
    const zoned = plugin({ topology: { zoneOfNode: async () => 'us-central1-b' } });
    await assert.rejects(zoned.provisionClone(req, pv), (e: unknown) => e instanceof PluginError && e.code === 'InvalidParameter');
  });
});
