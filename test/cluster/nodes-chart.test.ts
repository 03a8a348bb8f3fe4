/**
 * The chart, for real (issue 28): `helm install` of charts/pv-controller with the project's
 * image on two real nodes (kubelet + containerd, tools/cluster/nodes.ts) under the real control
 * plane. The controller Deployment (two replicas, leader election) and the node-agent DaemonSet
 * run from the image and are Ready through their probes; `helm test`'s pod runs on a node and
 * finds the leader holding the Lease; a workload pod writes to a sized volume
 * of the chart's class until ENOSPC at the size, and after the pod's graceful delete and the
 * claim's the volume, its image, mount and loop device are gone; the leader's pod deleted, the
 * other replica leads within the lease duration and no claim gets two volumes; `kubectl drain`
 * of a node and the Node deleted take the node-gone path (docs/operations.md) with a real Node.
 *
 * The pods use the host's network (no CNI plugin here) and reach kube-apiserver at 127.0.0.1
 * (the chart's hostNetwork and apiServer values); each node keeps its volumes in
 * <root>/<node name> (nodeAgent.rootPerNode), since both nodes share this machine's disk.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { findKubectl } from '../../tools/cluster/binaries.js';
import { mountsUnder } from '../../tools/cluster/node-cleanup.js';
import { CHART_DIR } from '../../tools/chart/manifests.js';
import { waitFor } from '../helpers/wait.js';
import { loopsUnder, makeSharedRoot, removeVolumesRoot } from './nodes-chart/cleanup.js';
import { podLeads, readLease } from './nodes-chart/leader.js';
import { CONTROLLER_IMAGE, realNodesSkip, startChartCluster, WORKLOAD_IMAGE, type ChartCluster } from './nodes-chart/real-nodes.js';
import { installChart, NAMESPACE, PLAIN_CLASS, RELEASE, releasePorts, runHelm, SIZED_CLASS, writeNodeValues, type ReleasePorts } from './nodes-chart/release.js';
import {
  apis, boundVolume, controllerPods, createClaim, createVolumePod, deleteGracefully, imagesIn,
  volumesByClaim, waitGone, waitPodRunning, waitReleaseReady, writerOutput, type Apis,
} from './nodes-chart/workload.js';

const run = promisify(execFile);
const skip = realNodesSkip();
const NS = 'default';
const SIZE_BYTES = 16 * 1024 * 1024;

describe('the chart on real nodes', { skip, timeout: 1_200_000 }, () => {
  let work = '';
  let root = '';
  let cluster: ChartCluster | undefined;
  let api: Apis;
  let ports: ReleasePorts;
  const image = WORKLOAD_IMAGE;
  const node = (name: string) => cluster?.nodes.find((n) => n.name === name);

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'pv-nodes-chart-'));
    root = join(work, 'volumes');
    await mkdir(root);
    makeSharedRoot(root);
    cluster = await startChartCluster(work, 2);
    api = apis(cluster.plane.admin());
    ports = await releasePorts();
    const values = await writeNodeValues(work, { apiServerPort: cluster.apiServerPort, root, ports, replicas: 2, perNode: true, nodeGoneDelay: '5s' });
    await installChart(work, cluster.plane.kubeconfigPath, CHART_DIR, values);
  });

  after(async () => {
    try {
      await cluster?.stop();
    } finally {
      if (work) await removeVolumesRoot(root, work);
    }
  });

  test('helm install: two controller replicas and a node agent on each node run from the image, Ready through their probes', async () => {
    const { controllers, agents } = await waitReleaseReady(api, 2, 2);
    assert.equal(new Set(controllers.map((p) => p.spec?.nodeName)).size, 2, 'one replica per node (the metrics port is the node\'s)');
    assert.equal(new Set(agents.map((p) => p.spec?.nodeName)).size, 2, 'an agent on each node');
    for (const [pod, port] of [...controllers.map((p) => [p, ports.controller] as const), ...agents.map((p) => [p, ports.agent] as const)]) {
      const container = pod.spec?.containers[0];
      assert.equal(container?.image, `${CONTROLLER_IMAGE.repository}:${CONTROLLER_IMAGE.tag}`);
      assert.equal(container?.readinessProbe?.httpGet?.port, 'metrics', 'Ready comes from the /readyz probe');
      assert.equal(pod.status?.containerStatuses?.[0]?.restartCount, 0, `${pod.metadata?.name} never restarted (liveness probe passing)`);
      for (const path of ['/readyz', '/healthz']) {
        const res = await fetch(`http://${pod.status?.podIP}:${port}${path}`);
        assert.equal(res.status, 200, `${pod.metadata?.name} answers ${path} where its probes look`);
      }
    }
  });

  test('helm test: the chart\'s test pod runs from the image on a node, finds the leader holding the Lease, and is removed after it succeeds', async () => {
    const kubeconfig = cluster?.plane.kubeconfigPath ?? '';
    const out = await runHelm(work, kubeconfig, ['test', RELEASE, '--namespace', NAMESPACE, '--logs', '--timeout', '180s']);
    assert.match(out, /Phase:\s+Succeeded/, out);
    assert.match(out, /leader \S+ renewed the Lease \d+ s ago/, `the check read the Lease through the ServiceAccount:\n${out}`);
    const left = await api.core.listNamespacedPod({ namespace: NAMESPACE, fieldSelector: `metadata.name=${RELEASE}-test` });
    assert.ok(left.items.every((p) => p.metadata?.deletionTimestamp), 'the hook pod is deleted once it succeeded (hook-delete-policy)');
  });

  test('a workload pod writes to a sized volume of the chart\'s class until ENOSPC at the size; after the pod\'s graceful delete and the claim\'s, volume, image, mount and loop device are gone', async () => {
    await createClaim(api, NS, 'sized', SIZED_CLASS, '16Mi');
    const script = 'echo kept > /data/kept && dd if=/dev/zero of=/data/fill bs=65536 count=1024; echo "dd-exit=$?"; stat -c "fill-bytes=%s" /data/fill';
    await createVolumePod(api, { namespace: NS, name: 'sized-writer', claim: 'sized', image, script });
    const pod = await waitPodRunning(api, NS, 'sized-writer');
    const out = writerOutput(pod);
    assert.match(out, /No space left on device/, out);
    assert.doesNotMatch(out, /dd-exit=0\b/, out);
    const written = Number(/fill-bytes=(\d+)/.exec(out)?.[1] ?? NaN);
    assert.ok(written > 0 && written <= SIZE_BYTES, `the pod wrote ${written} bytes, at most the claim's 16Mi`);

    const { pv } = await boundVolume(api, NS, 'sized');
    const nodeName = pod.spec?.nodeName ?? '';
    const nodeRoot = join(root, nodeName);
    const path = pv.spec?.local?.path ?? '';
    assert.ok(path.startsWith(`${nodeRoot}/`), `the volume ${path} is in its node's root ${nodeRoot}`);
    assert.ok(mountsUnder(path).includes(path), 'the volume\'s filesystem is mounted on the node while the pod runs');
    assert.equal((await imagesIn(nodeRoot)).length, 1, 'one image backs it');
    assert.equal(loopsUnder(nodeRoot).length, 1, 'one loop device backs it');

    await deleteGracefully(api, NS, 'sized-writer');
    await api.core.deleteNamespacedPersistentVolumeClaim({ name: 'sized', namespace: NS });
    await waitGone(() => api.core.readPersistentVolume({ name: pv.metadata?.name ?? '' }), `PV ${pv.metadata?.name} to be deleted`);
    await waitFor(async () => (await imagesIn(nodeRoot)).length === 0, 'the image to be removed', { timeoutMs: 60_000, intervalMs: 500 });
    assert.deepEqual(mountsUnder(path), [], 'no mount is left');
    assert.deepEqual(loopsUnder(nodeRoot), [], 'no loop device is left');
    await assert.rejects(stat(path), 'the volume directory is gone');
  });

  test('the leader\'s pod deleted: another replica leads within the lease duration, and no claim gets two volumes', async (t) => {
    const pods = await controllerPods(api);
    assert.equal(pods.length, 2);
    assert.equal(new Set(pods.map((p) => p.status?.podIP)).size, 2, 'the nodes have addresses of their own (each replica serves its metrics on its node\'s)');
    const leading = await waitFor(async () => {
      const flags = await Promise.all(pods.map((p) => podLeads(p, ports.controller)));
      return flags.filter(Boolean).length === 1 ? pods[flags.indexOf(true)] : undefined;
    }, 'exactly one replica to lead', { timeoutMs: 60_000, intervalMs: 500 });
    const standby = pods.find((p) => p !== leading)!;
    const before = await readLease(cluster!.plane.admin());

    const claims = ['fo-1', 'fo-2', 'fo-3', 'fo-4', 'fo-5', 'fo-6'];
    const start = async (name: string) => {
      await createClaim(api, NS, name, PLAIN_CLASS, '1Mi');
      await createVolumePod(api, { namespace: NS, name, claim: name, image, script: `echo ${name} > /data/id` });
    };
    for (const name of claims.slice(0, 3)) await start(name);
    const deletedAt = Date.now();
    await api.core.deleteNamespacedPod({ name: leading.metadata?.name ?? '', namespace: leading.metadata?.namespace ?? '' });
    for (const name of claims.slice(3)) await start(name);

    const after = await waitFor(async () => {
      const lease = await readLease(cluster!.plane.admin());
      // A released Lease has no holder: wait for the standby's name in it.
      return lease.holder !== '' && lease.holder !== before.holder && lease.renewTime >= deletedAt - 1000 ? lease : undefined;
    }, 'another replica to take the Lease', { timeoutMs: 4 * before.durationSeconds * 1000, intervalMs: 200 });
    const took = Date.now() - deletedAt;
    t.diagnostic(`leader ${before.holder} → ${after.holder} in ${took} ms (lease duration ${before.durationSeconds} s)`);
    assert.ok(took <= before.durationSeconds * 1000, `the standby led ${took} ms after the leader's pod was deleted, beyond the ${before.durationSeconds} s lease`);
    // The leader releases the Lease as it stops, so whichever replica asks first takes it: the
    // standby at its next retry, or the pod the Deployment starts in the deleted one's place
    // (seen in a cold CI run: the Lease moved in 1.9 s and the standby never led). Either is
    // right; what must hold is that exactly one live replica, not the deleted one, says it leads.
    const leader = await waitFor(async () => {
      const live = (await controllerPods(api)).filter((p) => p.metadata?.name !== leading.metadata?.name);
      const flags = await Promise.all(live.map((p) => podLeads(p, ports.controller).catch(() => false)));
      return flags.filter(Boolean).length === 1 ? live[flags.indexOf(true)] : undefined;
    }, 'exactly one live replica but the deleted one to say it leads', { timeoutMs: 60_000, intervalMs: 500 });
    t.diagnostic(`leading now: ${leader.metadata?.name} (${leader.metadata?.name === standby.metadata?.name ? 'the standby' : 'the deleted leader\'s replacement'})`);

    const uids: string[] = [];
    for (const name of claims) {
      uids.push((await boundVolume(api, NS, name)).claim.metadata?.uid ?? '');
      await waitPodRunning(api, NS, name);
    }
    const byClaim = await volumesByClaim(api);
    for (const [i, uid] of uids.entries()) assert.equal(byClaim.get(uid)?.length, 1, `claim ${claims[i]} has exactly one volume: ${byClaim.get(uid)?.join(', ')}`);
    const events = (await api.core.listNamespacedEvent({ namespace: NS })).items;
    for (const name of claims) {
      const made = events.filter((e) => e.involvedObject.name === name && e.reason === 'ProvisioningSucceeded');
      assert.ok(made.reduce((n, e) => n + (e.count ?? 1), 0) <= 1, `claim ${name} was provisioned once`);
    }
    await Promise.all(claims.map((name) => deleteGracefully(api, NS, name)));
    for (const name of claims) await api.core.deleteNamespacedPersistentVolumeClaim({ name, namespace: NS });
    await waitFor(async () => {
      const left = await volumesByClaim(api);
      return uids.every((uid) => !left.has(uid));
    }, 'the claims\' volumes to be deleted', { timeoutMs: 120_000, intervalMs: 500 });
  });

  test('kubectl drain of a node, then the Node deleted: its volume of a Delete class is released and its claim re-created (node-gone)', async () => {
    // Both replicas back (the failover's replacement Ready), or the disruption budget refuses the drain's eviction.
    await waitReleaseReady(api, 2, 2);
    await createClaim(api, NS, 'gone-data', PLAIN_CLASS, '1Mi');
    await createVolumePod(api, { namespace: NS, name: 'gone-pod', claim: 'gone-data', image, script: 'echo precious > /data/file' });
    const pod = await waitPodRunning(api, NS, 'gone-pod');
    const { claim, pv } = await boundVolume(api, NS, 'gone-data');
    const nodeName = pod.spec?.nodeName ?? '';
    const path = pv.spec?.local?.path ?? '';
    const kubeconfig = cluster!.plane.kubeconfigPath;
    const kubectl = findKubectl() ?? 'kubectl';

    await run(kubectl, ['--kubeconfig', kubeconfig, 'drain', nodeName, '--ignore-daemonsets', '--delete-emptydir-data', '--force', '--timeout=180s']);
    await waitGone(() => api.core.readNamespacedPod({ name: 'gone-pod', namespace: NS }), 'the drained pod to be gone');
    await waitFor(async () => (await controllerPods(api)).some((p) => p.spec?.nodeName !== nodeName && p.status?.phase === 'Running'), 'a controller replica on the other node');
    // The machine gone: its kubelet stops (its containers keep running, as on a partitioned node).
    await node(nodeName)?.kubelet.stop();
    await run(kubectl, ['--kubeconfig', kubeconfig, 'delete', 'node', nodeName]);

    await waitGone(() => api.core.readPersistentVolume({ name: pv.metadata?.name ?? '' }), `PV ${pv.metadata?.name} of the gone node to be deleted`, 180_000);
    const recreated = await waitFor(async () => {
      const c = await api.core.readNamespacedPersistentVolumeClaim({ name: 'gone-data', namespace: NS }).catch(() => undefined);
      return c && c.metadata?.uid !== claim.metadata?.uid ? c : undefined;
    }, 'the claim to be re-created', { timeoutMs: 60_000, intervalMs: 500 });
    assert.equal(recreated.spec?.volumeName ?? '', '', 'the new claim waits for a volume on another node');
    const events = (await api.core.listNamespacedEvent({ namespace: NS })).items.map((e) => e.reason);
    assert.ok(events.includes('NodeGoneClaimRecreated'), `events: ${events.join(', ')}`);
    assert.ok((await stat(join(path, 'file'))).isFile(), 'the data stays on the gone node\'s disk (docs/operations.md)');
  });
});
