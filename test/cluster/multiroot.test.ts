/**
 * Placement across several roots per node on the real control plane: kube-apiserver and
 * kube-scheduler, two Node objects with no kubelet, a `pv-controller node-agent` per node with two
 * roots of configured capacity each (plain directories, so no mount namespace or loop device is
 * needed; each agent's roots are its own directories), and the central controller. kube-scheduler
 * reads each node's CSIStorageCapacity — the largest room of one root, not the sum — and places
 * pods; each agent places each volume on the root with the most room. mr-a's roots hold 2Gi and
 * 1Gi, mr-b's 1Gi and 1Gi: five 1Gi claims fit (three on mr-a, two on mr-b, no root over its
 * capacity), a sixth pod finds no node with enough free storage.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { LABEL_HOSTNAME } from '@pv-controller/kube/annotations.js';
import { quantityToBytes } from '@pv-controller/kube/quantity.js';
import type { KubeObject, PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { NODE_HOST_PATH_PROVISIONER } from '../../src/plugins/host-path/index.js';
import type { ControlPlane } from '../../tools/cluster/control-plane.js';
import { startProcess, type ManagedProcess } from '../../tools/cluster/processes.js';
import { realControlPlaneSkip, startTestControlPlane } from '../helpers/control-plane.js';
import { waitFor } from '../helpers/wait.js';
import { addSchedulableNode, ClusterApi, testAgentArgs, type CapacityObject } from './multinode/nodes.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const skip = realControlPlaneSkip() || false;
const GI = 1024n ** 3n;
/** Each node's roots and their capacities. */
const ROOTS: Record<string, Array<[string, string]>> = { 'mr-a': [['a1', '2Gi'], ['a2', '1Gi']], 'mr-b': [['b1', '1Gi'], ['b2', '1Gi']] };
const CLASS = 'multi-root';
const NS = 'default';
const SLOW = { timeoutMs: 120_000, intervalMs: 250 };
const CAPACITIES = '/apis/storage.k8s.io/v1/namespaces/kube-system/csistoragecapacities';

interface Pod extends KubeObject {
  spec: { nodeName?: string };
  status?: { conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> };
}

async function published(api: ClusterApi): Promise<Record<string, bigint>> {
  const out: Record<string, bigint> = {};
  for (const c of await api.items<CapacityObject>(CAPACITIES)) {
    const node = c.nodeTopology?.matchLabels?.[LABEL_HOSTNAME];
    if (node && c.storageClassName === CLASS) out[node] = quantityToBytes(c.capacity ?? '0');
  }
  return out;
}

async function podWithClaim(api: ClusterApi, name: string): Promise<void> {
  await api.post(`/api/v1/namespaces/${NS}/persistentvolumeclaims`, 'v1', 'PersistentVolumeClaim', {
    metadata: { name, namespace: NS },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: CLASS },
  });
  await api.post(`/api/v1/namespaces/${NS}/pods`, 'v1', 'Pod', {
    metadata: { name, namespace: NS },
    spec: {
      containers: [{ name: 'app', image: 'registry.invalid/app:1', volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName: name } }],
    },
  });
}

const scheduled = (pod: Pod | undefined): string => {
  const c = pod?.status?.conditions?.find((x) => x.type === 'PodScheduled');
  return c ? `${c.status} ${c.reason ?? ''}: ${c.message ?? ''}` : 'not looked at yet';
};

