/**
 * The controller's TopologyResolver for the cloud plugins against the embedded API server: node
 * zones from labels read through the controller's transport and client-node's generated CoreV1Api,
 * a short cache, no caching of a missing zone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RestTransport } from '../../src/kube-client/transport.js';
import { LABEL_FAILURE_DOMAIN_BETA_ZONE, LABEL_TOPOLOGY_ZONE } from '@pv-controller/kube/annotations.js';
import type { Node } from '@pv-controller/kube/types.js';
import { apiNodeSource, KubeTopologyResolver, type NodeSource, topologyFromKubeConfig } from '../../src/controller/topology/node-zones.js';
import { PluginError } from '../../src/plugins/api/errors.js';
import { startTestApiServer, type TestApiServer } from '../helpers/apiserver.js';

describe('KubeTopologyResolver over the embedded API server', () => {
  let api: TestApiServer;
  let transport: RestTransport;
  const createNode = (name: string, labels: Record<string, string>): Promise<Node> =>
    transport.request<Node>({ method: 'POST', verb: 'create', path: '/api/v1/nodes', body: { apiVersion: 'v1', kind: 'Node', metadata: { name, labels } } });

  before(async () => {
    api = await startTestApiServer();
    transport = new RestTransport(api.kc, { qps: 0, burst: 0 });
    await createNode('node-a', { [LABEL_TOPOLOGY_ZONE]: 'us-east-1a' });
    await createNode('node-b', { [LABEL_TOPOLOGY_ZONE]: 'us-east-1b' });
    await createNode('node-beta', { [LABEL_FAILURE_DOMAIN_BETA_ZONE]: 'us-east-1c' });
    await createNode('node-unlabelled', {});
  });
  after(async () => {
    transport.close();
    await api.stop();
  });

  it('answers a node zone from its topology label, falling back to the beta label', async () => {
    const { topology, close } = topologyFromKubeConfig(api.kc);
    try {
      assert.equal(await topology.zoneOfNode('node-a'), 'us-east-1a');
      assert.equal(await topology.zoneOfNode('node-beta'), 'us-east-1c');
      assert.equal(await topology.zoneOfNode('node-unlabelled'), undefined);
      assert.equal(await topology.zoneOfNode('no-such-node'), undefined);
    } finally {
      close();
    }
  });

  it('lists the zones that have nodes, sorted and without duplicates', async () => {
    const { topology, close } = topologyFromKubeConfig(api.kc);
    try {
      await createNode('node-a2', { [LABEL_TOPOLOGY_ZONE]: 'us-east-1a' });
      assert.deepEqual(await topology.zonesWithNodes(), ['us-east-1a', 'us-east-1b', 'us-east-1c']);
    } finally {
      close();
    }
  });
});

describe('KubeTopologyResolver caching and failures', () => {
  function countingSource(nodes: Map<string, Node>): NodeSource & { gets: number; lists: number } {
    const source = {
      gets: 0,
      lists: 0,
      async getNode(name: string) {
        source.gets++;
        return structuredClone(nodes.get(name));
      },
      async listNodes() {
        source.lists++;
        return [...nodes.values()].map((n) => structuredClone(n));
      },
    };
    return source;
  }
  const node = (name: string, zone?: string): Node => ({ metadata: { name, labels: zone ? { [LABEL_TOPOLOGY_ZONE]: zone } : {} } });

  it('reuses an answer within the TTL and asks again after it', async () => {
    let now = 0;
    const nodes = new Map([['n1', node('n1', 'z1')]]);
    const source = countingSource(nodes);
    const resolver = new KubeTopologyResolver(source, { cacheTtlMs: 1000, now: () => now });
    assert.equal(await resolver.zoneOfNode('n1'), 'z1');
    nodes.set('n1', node('n1', 'z2'));
    assert.equal(await resolver.zoneOfNode('n1'), 'z1');
    assert.equal(source.gets, 1);
    now = 1000;
    assert.equal(await resolver.zoneOfNode('n1'), 'z2');
    assert.deepEqual(await resolver.zonesWithNodes(), ['z2']);
    assert.deepEqual(await resolver.zonesWithNodes(), ['z2']);
    assert.equal(source.lists, 1);
  });

  it('never caches a node without a zone, so a label added later is seen at once', async () => {
    const nodes = new Map([['n1', node('n1')]]);
    const resolver = new KubeTopologyResolver(countingSource(nodes));
    assert.equal(await resolver.zoneOfNode('n1'), undefined);
    nodes.set('n1', node('n1', 'z9'));
    assert.equal(await resolver.zoneOfNode('n1'), 'z9');
  });

  it('turns an API failure into a retryable PluginError and honours an aborted signal', async () => {
    const failing: NodeSource = {
      getNode: () => Promise.reject(new Error('connection refused')),
      listNodes: () => new Promise<Node[]>(() => undefined),
    };
    const resolver = new KubeTopologyResolver(failing);
    await assert.rejects(resolver.zoneOfNode('n1'), (err: unknown) => err instanceof PluginError && err.retryable && /connection refused/.test(err.message));
    const controller = new AbortController();
    const pending = resolver.zonesWithNodes(controller.signal);
    controller.abort();
    await assert.rejects(pending, (err: unknown) => err instanceof PluginError && err.code === 'Transient');
  });

  it('reads nodes through the generated API on the transport: counted per verb, plain JSON out, 404 is no node', async () => {
    const api = await startTestApiServer();
    const transport = new RestTransport(api.kc, { qps: 0, burst: 0 });
    try {
      const source = apiNodeSource(transport);
      assert.equal(await source.getNode('absent'), undefined);
      assert.deepEqual(await source.listNodes(), []);
      await transport.request<Node>({ method: 'POST', verb: 'create', path: '/api/v1/nodes', body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { [LABEL_TOPOLOGY_ZONE]: 'z1' } } } });
      const got = await source.getNode('n1');
      assert.equal(got?.metadata.labels?.[LABEL_TOPOLOGY_ZONE], 'z1');
      assert.equal(typeof got?.metadata.creationTimestamp, 'string', 'a Date from the generated model is turned back into its wire string');
      const listed = await source.listNodes();
      assert.deepEqual(listed.map((n) => n.metadata.name), ['n1']);
      assert.equal(typeof listed[0]?.metadata.creationTimestamp, 'string');
      const counts = transport.counters.snapshot();
      assert.deepEqual(counts.get, { requests: 2, conflicts: 0, errors: 1 });
      assert.deepEqual(counts.list, { requests: 2, conflicts: 0, errors: 0 });
    } finally {
      transport.close();
      await api.stop();
    }
  });

  it('passes a node read that cannot reach the API server on as a retryable PluginError', async () => {
    const api = await startTestApiServer();
    const transport = new RestTransport(api.kc, { qps: 0, burst: 0 });
    await api.stop();
    try {
      const resolver = new KubeTopologyResolver(apiNodeSource(transport));
      await assert.rejects(resolver.zoneOfNode('n1'), (err: unknown) => err instanceof PluginError && err.retryable && /reading node "n1"/.test(err.message));
    } finally {
      transport.close();
    }
  });
});
