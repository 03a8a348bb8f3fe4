/**
 * The pieces of a multi-node cluster without kubelets, for multinode.test.ts: Node objects
 * kube-scheduler will place pods on, one `pv-controller node-agent` per node in a private mount
 * namespace of its own, and a look into a node agent's namespace (its files, mounts and loop
 * devices) from the test runner's.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LABEL_HOSTNAME } from '@pv-controller/kube/annotations.js';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { parseMountInfo } from '../../../src/plugins/fs-common/mount-points.js';
import { IMAGE_DIR } from '../../../src/plugins/host-path/image-volume.js';
import { NODE_HOST_PATH_PROVISIONER } from '../../../src/plugins/host-path/index.js';
import { startProcess, type ManagedProcess } from '../../../tools/cluster/processes.js';
import { mountNamespaceCommand } from '../../helpers/mount-namespace.js';
import { TestRestClient } from '../../helpers/rest-client.js';

const AGENT_SANDBOX = fileURLToPath(new URL('./agent-sandbox.js', import.meta.url));

interface NodeObject extends KubeObject {
  spec?: { taints?: unknown[] };
  status?: Record<string, unknown>;
}

export interface CapacityObject extends KubeObject {
  storageClassName: string;
  capacity?: string;
  maximumVolumeSize?: string;
  nodeTopology?: { matchLabels?: Record<string, string> };
}

/** The REST calls of the multi-node run, as the admin. */
export class ClusterApi extends TestRestClient {
  post<T extends object>(path: string, apiVersion: string, kind: string, body: T): Promise<T> {
    return this.create(path, apiVersion, kind, body);
  }
  get<T>(path: string): Promise<T | undefined> {
    return this.getOrUndefined<T>(path);
  }
  put<T>(path: string, body: T): Promise<T> {
    return this.update(path, body);
  }
  items<T extends KubeObject>(path: string): Promise<T[]> {
    return this.list<T>(path);
  }
  delete(path: string): Promise<void> {
    return this.remove(path);
  }
  /** Deletes at once (grace period 0): with no kubelet, a graceful delete of a placed pod never ends. */
  async deleteNow(path: string): Promise<void> {
    await this.transport.request({ method: 'DELETE', verb: 'delete', path, query: { gracePeriodSeconds: 0 } });
  }
}

/**
 * A Node kube-scheduler places pods on, with no kubelet behind it. What the scheduler needs
 * (kube-scheduler v1.37, found by trying): no untolerated NoSchedule taint — the TaintNodesByCondition
 * admission plugin adds `node.kubernetes.io/not-ready:NoSchedule` to every new Node, and only
 * kube-controller-manager's node-lifecycle controller lifts it once a kubelet reports Ready —
 * and an allocatable `pods` count (NodeResourcesFit answers "Too many pods" without one; cpu and
 * memory only matter for pods that request them). The Ready condition is not read by the
 * scheduler; it is set too, so the Node looks like a working one to anything else.
 */
export async function addSchedulableNode(api: ClusterApi, name: string): Promise<void> {
  const path = `/api/v1/nodes/${name}`;
  await api.post<NodeObject>('/api/v1/nodes', 'v1', 'Node', { metadata: { name, labels: { [LABEL_HOSTNAME]: name } } });
  const created = await api.get<NodeObject>(path);
  if (!created) throw new Error(`node ${name} vanished`);
  await api.put(path, { ...created, spec: { ...created.spec, taints: [] } });
  const current = await api.get<NodeObject>(path);
  if (!current) throw new Error(`node ${name} vanished`);
  const resources = { cpu: '4', memory: '8Gi', pods: '110' };
  const now = new Date().toISOString();
  const ready = { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'no kubelet: set by the test', lastHeartbeatTime: now, lastTransitionTime: now };
  await api.put(`${path}/status`, { ...current, status: { ...current.status, capacity: resources, allocatable: resources, conditions: [ready] } });
}

/** A WaitForFirstConsumer class of our node agents' provisioner, sized volumes (loop-mounted images), Delete. */
export async function createSizedNodeClass(api: ClusterApi, name: string): Promise<void> {
  await api.post('/apis/storage.k8s.io/v1/storageclasses', 'storage.k8s.io/v1', 'StorageClass', {
    metadata: { name },
    provisioner: NODE_HOST_PATH_PROVISIONER,
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
    parameters: { sizing: 'image' },
  });
}

export interface NodeAgent {
  node: string;
  process: ManagedProcess;
  /** The root as the agent sees it (the same path for every agent, each in its own namespace). */
  root: string;
  /** `path` of the agent's namespace, as the test runner reaches it. */
  seen(path: string): string;
  /** Mount points at or below `dir` in the agent's namespace. */
  mountsUnder(dir: string): string[];
  /** The volume directories in the root, and the images beside them. */
  volumes(): Promise<{ directories: string[]; images: string[] }>;
}

/** The agent flags of a test run (its root comes from startNodeAgent): quick publishing and resyncs. */
export function testAgentArgs(kubeconfig: string, node: string, extra: string[] = []): string[] {
  return [
    '--kubeconfig', kubeconfig, '--node-name', node,
    '--capacity-namespace', 'kube-system', '--capacity-publish-period', '1s',
    '--leader-elect', 'true', '--leader-elect-resource-namespace', 'kube-system',
    '--metrics-bind-address', '0', '--volume-stats-agg-period', '0', '--pvclaimbinder-sync-period', '2s', '--kube-api-qps', '1000',
    ...extra,
  ];
}

/**
 * `pv-controller node-agent --host-path-root <sandbox>/root ...args` for `node`, in a private
 * mount namespace working in `sandbox`, its root a tmpfs of `rootSize`.
 */
export function startNodeAgent(opts: { node: string; args: string[]; sandbox: string; rootSize: string; logDir: string }): NodeAgent {
  const command = mountNamespaceCommand(AGENT_SANDBOX, [opts.rootSize, ...opts.args], opts.sandbox);
  const proc = startProcess(`node-agent ${opts.node}`, command.file, command.args, join(opts.logDir, `agent-${opts.node}.log`), opts.logDir, command.env);
  const root = join(opts.sandbox, 'root');
  // unshare execs node: this pid is the agent itself, inside its namespace.
  const seen = (path: string): string => `/proc/${proc.pid}/root${path}`;
  return {
    node: opts.node,
    process: proc,
    root,
    seen,
    mountsUnder(dir) {
      return parseMountInfo(readFileSync(`/proc/${proc.pid}/mountinfo`, 'utf8'))
        .map((m) => m.path)
        .filter((p) => p === dir || p.startsWith(`${dir}/`));
    },
    async volumes() {
      const directories = (await readdir(seen(root))).filter((n) => !n.startsWith('.')).sort();
      const images = (await readdir(seen(join(root, IMAGE_DIR))).catch(() => [] as string[])).sort();
      return { directories, images };
    },
  };
}

/** Loop devices of the whole machine (they are not per namespace) whose backing file is under `dir`. */
export function loopDevicesUnder(dir: string): string[] {
  const out = execFileSync('losetup', ['--list', '--noheadings', '--output', 'BACK-FILE'], { encoding: 'utf8' });
  return out.split('\n').map((l) => l.trim()).filter((l) => l.startsWith(`${dir}/`));
}
