/**
 * What a CSI plugin needs from the Kubernetes API, read through the controller's own transport:
 * Secrets (the `csi.storage.k8s.io/*-secret-*` class parameters name them; their data goes into
 * CreateVolume, DeleteVolume, ControllerExpandVolume...) and the driver's topology — each node's
 * segment is the node's values of the topology keys its CSINode lists for the driver, as
 * external-provisioner reads them (CSINode.spec.drivers[].topologyKeys + Node labels).
 *
 * It lives in the controller, not in plugins/: it talks to the API server; the CSI plugin sees only
 * the two functions. Secret data is never logged. Topology answers are reused for a few seconds
 * so a burst of provisions costs one list; a node with no entry for the driver is never cached.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { isNotFound } from '@pv-controller/kube/errors.js';
import type { KubeObject, Node } from '@pv-controller/kube/types.js';
import { toPlain } from '../../kube-client/model-json.js';
import { RestTransport } from '../../kube-client/transport.js';

/** A node's CSINode, the part of it topology needs. */
export interface CsiNodeInfo extends KubeObject {
  spec: { drivers?: Array<{ name: string; nodeID?: string; topologyKeys?: string[] | null }> };
}

/** Where topology is read from (the API through a transport; fakes in tests). */
export interface CsiTopologyReader {
  getCsiNode(name: string): Promise<CsiNodeInfo | undefined>;
  listCsiNodes(): Promise<CsiNodeInfo[]>;
  getNode(name: string): Promise<Node | undefined>;
  listNodes(): Promise<Node[]>;
}

async function orUndefined<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

export function apiCsiTopologyReader(t: Pick<RestTransport, 'call' | 'core' | 'storage'>): CsiTopologyReader {
  return {
    getCsiNode: (name) => orUndefined(async () => toPlain<CsiNodeInfo>(await t.call('get', `GET CSINode ${name}`, () => t.storage.readCSINode({ name })))),
    listCsiNodes: async () => (await t.call('list', 'LIST CSINodes', () => t.storage.listCSINode())).items.map((n) => toPlain<CsiNodeInfo>(n)),
    getNode: (name) => orUndefined(async () => toPlain<Node>(await t.call('get', `GET Node ${name}`, () => t.core.readNode({ name })))),
    listNodes: async () => (await t.call('list', 'LIST Nodes', () => t.core.listNode())).items.map((n) => toPlain<Node>(n)),
  };
}

/** The segment of `node` for `driver`: the node's labels under the driver's topology keys; undefined when incomplete. */
export function segmentOf(csiNode: CsiNodeInfo | undefined, node: Node | undefined, driver: string): Record<string, string> | undefined {
  const entry = csiNode?.spec.drivers?.find((d) => d.name === driver);
  if (!entry || !node) return undefined;
  const labels = node.metadata.labels ?? {};
  const segment: Record<string, string> = {};
  for (const key of entry.topologyKeys ?? []) {
    const value = labels[key];
    // A node not yet labelled for a key its driver reports has no usable segment (EP skips it too).
    if (value === undefined) return undefined;
    segment[key] = value;
  }
  return segment;
}

/** Every distinct non-empty segment of the nodes whose CSINode lists `driver`, in a stable order. */
export function distinctSegments(csiNodes: CsiNodeInfo[], nodes: Node[], driver: string): Array<Record<string, string>> {
  const nodeByName = new Map(nodes.map((n) => [n.metadata.name ?? '', n]));
  const seen = new Map<string, Record<string, string>>();
  for (const csiNode of csiNodes) {
    const segment = segmentOf(csiNode, nodeByName.get(csiNode.metadata.name ?? ''), driver);
    if (!segment || Object.keys(segment).length === 0) continue;
    seen.set(JSON.stringify(Object.entries(segment).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))), segment);
  }
  return [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, s]) => s);
}

const SEGMENTS_TTL_MS = 5_000;

/** The CSI plugin's view of topology (CsiTopologySource in plugins/csi). */
export class KubeCsiTopology {
  private all = new Map<string, { at: number; value: Array<Record<string, string>> }>();

  constructor(
    private readonly reader: CsiTopologyReader,
    private readonly now: () => number = Date.now,
  ) {}

  async nodeSegment(driver: string, nodeName: string): Promise<Record<string, string> | undefined> {
    const [csiNode, node] = await Promise.all([this.reader.getCsiNode(nodeName), this.reader.getNode(nodeName)]);
    return segmentOf(csiNode, node, driver);
  }

  /** Every distinct non-empty segment of the nodes whose CSINode lists the driver, in a stable order. */
  async allSegments(driver: string): Promise<Array<Record<string, string>>> {
    const cached = this.all.get(driver);
    if (cached && this.now() - cached.at < SEGMENTS_TTL_MS) return cached.value.map((s) => ({ ...s }));
    const [csiNodes, nodes] = await Promise.all([this.reader.listCsiNodes(), this.reader.listNodes()]);
    const value = distinctSegments(csiNodes, nodes, driver);
    this.all.set(driver, { at: this.now(), value });
    return value.map((s) => ({ ...s }));
  }
}

/** A Secret's data as strings (what CSI's secrets maps carry), or undefined when it does not exist. */
export function apiSecretReader(t: Pick<RestTransport, 'call' | 'core'>): (namespace: string, name: string) => Promise<Record<string, string> | undefined> {
  return async (namespace, name) => {
    const secret = await orUndefined(() => t.call('get', `GET Secret ${namespace}/${name}`, () => t.core.readNamespacedSecret({ namespace, name })));
    if (!secret) return undefined;
    const out: Record<string, string> = {};
    // client-node hands `data` over as base64 text (the wire form); a CSI secret is its bytes as a string.
    for (const [key, value] of Object.entries(secret.data ?? {})) out[key] = Buffer.from(value, 'base64').toString('utf8');
    return out;
  };
}

/** The Secret reader and topology source of every CSI plugin of a process, and what closes them. */
export interface CsiKubeDeps {
  secrets: (namespace: string, name: string) => Promise<Record<string, string> | undefined>;
  topology: KubeCsiTopology;
  close(): void;
}

/** Both on a RestTransport of their own on `kc` (5 qps / burst 10), so they never queue behind the controller's writes. */
export function csiKubeDeps(kc: KubeConfig): CsiKubeDeps {
  const transport = new RestTransport(kc, { qps: 5, burst: 10 });
  return {
    secrets: apiSecretReader(transport),
    topology: new KubeCsiTopology(apiCsiTopologyReader(transport)),
    close: () => transport.close(),
  };
}
