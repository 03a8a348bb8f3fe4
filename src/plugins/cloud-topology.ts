/**
 * The cloud plugins' TopologyResolver over the Kubernetes API: a node's zone is its
 * `topology.kubernetes.io/zone` label (the beta `failure-domain.beta.kubernetes.io/zone` when only
 * that one is set), read with a live GET; the zones that have nodes come from a node list. Answers
 * are kept for a short while so a burst of provisions costs one request, and a node without a zone
 * is never cached (its cloud controller may label it a moment later).
 *
 * Only a type is imported from the controller's client: the resolver is handed a NodeSource, so a
 * plugin never learns where nodes come from.
 */
import { LABEL_FAILURE_DOMAIN_BETA_ZONE, LABEL_TOPOLOGY_ZONE } from '../kube/annotations.js';
import { isNotFound } from '../kube/errors.js';
import type { Node, ObjectList } from '../kube/types.js';
import type { RequestSpec } from '../controller/client/transport.js';
import type { TopologyResolver } from './cloud-common/zones.js';
import { PluginError } from './plugin.js';

/** Where the resolver reads nodes. */
export interface NodeSource {
  /** The node, or undefined when it does not exist. */
  getNode(name: string): Promise<Node | undefined>;
  listNodes(): Promise<Node[]>;
}

/** Anything that sends Kubernetes API requests like the controller's RestTransport. */
export interface KubeRequester {
  request<T>(spec: RequestSpec): Promise<T>;
}

const NODES_PATH = '/api/v1/nodes';

/** Nodes over the controller's REST transport (GET /api/v1/nodes[/name]). */
export function restNodeSource(requester: KubeRequester): NodeSource {
  return {
    async getNode(name) {
      try {
        return await requester.request<Node>({ method: 'GET', verb: 'get', path: `${NODES_PATH}/${encodeURIComponent(name)}` });
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    async listNodes() {
      const list = await requester.request<ObjectList<Node>>({ method: 'GET', verb: 'list', path: NODES_PATH });
      return list.items;
    },
  };
}

/** The zone a node is in, from its labels; undefined when it carries none. */
export function zoneOfNodeLabels(node: Node): string | undefined {
  const labels = node.metadata.labels ?? {};
  const zone = labels[LABEL_TOPOLOGY_ZONE] ?? labels[LABEL_FAILURE_DOMAIN_BETA_ZONE];
  return zone === undefined || zone === '' ? undefined : zone;
}

export interface KubeTopologyOptions {
  /** How long an answer is reused (default 30 s; 0 = always ask). */
  cacheTtlMs?: number;
  /** Clock for the cache (tests). */
  now?: () => number;
}

interface Cached<T> {
  value: T;
  at: number;
}

const DEFAULT_CACHE_TTL_MS = 30_000;

export class KubeTopologyResolver implements TopologyResolver {
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly zones = new Map<string, Cached<string>>();
  private withNodes: Cached<string[]> | undefined;

  constructor(
    private readonly nodes: NodeSource,
    options: KubeTopologyOptions = {},
  ) {
    this.ttlMs = options.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  async zoneOfNode(nodeName: string, signal?: AbortSignal): Promise<string | undefined> {
    const cached = this.zones.get(nodeName);
    if (cached && this.fresh(cached)) return cached.value;
    const node = await this.ask(`reading node "${nodeName}"`, () => this.nodes.getNode(nodeName), signal);
    const zone = node === undefined ? undefined : zoneOfNodeLabels(node);
    if (zone === undefined) this.zones.delete(nodeName);
    else this.zones.set(nodeName, { value: zone, at: this.now() });
    return zone;
  }

  async zonesWithNodes(signal?: AbortSignal): Promise<string[]> {
    if (this.withNodes && this.fresh(this.withNodes)) return [...this.withNodes.value];
    const nodes = await this.ask('listing nodes', () => this.nodes.listNodes(), signal);
    const zones = new Set<string>();
    for (const node of nodes) {
      const zone = zoneOfNodeLabels(node);
      if (zone !== undefined) zones.add(zone);
    }
    const sorted = [...zones].sort();
    this.withNodes = { value: sorted, at: this.now() };
    return [...sorted];
  }

  private fresh(entry: Cached<unknown>): boolean {
    return this.now() - entry.at < this.ttlMs;
  }

  /** Runs one read, abandoning it when `signal` aborts; failures become retryable PluginErrors. */
  private async ask<T>(what: string, read: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_resolve, reject) => {
      onAbort = () => reject(new PluginError('Transient', `${what} was cancelled`, true, { cause: signal?.reason }));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([read(), aborted]);
    } catch (err) {
      if (err instanceof PluginError) throw err;
      const message = err instanceof Error ? err.message : String(err);
      throw new PluginError('Transient', `${what} for the volume's topology failed: ${message}`, true, { cause: err });
    } finally {
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }
}
