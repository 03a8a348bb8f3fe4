/**
 * Issue 24, item 3, end to end: a workload leaves a directory chain 30,000 deep (far beyond
 * PATH_MAX) in its provisioned host-path volume; deleting the claim deletes the directory and
 * then the PV, through the embedded API server and the shipped controller modules. Before the
 * iterative walk, the recursive delete kept a path per level and ran out of heap.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FINALIZER_PV_CONTROLLER } from '@pv-controller/kube/annotations.js';
import { HOST_PATH_PROVISIONER } from '../../src/plugins/host-path/index.js';
import { buildChain, chainDepth, removeDeepTree } from '../helpers/deep-tree.js';
import { TestApi } from './provisioning-helpers.js';
import { claimFor, exists, waitFor, withReclaimCluster } from './reclaim-helpers.js';

const DEPTH = 30_000;
/** The delete itself is seconds on an idle machine; the bound is for a machine shared by many. */
const DELETE_DEADLINE_MS = 600_000;

test(`deleting a claim deletes its host-path directory holding a ${DEPTH.toLocaleString('en')}-deep chain, then its PV`, async () => {
  await withReclaimCluster({ controllerOptions: { syncPeriodMs: 300 } }, async (_cluster, api) => {
    const classes = new TestApi(_cluster.kc);
    let dir: string | undefined;
    try {
      await classes.createClass({ metadata: { name: 'hp-deep' }, provisioner: HOST_PATH_PROVISIONER, reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
      await api.createClaim({ ...claimFor('deep'), spec: { ...claimFor('deep').spec, storageClassName: 'hp-deep' } });
      const bound = await waitFor(async () => {
        const c = await api.claim('deep');
        return c?.status?.phase === 'Bound' ? c : undefined;
      }, 'claim deep to be Bound');
      const pvName = bound.spec.volumeName ?? '';
      const pv = (await api.volume(pvName))!;
      dir = pv.spec.hostPath!.path;
      buildChain(dir, DEPTH);
      assert.equal(chainDepth(dir), DEPTH);
      await waitFor(async () => (await api.volume(pvName))?.metadata.finalizers?.includes(FINALIZER_PV_CONTROLLER), 'our deletion finalizer');

      await api.deleteClaim('deep');
      await waitFor(async () => (await api.volume(pvName)) === undefined, 'the PV to be gone', { timeoutMs: DELETE_DEADLINE_MS, intervalMs: 200 });
      assert.equal(await exists(dir), false, 'the PV went only after its directory');
    } finally {
      classes.close();
      // Whatever happened, nothing deep is left for the cluster's own cleanup (fs.rm cannot reach it).
      if (dir !== undefined && (await exists(dir))) removeDeepTree(dir);
    }
  });
});
