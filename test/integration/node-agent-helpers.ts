/**
 * Shared by the node-agent integration tests: `pv-controller node-agent` processes started the
 * way a DaemonSet runs them (each in its own process group, stopped by it, SIGTERM first), and
 * the REST calls the tests make.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { paths } from '../../src/kube-client/paths.js';
import { LABEL_HOSTNAME } from '@pv-controller/kube/annotations.js';
import type { CoreEvent, KubeObject, PersistentVolumeClaim, StorageClass } from '@pv-controller/kube/types.js';
import { NODE_HOST_PATH_PROVISIONER } from '../../src/plugins/host-path/index.js';
import type { TestCluster } from '../helpers/cluster.js';
import { TestRestClient } from '../helpers/rest-client.js';
import { waitFor } from '../helpers/wait.js';

const CLI = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const STOP_DEADLINE_MS = 10_000;

export class AgentsApi extends TestRestClient {
  post<T extends object>(path: string, apiVersion: string, kind: string, body: T): Promise<T> {
    return this.create(path, apiVersion, kind, body);
  }
  get<T>(path: string): Promise<T | undefined> {
    return this.getOrUndefined<T>(path);
  }
  items<T extends KubeObject>(path: string): Promise<T[]> {
    return this.list<T>(path);
  }
  delete(path: string): Promise<void> {
    return this.remove(path);
  }
  events(ns: string, name: string): Promise<CoreEvent[]> {
    return this.eventsAbout(ns, name);
  }
  claim(name: string): Promise<PersistentVolumeClaim | undefined> {
    return this.getOrUndefined(paths.claim('default', name));
  }
  /** Asks for `storage` as `kubectl patch pvc NAME -p '{"spec":...}'` does (a merge patch). */
  growClaim(name: string, storage: string): Promise<PersistentVolumeClaim> {
    return this.transport.request({
      method: 'PATCH',
      verb: 'patch',
      path: paths.claim('default', name),
      contentType: 'application/merge-patch+json',
      body: { spec: { resources: { requests: { storage } } } },
    });
  }
  /** The claim once `done` holds for it. */
  claimWhen(name: string, what: string, done: (claim: PersistentVolumeClaim) => boolean, timeoutMs = 60_000): Promise<PersistentVolumeClaim> {
    return waitFor(async () => {
      const claim = await this.claim(name);
      return claim && done(claim) ? claim : undefined;
    }, `claim ${name} ${what}`, { timeoutMs });
  }
}

const RESIZE_REASONS = ['Resizing', 'ExternalExpanding', 'VolumeResizeFailed', 'VolumeResizeSuccessful', 'FileSystemResizeRequired'];

/** The expansion events about a claim, as `reason×count`, sorted; waits until `last` is among them. */
export async function resizeEvents(api: AgentsApi, name: string, last: string): Promise<string[]> {
  return waitFor(async () => {
    const events = (await api.events('default', name)).filter((e) => RESIZE_REASONS.includes(e.reason ?? ''));
    return events.some((e) => e.reason === last) ? events.map((e) => `${e.reason ?? ''}×${e.count ?? 1}`).sort() : undefined;
  }, `a ${last} event about claim ${name}`, { timeoutMs: 30_000 });
}

/** A class of the agents' provisioner: WaitForFirstConsumer, Delete, and `extra` (expansion, parameters). */
export function createAgentClass(api: AgentsApi, name: string, extra: Partial<StorageClass> = {}): Promise<StorageClass> {
  return api.post('/apis/storage.k8s.io/v1/storageclasses', 'storage.k8s.io/v1', 'StorageClass', {
    metadata: { name },
    provisioner: NODE_HOST_PATH_PROVISIONER,
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
    ...extra,
  });
}

/** A Node object and a running agent for each of `nodes`, each with a root of its own under the cluster's data directory; returns the roots. */
export async function startAgents(cluster: TestCluster, api: AgentsApi, nodes: string[], agents: ChildProcess[]): Promise<Record<string, string>> {
  const roots: Record<string, string> = {};
  for (const node of nodes) {
    roots[node] = join(cluster.dataDir, `root-${node}`);
    await mkdir(roots[node]);
    await api.post('/api/v1/nodes', 'v1', 'Node', { metadata: { name: node, labels: { [LABEL_HOSTNAME]: node } } });
    agents.push(startAgent(cluster.api.server.kubeconfigPath, node, roots[node]));
  }
  return roots;
}

/** `extraArgs`: more node-agent flags (further roots, their capacities and weights). */
export function startAgent(kubeconfig: string, node: string, root: string, extraArgs: string[] = []): ChildProcess {
  const args = [
    CLI, 'node-agent', '--kubeconfig', kubeconfig, '--node-name', node, '--host-path-root', root,
    '--capacity-namespace', 'default', '--capacity-publish-period', '1s', '--leader-elect', 'false',
    '--metrics-bind-address', '0', '--volume-stats-agg-period', '0', '--pvclaimbinder-sync-period', '2s', '--kube-api-qps', '1000',
    ...extraArgs,
  ];
  return spawn(process.execPath, args, { detached: true, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** Stops an agent by its process group: SIGTERM, and SIGKILL only if it has not exited by the deadline. */
export async function stopAgent(agent: ChildProcess): Promise<void> {
  if (agent.exitCode !== null || agent.signalCode !== null || agent.pid === undefined) return;
  const pid = agent.pid;
  const exited = new Promise<void>((done) => agent.once('exit', () => done()));
  const signal = (name: NodeJS.Signals): void => {
    try {
      process.kill(-pid, name);
    } catch {
      // The group is gone already.
    }
  };
  signal('SIGTERM');
  const deadline = setTimeout(() => signal('SIGKILL'), STOP_DEADLINE_MS);
  await exited;
  clearTimeout(deadline);
}
