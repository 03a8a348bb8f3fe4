/**
 * The multi-node shape on the real control plane: kube-apiserver and kube-scheduler, three Node
 * objects with no kubelet, one `pv-controller node-agent` per node (each in a private mount
 * namespace with a root of its own, at the same path, as on a real cluster) and the central
 * controller with its ServiceAccount and no host-path plugin. Pods use claims of a
 * WaitForFirstConsumer class of `sizing: image`: kube-scheduler chooses each node from the
 * CSIStorageCapacity the agents publish — mn-c's root promises almost nothing (over-commit
 * ratio 0.1) and is never chosen; mn-a and mn-b hold three 20Mi volumes each, and a seventh pod
 * finds no node. Each volume is a loop-mounted image on its node's root only; deleting the pods
 * and then the claims removes every volume on its own node and leaves nothing mounted or
 * attached. Then six pods at once: the same three and three. (A claim placed where the room was
 * already promised would fail on that node's agent, which drops the selected node so that
 * kube-scheduler places it again; the ProvisioningFailed events count how often.)
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { LABEL_HOSTNAME } from '@pv-controller/kube/annotations.js';
import { formatBytes, quantityToBytes } from '@pv-controller/kube/quantity.js';
import type { KubeObject, PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { imageSupportProblem } from '../../src/plugins/host-path/image-volume.js';
import { NODE_HOST_PATH_PROVISIONER } from '../../src/plugins/host-path/index.js';
import type { ControlPlane } from '../../tools/cluster/control-plane.js';
import { startProcess, type ManagedProcess } from '../../tools/cluster/processes.js';
import { realControlPlaneSkip, startTestControlPlane } from '../helpers/control-plane.js';
import { mountNamespaceSkipReason } from '../helpers/mount-namespace.js';
import { waitFor } from '../helpers/wait.js';
import { addSchedulableNode, ClusterApi, createSizedNodeClass, loopDevicesUnder, startNodeAgent, testAgentArgs, type CapacityObject, type NodeAgent } from './multinode/nodes.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const skip = realControlPlaneSkip() || mountNamespaceSkipReason() || imageSupportProblem() || false;
const NODES = ['mn-a', 'mn-b', 'mn-c'];
const FULL_NODE = 'mn-c';
const CLASS = 'node-local-sized';
const NS = 'default';
const CLAIM_BYTES = 20n * 1024n * 1024n;
const SLOW = { timeoutMs: 120_000, intervalMs: 250 };
const CAPACITIES = '/apis/storage.k8s.io/v1/namespaces/kube-system/csistoragecapacities';

interface Pod extends KubeObject {
  spec: { nodeName?: string };
  status?: { conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> };
}

/** Each node's published capacity for the class, in bytes. */
async function publishedCapacity(api: ClusterApi): Promise<Record<string, bigint>> {
  const out: Record<string, bigint> = {};
  for (const c of await api.items<CapacityObject>(CAPACITIES)) {
    const node = c.nodeTopology?.matchLabels?.[LABEL_HOSTNAME];
    if (node && c.storageClassName === CLASS) out[node] = quantityToBytes(c.maximumVolumeSize ?? c.capacity ?? '0');
  }
  return out;
}

async function createPodWithClaim(api: ClusterApi, name: string): Promise<void> {
  await api.post(`/api/v1/namespaces/${NS}/persistentvolumeclaims`, 'v1', 'PersistentVolumeClaim', {
    metadata: { name, namespace: NS },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '20Mi' } }, storageClassName: CLASS },
  });
  await api.post(`/api/v1/namespaces/${NS}/pods`, 'v1', 'Pod', {
    metadata: { name, namespace: NS },
    spec: {
      containers: [{ name: 'app', image: 'registry.invalid/app:1', volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName: name } }],
    },
  });
}

/** Deletes the pods at once, then their claims, and waits until no PV is left. */
async function deleteAndWait(api: ClusterApi, names: string[]): Promise<void> {
  for (const name of names) await api.deleteNow(`/api/v1/namespaces/${NS}/pods/${name}`);
  for (const name of names) await api.delete(`/api/v1/namespaces/${NS}/persistentvolumeclaims/${name}`);
  await waitFor(async () => ((await api.items<PersistentVolume>('/api/v1/persistentvolumes')).length === 0 ? true : undefined), 'every PV to be deleted', SLOW);
}

function scheduledCondition(pod: Pod | undefined): string {
  const c = pod?.status?.conditions?.find((x) => x.type === 'PodScheduled');
  return c ? `${c.status} ${c.reason ?? ''}: ${c.message ?? ''}` : 'not looked at yet';
}

