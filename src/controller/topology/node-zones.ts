/**
 * The cloud plugins' TopologyResolver over the Kubernetes API: a node's zone is its
 * `topology.kubernetes.io/zone` label (the beta `failure-domain.beta.kubernetes.io/zone` when only
 * that one is set), read with a live GET; the zones that have nodes come from a node list. Answers
 * are kept for a short while so a burst of provisions costs one request, and a node without a zone
 * is never cached (its cloud controller may label it a moment later).
 *
 * It lives in the controller, not in plugins/: it talks to the API server, and plugins know nothing
 * of it (they only see the TopologyResolver interface from plugins/cloud-common/zones.ts). Nodes are
 * read through client-node's generated CoreV1Api on the controller's RestTransport (rate limiter,
 * request counters, one error mapping), converted to plain JSON at the edge.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { LABEL_FAILURE_DOMAIN_BETA_ZONE, LABEL_TOPOLOGY_ZONE } from '@pv-controller/kube/annotations.js';
import { isNotFound } from '@pv-controller/kube/errors.js';
import type { Node } from '@pv-controller/kube/types.js';
import type { TopologyResolver } from '../../plugins/cloud-common/zones.js';
import { PluginError } from '../../plugins/api/errors.js';
import { toPlain } from '../../kube-client/model-json.js';
import { RestTransport } from '../../kube-client/transport.js';

/** Where the resolver reads nodes. */
export interface NodeSource {
  /** The node, or undefined when it does not exist. */
  getNode(name: string): Promise<Node | undefined>;
  listNodes(): Promise<Node[]>;
}

/** The part of RestTransport the node source uses: counted, rate-limited generated calls. */
export type NodeApi = Pick<RestTransport, 'call' | 'core'>;

/** Nodes through the transport's generated CoreV1Api (readNode / listNode); a 404 is no node. */
export function apiNodeSource(transport: NodeApi): NodeSource {
  return {
    async getNode(name) {
      try {
        const node = await transport.call('get', `GET Node ${name}`, () => transport.core.readNode({ name }));
        return toPlain<Node>(node);
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    async listNodes() {
      const list = await transport.call('list', 'LIST Nodes', () => transport.core.listNode());
      return list.items.map((node) => toPlain<Node>(node));
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

/** A resolver and the connections it holds. */
export interface KubeTopology {
  topology: KubeTopologyResolver;
  /** Releases the resolver's keep-alive connections. */
  close(): void;
}

/**
 * A TopologyResolver reading nodes through its own RestTransport on `kc` (the controller's
 * transport: generated API, keep-alive agent, 5 qps / burst 10 of its own so node reads never
 * queue behind the controller's writes); `close()` releases its connections.
 */
export function topologyFromKubeConfig(kc: KubeConfig): KubeTopology {
  const transport = new RestTransport(kc, { qps: 5, burst: 10 });
  return { topology: new KubeTopologyResolver(apiNodeSource(transport)), close: () => transport.close() };
}
