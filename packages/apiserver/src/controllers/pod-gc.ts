/**
 * The embedded server's pod garbage collector, for the one case a server without a kubelet
 * would otherwise leave forever: a Pod bound to a node (`spec.nodeName`) that was deleted
 * gracefully. On a cluster the node's kubelet stops the containers and deletes the Pod with a
 * zero grace period; for a node that is gone, kube-controller-manager's pod GC force-deletes it.
 * Here nothing runs containers, so this does what the pod GC does for a node that is gone:
 *
 * - a terminating Pod whose grace period has run out (its deletionTimestamp has passed) is
 *   deleted with a zero grace period, unless a kubelet serves its node;
 * - a kubelet serves a node when the Node exists and either its heartbeat Lease
 *   (`kube-node-lease/<node>`) was renewed within its leaseDurationSeconds, or its Ready
 *   condition is True with a heartbeat within NODE_MONITOR_GRACE_SECONDS. A real kubelet pointed
 *   at this server keeps its Pods terminating until it finishes them itself; a kubelet that
 *   stops renewing is treated as gone once its Lease expires;
 * - finalizers are honoured: a Pod that still has some is left terminating (the registry lets it
 *   go when the last one is removed);
 * - Pods that are not being deleted are never touched (unlike the upstream pod GC, which also
 *   deletes running Pods of a node that does not exist: here that would delete what a user just
 *   created for a node they have not registered yet).
 *
 * Driven by storage changes (Pods, Nodes, node Leases) and one timer per terminating Pod, set to
 * when its grace period ends or when its kubelet's heartbeat expires. Work per change is bounded
 * by the terminating Pods of the node it concerns (an index by node name).
 */
import type { Logger } from 'pino';
import type { KubeObject, Lease, Node, Pod } from '@pv-controller/kube/types.js';
import type { DeleteOptions } from '../registry/deletion.js';
import type { ResourceStrategy } from '../resources/strategy.js';
import type { Change, Storage } from '../storage/storage.js';
import { KeyedRuns } from './keyed-runs.js';

/** What the pod GC needs of the registry (the registry implements it). */
export interface PodGcStore {
  readonly storage: Pick<Storage, 'get' | 'list' | 'subscribe'>;
  strategyFor(group: string, version: string, plural: string): ResourceStrategy | undefined;
  delete(s: ResourceStrategy, namespace: string, name: string, options: DeleteOptions): Promise<unknown>;
}

/** kube-controller-manager's --node-monitor-grace-period default (1.32+): a Ready heartbeat older than this is stale. */
export const NODE_MONITOR_GRACE_SECONDS = 50;
/** The kubelet's default node lease duration, for a Lease that does not state one. */
const DEFAULT_LEASE_SECONDS = 40;
const NODE_LEASE_NAMESPACE = 'kube-node-lease';
const LEASES = 'coordination.k8s.io/leases';
/** Timers are capped so a far-off deletionTimestamp (or a clock jump) is looked at again. */
const MAX_TIMER_MS = 3_600_000;

const podKey = (namespace: string, name: string): string => `${namespace}/${name}`;

/** The node a terminating Pod waits on, or undefined when it is not the pod GC's business. */
function terminatingOn(obj: KubeObject | undefined): string | undefined {
  const pod = obj as Pod | undefined;
  if (pod?.metadata.deletionTimestamp === undefined) return undefined;
  return typeof pod.spec?.nodeName === 'string' && pod.spec.nodeName !== '' ? pod.spec.nodeName : undefined;
}

function timeOf(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const t = Date.parse(value);
  return Number.isFinite(t) ? t : undefined;
}

/** Until when (ms since the epoch) the node's kubelet counts as alive; undefined when it does not. */
export function kubeletAliveUntil(node: Node | undefined, lease: Lease | undefined, now: number): number | undefined {
  if (node === undefined) return undefined;
  let until: number | undefined;
  const renewed = timeOf(lease?.spec?.renewTime);
  if (renewed !== undefined) {
    const duration = lease?.spec?.leaseDurationSeconds;
    const seconds = typeof duration === 'number' && duration > 0 ? duration : DEFAULT_LEASE_SECONDS;
    if (renewed + seconds * 1000 > now) until = renewed + seconds * 1000;
  }
  const conditions = Array.isArray(node.status?.conditions) ? (node.status.conditions as unknown[]) : [];
  const ready = conditions.find((c): c is Record<string, unknown> => typeof c === 'object' && c !== null && (c as { type?: unknown }).type === 'Ready');
  const heartbeat = ready?.status === 'True' ? timeOf(ready.lastHeartbeatTime) : undefined;
  if (heartbeat !== undefined && heartbeat + NODE_MONITOR_GRACE_SECONDS * 1000 > now) {
    until = Math.max(until ?? 0, heartbeat + NODE_MONITOR_GRACE_SECONDS * 1000);
  }
  return until;
}