describe('several roots per node on the real control plane: kube-scheduler and the agents place by each root\'s capacity', { skip, timeout: 600_000 }, () => {
  let plane: ControlPlane & { removeDir(): Promise<void> };
  let api: ClusterApi;
  let sandbox: string;
  const processes: ManagedProcess[] = [];
  const rootDirs = new Map<string, string>();

  before(async () => {
    plane = await startTestControlPlane();
    api = new ClusterApi(plane.admin());
    sandbox = await mkdtemp(join(tmpdir(), 'pv-multiroot-'));
    for (const [node, roots] of Object.entries(ROOTS)) {
      await addSchedulableNode(api, node);
      const flags: string[] = [];
      for (const [name, capacity] of roots) {
        const dir = join(sandbox, name);
        await mkdir(dir);
        rootDirs.set(name, dir);
        flags.push('--host-path-root', dir, '--host-path-root-capacity', `${dir}=${capacity}`);
      }
      const args = [MAIN, 'node-agent', ...testAgentArgs(plane.kubeconfigPath, node, flags)];
      processes.push(startProcess(`agent-${node}`, process.execPath, args, join(plane.dir, `agent-${node}.log`), plane.dir));
    }
    const centralArgs = [MAIN, 'controller', '--kubeconfig', plane.controllerKubeconfigPath ?? '', '--leader-elect=true', '--metrics-bind-address=127.0.0.1:0', '--pvclaimbinder-sync-period=2s', '--kube-api-qps=1000'];
    processes.push(startProcess('pv-controller', process.execPath, centralArgs, join(plane.dir, 'controller.log'), plane.dir));
    await plane.startScheduler();
    await api.post('/apis/storage.k8s.io/v1/storageclasses', 'storage.k8s.io/v1', 'StorageClass', {
      metadata: { name: CLASS },
      provisioner: NODE_HOST_PATH_PROVISIONER,
      reclaimPolicy: 'Delete',
      volumeBindingMode: 'WaitForFirstConsumer',
      parameters: { placement: 'leastAllocated' },
    });
  });

  after(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    api?.close();
    await plane?.stop();
    await plane?.removeDir();
    if (sandbox) await rm(sandbox, { recursive: true, force: true });
  });

  const volumesIn = async (root: string): Promise<number> => (await readdir(rootDirs.get(root)!)).filter((n) => !n.startsWith('.')).length;
  /** What a node should publish from what its roots hold: the largest room of one root (every volume is 1Gi). */
  const largestRoom = async (node: string): Promise<bigint> => {
    let most = 0n;
    for (const [root, capacity] of ROOTS[node]!) {
      const room = quantityToBytes(capacity) - BigInt(await volumesIn(root)) * GI;
      if (room > most) most = room;
    }
    return most;
  };

  test('each node publishes the room of its largest root, not the sum of its roots', async () => {
    const capacity = await waitFor(async () => {
      const c = await published(api);
      return c['mr-a'] === 2n * GI && c['mr-b'] === GI ? c : undefined;
    }, 'mr-a to publish 2Gi and mr-b 1Gi', SLOW);
    assert.deepEqual(capacity, { 'mr-a': 2n * GI, 'mr-b': GI });
  });

  test('five 1Gi pods, one at a time, fill every root exactly to its capacity; each PV is on a root of its pod\'s node', async () => {
    for (let i = 1; i <= 5; i++) {
      const name = `app-${i}`;
      await podWithClaim(api, name);
      const pod = await waitFor(async () => {
        const p = await api.get<Pod>(`/api/v1/namespaces/${NS}/pods/${name}`);
        return p?.spec.nodeName ? p : undefined;
      }, `${name} to be placed`, SLOW).catch(async (err: Error) => {
        throw new Error(`${err.message}; PodScheduled ${scheduled(await api.get<Pod>(`/api/v1/namespaces/${NS}/pods/${name}`))}`);
      });
      const claim = await api.get<PersistentVolumeClaim>(`/api/v1/namespaces/${NS}/persistentvolumeclaims/${name}`);
      const pv = await api.get<PersistentVolume>(`/api/v1/persistentvolumes/${claim?.spec.volumeName ?? ''}`);
      const node = pod.spec.nodeName ?? '';
      const onNode = ROOTS[node]!.some(([root]) => pv?.spec.local?.path?.startsWith(`${rootDirs.get(root)}/`));
      assert.ok(onNode, `${name}'s volume ${pv?.spec.local?.path} is on a root of ${node}`);
      // The next pod is placed by what this volume left: wait until the node publishes its largest root's room again.
      const expected = await largestRoom(node);
      await waitFor(async () => ((await published(api))[node] === expected ? true : undefined), `${node} to publish ${expected} bytes after ${name}`, SLOW);
    }
    assert.deepEqual([await volumesIn('a1'), await volumesIn('a2'), await volumesIn('b1'), await volumesIn('b2')], [2, 1, 1, 1]);
    assert.deepEqual(await waitFor(async () => {
      const c = await published(api);
      return c['mr-a'] === 0n && c['mr-b'] === 0n ? c : undefined;
    }, 'both nodes to publish 0', SLOW), { 'mr-a': 0n, 'mr-b': 0n });
  });

  test('a sixth pod finds no node with enough free storage, and nothing is provisioned for it', async () => {
    await podWithClaim(api, 'app-6');
    const pod = await waitFor(async () => {
      const p = await api.get<Pod>(`/api/v1/namespaces/${NS}/pods/app-6`);
      return /did not have enough free storage/.test(scheduled(p)) ? p : undefined;
    }, 'app-6 to be unschedulable for storage', SLOW);
    assert.equal(pod.spec.nodeName, undefined);
    assert.equal((await api.get<PersistentVolumeClaim>(`/api/v1/namespaces/${NS}/persistentvolumeclaims/app-6`))?.status?.phase, 'Pending');
    assert.deepEqual([await volumesIn('a1'), await volumesIn('a2'), await volumesIn('b1'), await volumesIn('b2')], [2, 1, 1, 1]);
  });
});
