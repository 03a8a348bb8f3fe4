/**
 * The side by side's cluster: a fresh etcd + kube-apiserver, kube-scheduler, and
 * kube-controller-manager's persistent-volume controllers (they bind for both provisioners, so
 * binding costs the same on each side), one real node (kubelet + containerd, nodes-api.ts) with
 * its busybox image, and the objects of objects.ts. Then each side in turn
 * (run-side.ts) with the same workload, on the same node: local-path-provisioner as a host
 * process with the admin kubeconfig, and our node agent the same way (the identity, QPS and
 * node are the same for both).
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { controlPlaneUnavailable } from '../../tools/cluster/binaries.js';
import { KCM_PV_CONTROLLERS, startControlPlane, type ControlPlane } from '../../tools/cluster/control-plane.js';
import { localPathBinaryPath, localPathUnavailable } from '../../tools/cluster/local-path-build.js';
import { startProcess } from '../../tools/cluster/processes.js';
import { imageSupportProblem } from '../../src/plugins/host-path/image-volume.js';
import { connect, expectOk, type BenchClient } from '../client/kube-client.js';
import { findKubepods, type CgroupLayout } from './accounting.js';
import { BENCH_IMAGE, benchNodesUnavailable, startBenchNodes, type BenchNodes } from './nodes-api.js';
import { localPathArgs, localPathObjects, SIDES, storageClass, WORKLOAD_NAMESPACE, type Side } from './objects.js';
import { runSide, type SideResult } from './run-side.js';

const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
/** local-path-provisioner's worker threads (its default is 4): each may hold one helper pod. */
export const LOCAL_PATH_WORKERS = 4;

export interface SideBySide {
  plane: ControlPlane;
  nodes: BenchNodes;
  client: BenchClient;
  image: string;
  cgroups: CgroupLayout | undefined;
  dir: string;
  stop(): Promise<void>;
}

/** Why the side by side cannot run here, or undefined. */
export function sideBySideUnavailable(): string | undefined {
  return controlPlaneUnavailable() ?? localPathUnavailable() ?? benchNodesUnavailable() ?? imageSupportProblem();
}

async function apply(client: BenchClient, collection: string, obj: Record<string, unknown>): Promise<void> {
  const res = await client.raw('POST', collection, JSON.stringify(obj));
  if (res.status !== 409) expectOk(res, `create ${collection}`);
}

export async function startSideBySide(dir: string, maxPods: number): Promise<SideBySide> {
  mkdirSync(dir, { recursive: true });
  const plane = await startControlPlane({ dir: join(dir, 'plane'), nodes: 1 });
  const stops: Array<() => Promise<void>> = [() => plane.stop()];
  const stop = async (): Promise<void> => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
  };
  try {
    await plane.startScheduler();
    // The node-lifecycle controller lifts the new node's not-ready taint.
    await plane.startControllerManager({ controllers: [...KCM_PV_CONTROLLERS, 'node-lifecycle-controller'], qps: 1000, burst: 1000, syncPeriod: '15s' });
    const nodes = await startBenchNodes(plane, join(dir, 'nodes'), maxPods);
    stops.push(() => nodes.stop());
    const client = await connect(plane.kubeconfigPath);
    stops.push(async () => client.close());
    await apply(client, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: WORKLOAD_NAMESPACE } });
    await apply(client, `/api/v1/namespaces/${WORKLOAD_NAMESPACE}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
    for (const side of SIDES) await apply(client, '/apis/storage.k8s.io/v1/storageclasses', storageClass(side));
    return { plane, nodes, client, image: BENCH_IMAGE, cgroups: findKubepods('/sys/fs/cgroup', nodes.nodes[0].cgroupRoot), dir, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Each side's root on the node: fresh per run, removed afterwards (its leftovers counted first). */
export function sideRoot(ctx: SideBySide, side: Side, run: string): string {
  return join(ctx.dir, 'roots', `${side}-${run}`);
}

async function startLocalPath(ctx: SideBySide, root: string, logDir: string): Promise<() => ReturnType<typeof startProcess>> {
  const ns = (path: string): string => `/api/v1/namespaces/local-path-storage/${path}`;
  const [namespace, account, configMap] = localPathObjects(root, ctx.image);
  await apply(ctx.client, '/api/v1/namespaces', namespace);
  await apply(ctx.client, ns('serviceaccounts'), account);
  // A fresh ConfigMap per run: the root differs, and the provisioner reads it when it starts.
  const cm = await ctx.client.raw('DELETE', ns('configmaps/local-path-config'));
  if (cm.status !== 404) expectOk(cm, 'delete the local-path ConfigMap');
  await apply(ctx.client, ns('configmaps'), configMap);
  return () => startProcess('local-path-provisioner', localPathBinaryPath(), localPathArgs(ctx.plane.kubeconfigPath, ctx.image, LOCAL_PATH_WORKERS), join(logDir, 'local-path-provisioner.log'), logDir);
}

function ourAgent(ctx: SideBySide, node: string, root: string, logDir: string): () => ReturnType<typeof startProcess> {
  const args = [
    CLI, 'node-agent', '--kubeconfig', ctx.plane.kubeconfigPath, '--node-name', node, '--host-path-root', root,
    '--capacity-namespace', 'kube-system', '--leader-elect', 'true', '--leader-elect-resource-namespace', 'kube-system',
    '--metrics-bind-address', '0', '--kube-api-qps', '1000', '--kube-api-burst', '1000',
  ];
  return () => startProcess('pv-controller node-agent', process.execPath, args, join(logDir, 'node-agent.log'), logDir);
}

/** One run of `side` with `n` claims; its root is removed once its leftovers are counted. */
export async function runOneSide(ctx: SideBySide, side: Side, n: number, run: string, opts: { concurrency: number; timeoutMs: number }): Promise<SideResult> {
  const node = ctx.nodes.nodes[0];
  const root = sideRoot(ctx, side, run);
  const logDir = join(ctx.dir, 'logs', `${side}-${run}`);
  mkdirSync(root, { recursive: true });
  mkdirSync(logDir, { recursive: true });
  const start = side === 'local-path' ? await startLocalPath(ctx, root, logDir) : ourAgent(ctx, node.name, root, logDir);
  const result = await runSide(
    {
      side, client: ctx.client, node, root, image: ctx.image, start, cgroups: ctx.cgroups,
      podReserve: LOCAL_PATH_WORKERS + 2, concurrency: opts.concurrency, timeoutMs: opts.timeoutMs,
    },
    n,
    logDir,
  );
  if (result.leftovers.mounts.length === 0 && result.leftovers.loopDevices.length === 0) rmSync(root, { recursive: true, force: true });
  return result;
}