export class PodGarbageCollector {
  private readonly runs: KeyedRuns;
  /** Terminating Pods with a node, by node name (keys "namespace/name"). */
  private readonly byNode = new Map<string, Set<string>>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private unsubscribe: (() => void) | undefined;
  private stopped = false;

  constructor(
    private readonly registry: PodGcStore,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.runs = new KeyedRuns((key) => this.reconcile(key), (err, key) => {
      this.log.warn({ err, pod: key }, 'pod GC: deleting a terminating pod failed; retrying on the next change');
      this.timer(key, this.now() + 5000);
    });
  }

  start(): void {
    this.unsubscribe = this.registry.storage.subscribe((c) => this.onChange(c));
    for (const pod of this.registry.storage.list('pods', undefined)) this.track(pod);
  }

  stop(): void {
    this.stopped = true;
    this.runs.stop();
    this.unsubscribe?.();
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  private onChange(change: Change): void {
    const { resource, namespace, name } = change.key;
    if (resource === 'pods') {
      if (change.type === 'DELETED') this.forget(podKey(namespace, name), terminatingOn(change.object));
      else this.track(change.object);
    } else if (resource === 'nodes') {
      this.scheduleNode(name);
    } else if (resource === LEASES && namespace === NODE_LEASE_NAMESPACE) {
      this.scheduleNode(name);
    }
  }

  private track(pod: KubeObject): void {
    const key = podKey(pod.metadata.namespace ?? '', pod.metadata.name ?? '');
    const node = terminatingOn(pod);
    if (node === undefined) return;
    let pods = this.byNode.get(node);
    if (!pods) this.byNode.set(node, (pods = new Set()));
    pods.add(key);
    this.runs.schedule(key);
  }

  private forget(key: string, node: string | undefined): void {
    const t = this.timers.get(key);
    if (t) clearTimeout(t);
    this.timers.delete(key);
    if (node === undefined) return;
    const pods = this.byNode.get(node);
    pods?.delete(key);
    if (pods?.size === 0) this.byNode.delete(node);
  }

  private scheduleNode(node: string): void {
    for (const key of this.byNode.get(node) ?? []) this.runs.schedule(key);
  }

  /** Looks at `key` again at `at` (ms since the epoch); one timer per Pod, the newest wins. */
  private timer(key: string, at: number): void {
    if (this.stopped) return;
    const old = this.timers.get(key);
    if (old) clearTimeout(old);
    const t = setTimeout(() => {
      this.timers.delete(key);
      this.runs.schedule(key);
    }, Math.min(Math.max(at - this.now(), 0), MAX_TIMER_MS));
    t.unref();
    this.timers.set(key, t);
  }

  private async reconcile(key: string): Promise<void> {
    if (this.stopped) return;
    const slash = key.indexOf('/');
    const namespace = key.slice(0, slash);
    const name = key.slice(slash + 1);
    const pod = this.registry.storage.get({ resource: 'pods', namespace, name });
    const node = terminatingOn(pod);
    if (pod === undefined || node === undefined) {
      this.forget(key, undefined);
      return;
    }
    const now = this.now();
    const due = timeOf(pod.metadata.deletionTimestamp) ?? now;
    if (due > now) return this.timer(key, due);
    const nodeObj = this.registry.storage.get({ resource: 'nodes', namespace: '', name: node }) as Node | undefined;
    const lease = this.registry.storage.get({ resource: LEASES, namespace: NODE_LEASE_NAMESPACE, name: node }) as Lease | undefined;
    const alive = kubeletAliveUntil(nodeObj, lease, now);
    // Its kubelet finishes it; looked at again when the heartbeat would expire.
    if (alive !== undefined) return this.timer(key, alive + 1);
    // Finalizers hold it; the registry deletes it when the last one is removed.
    if ((pod.metadata.finalizers ?? []).length > 0) return;
    const s = this.registry.strategyFor('', 'v1', 'pods');
    if (!s) return;
    const why = nodeObj === undefined ? 'node does not exist' : 'no kubelet heartbeat for the node';
    await this.registry.delete(s, namespace, name, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } });
    this.log.info({ pod: key, node, uid: pod.metadata.uid, reason: why }, 'pod GC: grace period over and no kubelet serves its node; pod deleted');
  }
}
