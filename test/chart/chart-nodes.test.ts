/**
 * The chart's values for clusters whose pods have no network of their own (issue 28's real
 * nodes, and clusters without a CNI plugin or kube-proxy): hostNetwork for the controller and the
 * node agents, apiServer for where they reach kube-apiserver, nodeAgent.rootPerNode for nodes
 * sharing one disk. Off by default, where the chart renders as before (deploy/ is unchanged).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { CHART_DIR, NODE_AGENT_VALUES } from '../../tools/chart/manifests.js';
import { helmSkip, render, renderFailure, type RenderedObject } from './render.js';

interface Container {
  name: string;
  args?: string[];
  command?: string[];
  env?: Array<{ name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }>;
  volumeMounts?: Array<{ name: string; mountPath: string; mountPropagation?: string }>;
}
interface PodSpec {
  hostNetwork?: boolean;
  dnsPolicy?: string;
  containers: Container[];
  initContainers?: Container[];
  volumes?: Array<{ name: string; hostPath?: { path: string } }>;
}

function podSpec(objects: RenderedObject[], kind: 'Deployment' | 'DaemonSet' | 'Pod'): PodSpec {
  const o = objects.find((x) => x.kind === kind);
  assert.ok(o, `a ${kind} is rendered`);
  return kind === 'Pod' ? (o.spec as unknown as PodSpec) : (o.spec as { template: { spec: PodSpec } }).template.spec;
}

const envOf = (c: Container) => Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value ?? e.valueFrom?.fieldRef?.fieldPath]));
const AGENT = ['-f', join(CHART_DIR, NODE_AGENT_VALUES)];
const NETWORK = ['--set', 'hostNetwork=true,nodeAgent.hostNetwork=true,apiServer.host=127.0.0.1,apiServer.port=6443'];

describe('chart values for nodes without a pod network', { skip: helmSkip }, () => {
  test('by default: no host network, no KUBERNETES_SERVICE_HOST, metrics on every interface of the pod', async () => {
    const objects = await render(AGENT);
    for (const kind of ['Deployment', 'DaemonSet'] as const) {
      const spec = podSpec(objects, kind);
      assert.equal(spec.hostNetwork, undefined);
      const container = spec.containers[0];
      assert.equal(envOf(container).KUBERNETES_SERVICE_HOST, undefined);
      assert.ok(container.args?.some((a) => /^--metrics-bind-address=:\d+$/.test(a)), container.args?.join(' '));
    }
    assert.equal(podSpec(objects, 'DaemonSet').initContainers, undefined);
  });

  test('hostNetwork and apiServer: both workloads and helm test on the node\'s network, told where kube-apiserver is, serving metrics on the pod IP only', async () => {
    const objects = await render([...AGENT, ...NETWORK, '--set', 'nodeAgent.metricsPort=10300']);
    for (const [kind, port] of [['Deployment', 10258], ['DaemonSet', 10300]] as const) {
      const spec = podSpec(objects, kind);
      assert.deepEqual([spec.hostNetwork, spec.dnsPolicy], [true, 'ClusterFirstWithHostNet'], kind);
      const env = envOf(spec.containers[0]);
      assert.deepEqual([env.KUBERNETES_SERVICE_HOST, env.KUBERNETES_SERVICE_PORT, env.POD_IP], ['127.0.0.1', '6443', 'status.podIP'], kind);
      assert.ok(spec.containers[0].args?.includes(`--metrics-bind-address=$(POD_IP):${port}`), spec.containers[0].args?.join(' '));
    }
    const hook = podSpec(objects, 'Pod');
    assert.equal(hook.hostNetwork, true);
    assert.match(envOf(hook.containers[0]).LEASE_URL ?? '', /^https:\/\/127\.0\.0\.1:6443\/apis\/coordination\.k8s\.io\/v1\/namespaces\/kube-system\/leases\/pv-controller$/);
  });

  test('apiServer alone (no host network) sets the address without moving the pods\' network; the port defaults to 443', async () => {
    const spec = podSpec(await render(['--set', 'apiServer.host=api.internal']), 'Deployment');
    assert.equal(spec.hostNetwork, undefined);
    assert.deepEqual([envOf(spec.containers[0]).KUBERNETES_SERVICE_HOST, envOf(spec.containers[0]).KUBERNETES_SERVICE_PORT], ['api.internal', '443']);
  });

  test('nodeAgent.rootPerNode: an init container makes <root>/<node name>, the agent serves that, and the host directory mounted stays the root', async () => {
    const spec = podSpec(await render([...AGENT, '--set', 'nodeAgent.rootPerNode=true,nodeAgent.root=/srv/volumes/']), 'DaemonSet');
    const init = spec.initContainers?.[0];
    assert.ok(init, 'an init container');
    assert.deepEqual(init.command, ['mkdir', '-p', '-m', '0700', '/srv/volumes/$(NODE_NAME)']);
    assert.equal(envOf(init).NODE_NAME, 'spec.nodeName');
    assert.ok(spec.containers[0].args?.includes('--host-path-root=/srv/volumes/$(NODE_NAME)'), spec.containers[0].args?.join(' '));
    assert.deepEqual(spec.volumes?.find((v) => v.name === 'host-path-root')?.hostPath?.path, '/srv/volumes/');
    const root = spec.containers[0].volumeMounts?.find((m) => m.name === 'host-path-root');
    assert.deepEqual([root?.mountPath, root?.mountPropagation], ['/srv/volumes/', 'Bidirectional'], 'sized volumes still propagate from the whole root');
  });

  test('nodeAgent.rootPerNode with several roots: each root gets its <path>/<node name>, its capacity and weight keyed by that path', async () => {
    const spec = podSpec(
      await render([...AGENT, '--set', 'nodeAgent.rootPerNode=true', '--set', 'nodeAgent.roots[0].path=/srv/a,nodeAgent.roots[0].capacity=10Gi', '--set', 'nodeAgent.roots[1].path=/srv/b/,nodeAgent.roots[1].weight=3']),
      'DaemonSet',
    );
    assert.deepEqual(spec.initContainers?.[0]?.command, ['mkdir', '-p', '-m', '0700', '/srv/a/$(NODE_NAME)', '/srv/b/$(NODE_NAME)']);
    const args = spec.containers[0].args ?? [];
    for (const arg of ['--host-path-root=/srv/a/$(NODE_NAME)', '--host-path-root-capacity=/srv/a/$(NODE_NAME)=10Gi', '--host-path-root=/srv/b/$(NODE_NAME)', '--host-path-root-weight=/srv/b/$(NODE_NAME)=3']) {
      assert.ok(args.includes(arg), `${arg} in ${args.join(' ')}`);
    }
    assert.deepEqual(spec.initContainers?.[0]?.volumeMounts?.map((m) => m.mountPath), ['/srv/a', '/srv/b/']);
  });

  test('values.schema.json refuses a misspelt apiServer key and a port that is no number', async () => {
    assert.match(await renderFailure(['--set', 'apiServer.hots=x']), /additional properties 'hots' not allowed/);
    assert.match(await renderFailure(['--set', 'apiServer.port=https']), /apiServer\/port/);
    assert.match(await renderFailure(['--set', 'nodeAgent.rootPerNod=true']), /additional properties 'rootPerNod' not allowed/);
  });
});
