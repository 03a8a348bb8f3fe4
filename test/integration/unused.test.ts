/**
 * The Unused claim condition (KEP-5541) end to end on the embedded server: the controller's
 * pvc-unused module writes it as kube-controller-manager 1.37 does, kubectl shows it, and
 * `pv-controller usage --unused` reads it back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runKubectl } from '../helpers/apiserver.js';
import type { TestCluster } from '../helpers/cluster.js';
import { runCli } from '../helpers/run-cli.js';
import { ReclaimApi, claimFor, claimSyncsPass, podUsing, staticVolume, waitFor, withReclaimCluster } from './reclaim-helpers.js';

const UNUSED = '{.status.conditions[?(@.type=="Unused")]';

/** The claim's Unused condition as kubectl's jsonpath prints it: status, reason, message, lastTransitionTime. */
async function unusedByKubectl(cluster: TestCluster, claim: string): Promise<string[]> {
  const out = await runKubectl(['get', 'pvc', claim, '-o', `jsonpath=${UNUSED}.status}|${UNUSED}.reason}|${UNUSED}.message}|${UNUSED}.lastTransitionTime}`], cluster.api.server.kubeconfigPath);
  assert.equal(out.code, 0, out.stderr);
  return out.stdout.split('|');
}

async function waitForUnused(cluster: TestCluster, claim: string, status: string): Promise<string[]> {
  let seen: string[] = [];
  await waitFor(async () => (seen = await unusedByKubectl(cluster, claim))[0] === status, `claim ${claim} Unused=${status}`);
  return seen;
}

async function boundClaim(cluster: TestCluster, api: ReclaimApi, name: string): Promise<void> {
  await api.createVolume(staticVolume(`pv-${name}`, `${cluster.hostPathRoot}/${name}`, 'Retain'));
  await api.createClaim(claimFor(name, `pv-${name}`));
  await waitFor(async () => (await api.claim(name))?.status?.phase === 'Bound', `claim ${name} Bound`);
}

test('a Bound claim is Unused=True, False while a pod references it, True again once the pod is gone; kubectl shows each with its time', async () => {
  await withReclaimCluster({ controllerOptions: { syncPeriodMs: 300 } }, async (cluster, api) => {
    await boundClaim(cluster, api, 'data');
    const [, reason, message, first] = await waitForUnused(cluster, 'data', 'True');
    assert.deepEqual([reason, message], ['NoPodsUsingPVC', 'No pods are currently referencing this PVC']);
    assert.match(first, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // As kube-apiserver serves a condition's unset time: null, not absent.
    const json = JSON.parse((await runKubectl(['get', 'pvc', 'data', '-o', 'json'], cluster.api.server.kubeconfigPath)).stdout) as { status: { conditions: Record<string, unknown>[] } };
    assert.equal(json.status.conditions.find((c) => c.type === 'Unused')?.lastProbeTime, null);

    await api.createPod(podUsing('app', 'data'));
    const [, usedReason, usedMessage, used] = await waitForUnused(cluster, 'data', 'False');
    assert.deepEqual([usedReason, usedMessage], ['PodUsingPVC', 'A pod is currently referencing this PVC']);
    assert.ok(Date.parse(used) >= Date.parse(first), `${used} is not before ${first}`);

    await api.deletePod('app');
    const [, , , again] = await waitForUnused(cluster, 'data', 'True');
    assert.ok(Date.parse(again) >= Date.parse(used), `${again} is not before ${used}`);
  });
});

test('a Pending claim gets no Unused condition, and an unscheduled pod keeps a claim in use', async () => {
  await withReclaimCluster({ controllerOptions: { syncPeriodMs: 300 } }, async (cluster, api) => {
    await api.createClaim(claimFor('waiting', 'pv-that-does-not-exist'));
    await boundClaim(cluster, api, 'planned');
    await api.createPod({ ...podUsing('later', 'planned'), spec: { containers: [{ name: 'app', image: 'busybox' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'planned' } }] } });
    await waitForUnused(cluster, 'planned', 'False');
    await claimSyncsPass(cluster.controller!, 6);
    assert.deepEqual(await unusedByKubectl(cluster, 'waiting'), ['', '', '', '']);
  });
});

test('--controllers=-pvc-unused leaves claims without the condition', async () => {
  await withReclaimCluster({ controllerOptions: { syncPeriodMs: 300, controllers: ['binder', 'provisioner', 'reclaimer', 'pvc-protection', 'pv-protection'] } }, async (cluster, api) => {
    await boundClaim(cluster, api, 'quiet');
    await claimSyncsPass(cluster.controller!, 6);
    assert.equal((await api.claim('quiet'))?.status?.conditions, undefined);
  });
});

test('pv-controller usage --unused lists the claims no pod uses with their size, and the ones it cannot tell about with why', async () => {
  await withReclaimCluster({ controllerOptions: { syncPeriodMs: 300 } }, async (cluster, api) => {
    await boundClaim(cluster, api, 'idle');
    await boundClaim(cluster, api, 'busy');
    await api.createClaim(claimFor('waiting', 'pv-that-does-not-exist'));
    await api.createPod(podUsing('app', 'busy'));
    await waitForUnused(cluster, 'idle', 'True');
    await waitForUnused(cluster, 'busy', 'False');
    const kubeconfig = cluster.api.server.kubeconfigPath;

    const now = await runCli(['usage', '--unused', '--for', '0', '--kubeconfig', kubeconfig]);
    assert.equal(now.code, 0, now.stderr);
    const lines = now.stdout.trimEnd().split('\n');
    assert.match(lines[0], /^NAMESPACE\s+NAME\s+CAPACITY\s+UNUSED FOR\s+UNUSED SINCE\s+NOTE$/);
    assert.match(lines[1], /^default\s+idle\s+1Gi\s+\d+s\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.match(lines[2], /^default\s+waiting\s+-\s+unknown\s+-\s+Pending: only Bound claims carry the Unused condition$/);
    assert.equal(lines[3], '1 claim unused for at least 0, 1Gi in all; 1 unknown');
    assert.equal(lines.length, 4, now.stdout);

    const week = await runCli(['usage', '--unused', '--kubeconfig', kubeconfig, '-o', 'json']);
    assert.equal(week.code, 0, week.stderr);
    const parsed = JSON.parse(week.stdout) as { unusedForAtLeastSeconds: number; claims: { claim: string; state: string }[] };
    assert.equal(parsed.unusedForAtLeastSeconds, 7 * 86_400, 'the default --for is 7d');
    assert.deepEqual(parsed.claims.map((c) => [c.claim, c.state]), [['waiting', 'unknown']]);

    const bad = await runCli(['usage', '--unused', '--for', 'a week', '--kubeconfig', kubeconfig]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /invalid duration "a week"/);
    const alone = await runCli(['usage', '--for', '7d', '--kubeconfig', kubeconfig]);
    assert.equal(alone.code, 2);
    assert.match(alone.stderr, /--for needs --unused/);
  });
});
