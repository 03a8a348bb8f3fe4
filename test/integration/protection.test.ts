/**
 * The pvc-protection and pv-protection controllers end to end: the embedded server's admission
 * puts the finalizers on; the controllers take them off when nothing uses the object any more.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FINALIZER_PV_PROTECTION, FINALIZER_PVC_PROTECTION } from '@pv-controller/kube/annotations.js';
import type { TestCluster } from '../helpers/cluster.js';
import { ReclaimApi, claimFor, claimSyncsPass, podUsing, staticVolume, volumeSyncsPass, waitFor, withReclaimCluster } from './reclaim-helpers.js';

function withCluster(body: (c: TestCluster, api: ReclaimApi) => Promise<void>): Promise<void> {
  return withReclaimCluster({ controllerOptions: { syncPeriodMs: 300 } }, body);
}

test('deleting a claim completes: admission added pvc-protection, the controller removes it', async () => {
  await withCluster(async (_cluster, api) => {
    const created = await api.createClaim(claimFor('short-lived'));
    assert.deepEqual(created.metadata.finalizers, [FINALIZER_PVC_PROTECTION]);
    await api.deleteClaim('short-lived');
    await waitFor(async () => (await api.claim('short-lived')) === undefined, 'the claim to be gone');
  });
});

test('a claim used by a scheduled pod stays until the pod is gone', async () => {
  await withCluster(async (cluster, api) => {
    await api.createClaim(claimFor('in-use'));
    await api.createPod(podUsing('app', 'in-use'));
    await api.deleteClaim('in-use');
    await claimSyncsPass(cluster.controller!, 3);
    const held = await api.claim('in-use');
    assert.ok(held?.metadata.deletionTimestamp);
    assert.deepEqual(held.metadata.finalizers, [FINALIZER_PVC_PROTECTION]);
    await api.deletePod('app');
    await waitFor(async () => (await api.claim('in-use')) === undefined, 'the claim to be gone after its pod');
  });
});

test('deleting a Bound PV waits until it is released, then it goes', async () => {
  await withCluster(async (cluster, api) => {
    await api.createVolume(staticVolume('pinned', `${cluster.hostPathRoot}/pinned`, 'Retain'));
    await api.createClaim(claimFor('owner', 'pinned'));
    await waitFor(async () => (await api.volume('pinned'))?.status?.phase === 'Bound', 'the PV to be Bound');
    await api.deleteVolume('pinned');
    await volumeSyncsPass(cluster.controller!, 3);
    const held = await api.volume('pinned');
    assert.ok(held?.metadata.deletionTimestamp);
    assert.equal(held.status?.phase, 'Bound');
    assert.deepEqual(held.metadata.finalizers, [FINALIZER_PV_PROTECTION]);
    await api.deleteClaim('owner');
    await waitFor(async () => (await api.volume('pinned')) === undefined, 'the PV to be gone once released');
  });
});