describe('multi-node on the real control plane: kube-scheduler places pods by the capacity node agents publish', { skip, timeout: 600_000 }, () => {
  let plane: ControlPlane & { removeDir(): Promise<void> };
  let api: ClusterApi;
  let sandbox: string;
  let central: ManagedProcess | undefined;
  const agents = new Map<string, NodeAgent>();
  /** Pod (and claim) name → the node kube-scheduler chose. */
  const placed = new Map<string, string>();

  before(async () => {
    plane = await startTestControlPlane();
    api = new ClusterApi(plane.admin());
    // One empty directory; each agent's namespace mounts its own tmpfs over it.
    sandbox = await mkdtemp(join(tmpdir(), 'pv-multinode-'));
    for (const node of NODES) {
      await addSchedulableNode(api, node);
      const extraArgs = node === FULL_NODE ? ['--host-path-overcommit-ratio', '0.1'] : [];
      agents.set(node, startNodeAgent({ node, args: testAgentArgs(plane.kubeconfigPath, node, extraArgs), sandbox, rootSize: '64m', logDir: plane.dir }));
    }
    const centralArgs = [
      MAIN, 'controller', '--kubeconfig', plane.controllerKubeconfigPath ?? '', '--leader-elect=true',
      '--metrics-bind-address=127.0.0.1:0', '--pvclaimbinder-sync-period=2s', '--kube-api-qps=1000',
    ];
    central = startProcess('pv-controller', process.execPath, centralArgs, join(plane.dir, 'controller.log'), plane.dir);
    await plane.startScheduler();
    await createSizedNodeClass(api, CLASS);
  });

  after(async () => {
    await Promise.all([...agents.values()].map((a) => a.process.stop()));
    await central?.stop();
    api?.close();
    await plane?.stop();
    await plane?.removeDir();
    if (sandbox) await rm(sandbox, { recursive: true, force: true });
  });

  test('each agent publishes its node\'s room for the class (mn-c less than one claim), and the CSIDriver makes kube-scheduler read it', async (t) => {
    const capacity = await waitFor(async () => {
      const c = await publishedCapacity(api);
      return Object.keys(c).length === NODES.length ? c : undefined;
    }, 'a CSIStorageCapacity per node', SLOW);
    t.diagnostic(`published: ${NODES.map((n) => `${n} ${formatBytes(capacity[n])}`).join(', ')}`);
    assert.ok(capacity['mn-a'] >= 3n * CLAIM_BYTES && capacity['mn-b'] >= 3n * CLAIM_BYTES, JSON.stringify(capacity, (_k, v: unknown) => String(v)));
    assert.ok(capacity[FULL_NODE] < CLAIM_BYTES, `mn-c offers ${capacity[FULL_NODE]} bytes`);
    const driver = await api.get<{ spec: { storageCapacity: boolean } }>(`/apis/storage.k8s.io/v1/csidrivers/${NODE_HOST_PATH_PROVISIONER}`);
    assert.equal(driver?.spec.storageCapacity, true);
  });

  test('six pods, one at a time, land three on mn-a and three on mn-b, never on mn-c; each claim binds to a PV pinned to its pod\'s node', async (t) => {
    for (let i = 1; i <= 6; i++) {
      const name = `app-${i}`;
      const before = await publishedCapacity(api);
      await createPodWithClaim(api, name);
      const pod = await waitFor(async () => {
        const p = await api.get<Pod>(`/api/v1/namespaces/${NS}/pods/${name}`);
        return p?.spec.nodeName ? p : undefined;
      }, `${name} to be placed`, SLOW).catch(async (err: Error) => {
        throw new Error(`${err.message}; PodScheduled ${scheduledCondition(await api.get<Pod>(`/api/v1/namespaces/${NS}/pods/${name}`))}`);
      });
      const node = pod.spec.nodeName ?? '';
      placed.set(name, node);
      assert.notEqual(node, FULL_NODE, `${name} was placed on the full node`);
      const claim = await api.get<PersistentVolumeClaim>(`/api/v1/namespaces/${NS}/persistentvolumeclaims/${name}`);
      assert.equal(claim?.status?.phase, 'Bound', 'kube-scheduler binds the pod only once its claim is bound');
      const pv = await api.get<PersistentVolume>(`/api/v1/persistentvolumes/${claim?.spec.volumeName ?? ''}`);
      assert.deepEqual(pv?.spec.nodeAffinity?.required?.nodeSelectorTerms?.[0]?.matchExpressions?.[0]?.values, [node]);
      // The next pod is placed by what this volume left: wait until the node's number reflects it.
      await waitFor(async () => ((await publishedCapacity(api))[node] !== before[node] ? true : undefined), `${node}'s capacity after ${name}`, SLOW);
    }
    t.diagnostic(`placed: ${[...placed].map(([pod, node]) => `${pod}→${node}`).join(', ')}`);
    const counts = Object.fromEntries(NODES.map((n) => [n, [...placed.values()].filter((p) => p === n).length]));
    assert.deepEqual(counts, { 'mn-a': 3, 'mn-b': 3, 'mn-c': 0 });
    const capacity = await publishedCapacity(api);
    for (const node of NODES) assert.ok(capacity[node] < CLAIM_BYTES, `${node} offers ${capacity[node]} bytes after six volumes`);
  });

  test('a seventh pod finds no node: kube-scheduler says no node has enough free storage, and nothing is provisioned for it', async () => {
    await createPodWithClaim(api, 'app-7');
    const pod = await waitFor(async () => {
      const p = await api.get<Pod>(`/api/v1/namespaces/${NS}/pods/app-7`);
      return /did not have enough free storage/.test(scheduledCondition(p)) ? p : undefined;
    }, 'app-7 to be unschedulable for storage', SLOW);
    assert.equal(pod.spec.nodeName, undefined);
    assert.match(scheduledCondition(pod), /^False Unschedulable: 0\/3 nodes are available: .*3 node\(s\) did not have enough free storage/);
    const claim = await api.get<PersistentVolumeClaim>(`/api/v1/namespaces/${NS}/persistentvolumeclaims/app-7`);
    assert.equal(claim?.status?.phase, 'Pending');
    await api.deleteNow(`/api/v1/namespaces/${NS}/pods/app-7`);
    await api.delete(`/api/v1/namespaces/${NS}/persistentvolumeclaims/app-7`);
  });

  test('each volume is an image loop-mounted on its chosen node\'s root only: the other agents\' roots do not have it', async () => {
    assert.equal(placed.size, 6);
    for (const [name, node] of placed) {
      const claim = await api.get<PersistentVolumeClaim>(`/api/v1/namespaces/${NS}/persistentvolumeclaims/${name}`);
      const pv = await api.get<PersistentVolume>(`/api/v1/persistentvolumes/${claim?.spec.volumeName ?? ''}`);
      const path = pv?.spec.local?.path ?? '';
      for (const [other, agent] of agents) {
        assert.ok(path.startsWith(`${agent.root}/`), `${path} is under the root`);
        assert.deepEqual(agent.mountsUnder(path), other === node ? [path] : [], `${name}'s volume mounted on ${node} only (looking at ${other})`);
        const directories = (await agent.volumes()).directories;
        assert.equal(directories.includes(path.slice(agent.root.length + 1)), other === node, `${name}'s directory on ${other}`);
      }
    }
    for (const [node, agent] of agents) {
      const { directories, images } = await agent.volumes();
      const expected = [...placed.values()].filter((n) => n === node).length;
      assert.deepEqual([directories.length, images.length], [expected, expected], `${node}: volume directories and images`);
    }
    assert.equal(loopDevicesUnder(sandbox).length, 6, 'one loop device per mounted volume');
  });

  test('deleting the pods, then the claims, removes every volume on its own node: nothing left mounted, attached or on disk, and the capacity comes back', async () => {
    const initial = (await publishedCapacity(api))[FULL_NODE];
    await deleteAndWait(api, [...placed.keys()]);
    for (const [node, agent] of agents) {
      await waitFor(async () => {
        const { directories, images } = await agent.volumes();
        return directories.length === 0 && images.length === 0 ? true : undefined;
      }, `${node}'s root to be empty`, SLOW);
      assert.deepEqual(agent.mountsUnder(agent.root), [agent.root], `${node}: only the root itself is mounted`);
    }
    assert.deepEqual(loopDevicesUnder(sandbox), [], 'no loop device left attached');
    const capacity = await waitFor(async () => {
      const c = await publishedCapacity(api);
      return c['mn-a'] >= 3n * CLAIM_BYTES && c['mn-b'] >= 3n * CLAIM_BYTES ? c : undefined;
    }, 'mn-a and mn-b to offer their room again', SLOW);
    assert.equal(capacity[FULL_NODE], initial);
  });
  test('a burst of six pods created at once, before any capacity changes, also ends three on mn-a and three on mn-b and none on mn-c', async (t) => {
    const names = Array.from({ length: 6 }, (_, i) => `burst-${i + 1}`);
    await Promise.all(names.map((name) => createPodWithClaim(api, name)));
    const nodes = await waitFor(async () => {
      const pods = await Promise.all(names.map((name) => api.get<Pod>(`/api/v1/namespaces/${NS}/pods/${name}`)));
      return pods.every((p) => p?.spec.nodeName) ? pods.map((p) => p?.spec.nodeName ?? '') : undefined;
    }, 'every pod of the burst to be placed', { timeoutMs: 240_000, intervalMs: 500 });
    const refused = (await api.items<KubeObject & { reason?: string; involvedObject?: { name?: string } }>(`/api/v1/namespaces/${NS}/events`))
      .filter((e) => e.reason === 'ProvisioningFailed' && names.includes(e.involvedObject?.name ?? ''));
    t.diagnostic(`burst placed: ${names.map((n, i) => `${n}→${nodes[i]}`).join(', ')}; ProvisioningFailed events: ${refused.length}`);
    const counts = Object.fromEntries(NODES.map((n) => [n, nodes.filter((p) => p === n).length]));
    assert.deepEqual(counts, { 'mn-a': 3, 'mn-b': 3, 'mn-c': 0 });
    await deleteAndWait(api, names);
    assert.deepEqual(loopDevicesUnder(sandbox), [], 'no loop device left attached');
  });
});
