/**
 * `helm upgrade` from the previous chart version on a real node (issue 28): the previous chart
 * (the newest release tag; with none yet, main's chart or the one before its last change —
 * release.ts previousChartRef) is packaged from `git archive`, installed with the project's
 * image, and given claims — a sized one and a plain directory — with pods writing to them; then
 * the release is upgraded to the working tree's chart. Every PV, binding, byte written and pod
 * survives, and nothing is provisioned twice.
 *
 * The previous chart predates the hostNetwork and apiServer values this network-less node needs:
 * its pod templates get the host's network and KUBERNETES_SERVICE_HOST/PORT (release.ts
 * onHostNetwork), nothing else of it changes.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CHART_DIR } from '../../tools/chart/manifests.js';
import { waitFor } from '../helpers/wait.js';
import { makeSharedRoot, removeVolumesRoot } from './nodes-chart/cleanup.js';
import { realNodesSkip, startChartCluster, WORKLOAD_IMAGE } from './nodes-chart/real-nodes.js';
import {
  chartAt, installChart, onHostNetwork, PLAIN_CLASS, previousChartRef, RELEASE, releasePorts, runHelm, SIZED_CLASS, upgradeChart, writeNodeValues,
} from './nodes-chart/release.js';
import { apis, boundVolume, controllerPods, createClaim, createVolumePod, volumesByClaim, waitPodRunning, waitReleaseReady, writerOutput, type Apis } from './nodes-chart/workload.js';

const skip = realNodesSkip();
const NS = 'default';
/**
 * The release's namespace. Not kube-system: for its first minutes the previous chart's RBAC runs
 * today's image (the only one built here), a pairing no user runs, so its ServiceAccount stays
 * out of test:cluster's audit check of kube-system:pv-controller (nodes-chart.test.ts is audited).
 */
const RELEASE_NS = 'pv-upgrade';

interface Snapshot {
  pvs: Map<string, string>;
  pods: Map<string, string>;
}

/** Each claim's PV (name@uid) and each workload pod's uid. */
async function snapshot(api: Apis, claims: string[]): Promise<Snapshot> {
  const pvs = new Map<string, string>();
  const pods = new Map<string, string>();
  for (const name of claims) {
    const { pv } = await boundVolume(api, NS, name);
    pvs.set(name, `${pv.metadata?.name}@${pv.metadata?.uid}`);
    const pod = await waitPodRunning(api, NS, name);
    pods.set(name, pod.metadata?.uid ?? '');
  }
  return { pvs, pods };
}

test('helm upgrade from the previous chart version keeps every volume, binding, byte and pod, and provisions nothing twice', { skip, timeout: 900_000 }, async (t) => {
  const work = await mkdtemp(join(tmpdir(), 'pv-nodes-upgrade-'));
  const root = join(work, 'volumes');
  await mkdir(root);
  makeSharedRoot(root);
  let cluster: Awaited<ReturnType<typeof startChartCluster>> | undefined;
  try {
    cluster = await startChartCluster(work, 1);
    const api = apis(cluster.plane.admin());
    const kubeconfig = cluster.plane.kubeconfigPath;
    const image = WORKLOAD_IMAGE;
    const ports = await releasePorts();
    const previous = await previousChartRef();
    t.diagnostic(`previous chart: ${previous.ref} (${previous.why})`);
    const oldChart = await chartAt(previous.ref, work);
    await onHostNetwork(oldChart, cluster.apiServerPort);
    const common = { apiServerPort: cluster.apiServerPort, root, ports, replicas: 1, perNode: false };
    await api.core.createNamespace({ body: { metadata: { name: RELEASE_NS } } });
    await installChart(work, kubeconfig, oldChart, await writeNodeValues(work, { ...common, previous: true }), RELEASE_NS);
    await waitReleaseReady(api, 1, 1, RELEASE_NS);

    const claims = [['up-sized', SIZED_CLASS, '16Mi'], ['up-plain', PLAIN_CLASS, '1Mi']] as const;
    for (const [name, cls, size] of claims) {
      await createClaim(api, NS, name, cls, size);
      await createVolumePod(api, { namespace: NS, name, claim: name, image, script: `echo ${name}-before-upgrade > /data/marker` });
    }
    const names = claims.map(([n]) => n);
    const before = await snapshot(api, names);
    const oldControllers = new Set((await controllerPods(api, RELEASE_NS)).map((p) => p.metadata?.uid));

    await upgradeChart(work, kubeconfig, CHART_DIR, await writeNodeValues(work, common), RELEASE_NS);
    // The rollout: a new controller pod from the new template, Ready.
    await waitFor(async () => {
      const pods = await controllerPods(api, RELEASE_NS);
      return pods.length === 1 && !oldControllers.has(pods[0].metadata?.uid) ? pods : undefined;
    }, 'the upgraded controller pod', { timeoutMs: 240_000, intervalMs: 1000 });
    await waitReleaseReady(api, 1, 1, RELEASE_NS);
    const history = JSON.parse(await runHelm(work, kubeconfig, ['history', RELEASE, '--namespace', RELEASE_NS, '-o', 'json'])) as Array<{ revision: number; status: string }>;
    assert.deepEqual(history.map((h) => [h.revision, h.status]), [[1, 'superseded'], [2, 'deployed']]);

    const after = await snapshot(api, names);
    assert.deepEqual(after.pvs, before.pvs, 'every claim is bound to the same PV (name and uid)');
    assert.deepEqual(after.pods, before.pods, 'the workload pods were not replaced');
    const byClaim = await volumesByClaim(api);
    assert.equal(byClaim.size, names.length, 'no volume was made for anyone else');
    for (const uids of byClaim.values()) assert.equal(uids.length, 1, `one volume per claim: ${uids.join(', ')}`);

    // The data, read back by new pods on the same volumes after the upgrade.
    for (const name of names) {
      const reader = `${name}-reader`;
      await createVolumePod(api, { namespace: NS, name: reader, claim: name, image, script: 'cat /data/marker' });
      const pod = await waitPodRunning(api, NS, reader);
      assert.equal(writerOutput(pod).trim(), `${name}-before-upgrade`);
      const pvs = await api.core.listPersistentVolume();
      assert.equal(pvs.items.length, names.length, 'the readers made no volume');
    }
  } finally {
    try {
      await cluster?.stop();
    } finally {
      await removeVolumesRoot(root, work);
    }
  }
});
