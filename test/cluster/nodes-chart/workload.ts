/**
 * Workloads of the chart suite on real nodes: the release's Deployment and DaemonSet waited for
 * Ready (their probes decide), claims, and busybox pods that write to a claim in an init
 * container (its outcome in the termination message, kept in the pod's status) and then hold
 * the volume mounted until a graceful delete ends them.
 */
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { AppsV1Api, CoreV1Api, type KubeConfig, type V1Pod, type V1PersistentVolume, type V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { IMAGE_DIR } from '../../../src/plugins/host-path/image-volume.js';
import { waitFor } from '../../helpers/wait.js';
import { NAMESPACE, RELEASE } from './release.js';

export const AGENT_DAEMONSET = `${RELEASE}-node-agent`;
const READY_MS = 240_000;

export interface Apis {
  core: CoreV1Api;
  apps: AppsV1Api;
}

export function apis(kc: KubeConfig): Apis {
  return { core: kc.makeApiClient(CoreV1Api), apps: kc.makeApiClient(AppsV1Api) };
}

const isReady = (p: V1Pod): boolean => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

export async function controllerPods(api: Apis, namespace = NAMESPACE): Promise<V1Pod[]> {
  const list = await api.core.listNamespacedPod({ namespace, labelSelector: `app.kubernetes.io/name=pv-controller,app.kubernetes.io/instance=${RELEASE}` });
  return list.items.filter((p) => !p.metadata?.deletionTimestamp);
}

export async function agentPods(api: Apis, namespace = NAMESPACE): Promise<V1Pod[]> {
  const list = await api.core.listNamespacedPod({ namespace, labelSelector: `app.kubernetes.io/name=pv-controller-node-agent,app.kubernetes.io/instance=${RELEASE}` });
  return list.items.filter((p) => !p.metadata?.deletionTimestamp);
}

/**
 * The Deployment with `replicas` Ready pods and the DaemonSet with one Ready pod on each of
 * `nodes`: Ready only through the readiness probe each container declares.
 */
export async function waitReleaseReady(api: Apis, replicas: number, nodes: number, namespace = NAMESPACE): Promise<{ controllers: V1Pod[]; agents: V1Pod[] }> {
  return waitFor(async () => {
    const deployment = await api.apps.readNamespacedDeployment({ name: RELEASE, namespace });
    const daemonSet = await api.apps.readNamespacedDaemonSet({ name: AGENT_DAEMONSET, namespace });
    if ((deployment.status?.readyReplicas ?? 0) !== replicas || (daemonSet.status?.numberReady ?? 0) !== nodes) return undefined;
    const controllers = (await controllerPods(api, namespace)).filter(isReady);
    const agents = (await agentPods(api, namespace)).filter(isReady);
    return controllers.length === replicas && agents.length === nodes ? { controllers, agents } : undefined;
  }, `${replicas} controller pod(s) and ${nodes} node agent(s) Ready`, { timeoutMs: READY_MS, intervalMs: 1000 });
}

export async function createClaim(api: Apis, namespace: string, name: string, storageClassName: string, size: string): Promise<V1PersistentVolumeClaim> {
  return api.core.createNamespacedPersistentVolumeClaim({
    namespace,
    body: { metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], storageClassName, resources: { requests: { storage: size } } } },
  });
}

/**
 * A pod whose init container runs `script` (sh) with the claim at /data and leaves what it
 * printed as its termination message; its main container holds the volume until SIGTERM.
 */
export async function createVolumePod(api: Apis, opts: { namespace: string; name: string; claim: string; image: string; script: string }): Promise<V1Pod> {
  const volumeMounts = [{ name: 'data', mountPath: '/data' }];
  return api.core.createNamespacedPod({
    namespace: opts.namespace,
    body: {
      metadata: { name: opts.name, labels: { app: 'nodes-chart-workload' } },
      spec: {
        hostNetwork: true,
        terminationGracePeriodSeconds: 30,
        initContainers: [{
          name: 'write',
          image: opts.image,
          imagePullPolicy: 'Never',
          command: ['sh', '-c', `{ ${opts.script} ; } > /dev/termination-log 2>&1; exit 0`],
          volumeMounts,
        }],
        containers: [{
          name: 'hold',
          image: opts.image,
          imagePullPolicy: 'Never',
          command: ['sh', '-c', 'trap "exit 0" TERM; while true; do sleep 1; done'],
          volumeMounts,
        }],
        volumes: [{ name: 'data', persistentVolumeClaim: { claimName: opts.claim } }],
      },
    },
  });
}

export async function waitPodRunning(api: Apis, namespace: string, name: string): Promise<V1Pod> {
  return waitFor(async () => {
    const pod = await api.core.readNamespacedPod({ name, namespace });
    if (pod.status?.phase === 'Failed') throw new Error(`pod ${name} failed: ${JSON.stringify(pod.status)}`);
    return pod.status?.phase === 'Running' && isReady(pod) ? pod : undefined;
  }, `pod ${namespace}/${name} Running`, { timeoutMs: READY_MS, intervalMs: 500 });
}

/** What the pod's init container printed (its termination message). */
export function writerOutput(pod: V1Pod): string {
  const state = pod.status?.initContainerStatuses?.[0]?.state?.terminated;
  assert.ok(state, `the init container of ${pod.metadata?.name} has terminated`);
  return state.message ?? '';
}

/** Deletes the pod with its grace period and waits until the kubelet has finished it (the object is gone). */
export async function deleteGracefully(api: Apis, namespace: string, name: string): Promise<void> {
  await api.core.deleteNamespacedPod({ name, namespace });
  await waitFor(async () => {
    try {
      await api.core.readNamespacedPod({ name, namespace });
      return false;
    } catch {
      return true;
    }
  }, `pod ${namespace}/${name} to be gone (graceful deletion finished by the kubelet)`, { timeoutMs: 120_000, intervalMs: 500 });
}

export async function boundVolume(api: Apis, namespace: string, claim: string): Promise<{ claim: V1PersistentVolumeClaim; pv: V1PersistentVolume }> {
  const bound = await waitFor(async () => {
    const c = await api.core.readNamespacedPersistentVolumeClaim({ name: claim, namespace });
    return c.status?.phase === 'Bound' ? c : undefined;
  }, `claim ${namespace}/${claim} Bound`, { timeoutMs: READY_MS, intervalMs: 500 });
  return { claim: bound, pv: await api.core.readPersistentVolume({ name: bound.spec?.volumeName ?? '' }) };
}

export async function waitGone(probe: () => Promise<unknown>, what: string, timeoutMs = 120_000): Promise<void> {
  await waitFor(async () => probe().then(() => false, () => true), what, { timeoutMs, intervalMs: 500 });
}

/** The sized-volume images in a node's root. */
export async function imagesIn(root: string): Promise<string[]> {
  return (await readdir(join(root, IMAGE_DIR)).catch(() => [] as string[])).sort();
}

/** Each claim uid with the PVs whose claimRef names it: more than one is a volume made twice. */
export async function volumesByClaim(api: Apis): Promise<Map<string, string[]>> {
  const byClaim = new Map<string, string[]>();
  for (const pv of (await api.core.listPersistentVolume()).items) {
    const uid = pv.spec?.claimRef?.uid;
    if (!uid) continue;
    byClaim.set(uid, [...(byClaim.get(uid) ?? []), pv.metadata?.name ?? '']);
  }
  return byClaim;
}
