/**
 * Real nodes (tools/cluster/nodes.ts) under the real control plane: a kubelet of the control
 * plane's release and containerd 2 with runc, joined as node-1, kube-scheduler placing pods and
 * kube-controller-manager's node-lifecycle controller lifting the not-ready taint. A pod of the
 * busybox image runs and its log is read through the kubelet with the real kubectl. Then our
 * controller and our node agent (a process on the host beside the kubelet, root under the
 * node's directory): a workload pod mounts a provisioned sized volume, writes a file that is on
 * disk where the PV says, and gets ENOSPC at the size; the kubelet's own kubelet_volume_stats_*
 * for the claim match our agent's; the pod is deleted gracefully (the kubelet finishes the
 * delete), then the claim, and the volume, its image, mount and loop device are gone.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { imageSupportProblem, IMAGE_DIR } from '../../src/plugins/host-path/image-volume.js';
import { findKubectl } from '../../tools/cluster/binaries.js';
import type { ControlPlane } from '../../tools/cluster/control-plane.js';
import { nodesUnavailable } from '../../tools/cluster/node-binaries.js';
import { mountsUnder, pidsUnder, shimsOf } from '../../tools/cluster/node-cleanup.js';
import { startNodes, type Nodes } from '../../tools/cluster/nodes.js';
import { freePort, startProcess, type ManagedProcess } from '../../tools/cluster/processes.js';
import { realControlPlaneSkip, startTestControlPlane } from '../helpers/control-plane.js';
import { waitFor } from '../helpers/wait.js';
import { ClusterApi, createSizedNodeClass, loopDevicesUnder } from './multinode/nodes.js';
import { podSpec, scrape, volumeStat, type Pod } from './nodes/pods.js';

const run = promisify(execFile);
const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const skip = realControlPlaneSkip() || nodesUnavailable() || imageSupportProblem() || (findKubectl() ? false : 'no kubectl') || false;
const NS = 'default';
const NODE = 'node-1';
const CLASS = 'node-sized';
const SLOW = { timeoutMs: 180_000, intervalMs: 500 };
/** kubelet and agent each statfs the same mounted filesystem at different instants; nothing writes in between. */
const USED_TOLERANCE = 1024 * 1024;

describe('real nodes: a kubelet and containerd joined to the real control plane run pods, and mount the volumes we provision', { skip, timeout: 900_000 }, () => {
  let plane: ControlPlane & { removeDir(): Promise<void> };
  let api: ClusterApi;
  let nodes: Nodes | undefined;
  let work: string;
  let root: string;
  let agent: ManagedProcess | undefined;
  let central: ManagedProcess | undefined;
  let agentMetrics = '';
  const kubectl = (args: string[]): Promise<{ stdout: string }> => run(findKubectl() ?? 'kubectl', ['--kubeconfig', plane.kubeconfigPath, ...args]);
  const getPod = (name: string): Promise<Pod | undefined> => api.get<Pod>(`/api/v1/namespaces/${NS}/pods/${name}`);

  before(async () => {
    plane = await startTestControlPlane({ nodes: 1 });
    api = new ClusterApi(plane.admin());
    await plane.startControllerManager({ controllers: ['node-lifecycle-controller'] });
    await plane.startScheduler();
    work = await mkdtemp(join(tmpdir(), 'pv-nodes-'));
    nodes = await startNodes({ controlPlane: plane, count: 1, dir: join(work, 'nodes') });
    root = join(work, 'nodes', NODE, 'pv-root');
    await mkdir(root, { recursive: true });
    const port = await freePort();
    agentMetrics = `http://127.0.0.1:${port}/metrics`;
    agent = startProcess('node-agent', process.execPath, [
      MAIN, 'node-agent', '--host-path-root', root, '--kubeconfig', plane.kubeconfigPath, '--node-name', NODE,
      '--capacity-namespace', 'kube-system', '--capacity-publish-period', '1s', '--leader-elect', 'true', '--leader-elect-resource-namespace', 'kube-system',
      '--metrics-bind-address', `127.0.0.1:${port}`, '--volume-stats-agg-period', '2s', '--pvclaimbinder-sync-period', '2s',
    ], join(plane.dir, 'agent.log'), plane.dir);
    central = startProcess('pv-controller', process.execPath, [
      MAIN, 'controller', '--kubeconfig', plane.controllerKubeconfigPath ?? '', '--leader-elect=true',
      '--metrics-bind-address=127.0.0.1:0', '--pvclaimbinder-sync-period=2s',
    ], join(plane.dir, 'controller.log'), plane.dir);
    await createSizedNodeClass(api, CLASS);
  });

  after(async () => {
    await agent?.stop();
    await central?.stop();
    await nodes?.stop();
    api?.close();
    await plane?.stop();
    await plane?.removeDir();
    if (work) await rm(work, { recursive: true, force: true });
  });

  test('node-1 joins as system:node:node-1 and goes Ready; a busybox pod runs to completion and kubectl logs reads its output through the kubelet', async () => {
    const node = await api.get<{ status?: { nodeInfo?: { kubeletVersion?: string; containerRuntimeVersion?: string } } }>(`/api/v1/nodes/${NODE}`);
    assert.match(node?.status?.nodeInfo?.kubeletVersion ?? '', /^v1\.\d+\.\d+/);
    assert.match(node?.status?.nodeInfo?.containerRuntimeVersion ?? '', /^containerd:\/\/2\./);
    await api.post(`/api/v1/namespaces/${NS}/pods`, 'v1', 'Pod', podSpec('hello', ['echo "hello from $(hostname)"; echo second line'], { restartPolicy: 'Never' }));
    const pod = await waitFor(async () => {
      const p = await getPod('hello');
      return p?.status?.phase === 'Succeeded' || p?.status?.phase === 'Failed' ? p : undefined;
    }, 'the hello pod to finish', SLOW);
    assert.equal(pod.status?.phase, 'Succeeded', JSON.stringify(pod.status));
    assert.equal(pod.spec.nodeName, NODE);
    const { stdout } = await kubectl(['logs', '-n', NS, 'hello']);
    assert.equal(stdout, `hello from ${(await run('hostname')).stdout.trim()}\nsecond line\n`);
    await api.delete(`/api/v1/namespaces/${NS}/pods/hello`);
    await waitFor(async () => ((await getPod('hello')) ? undefined : true), 'the finished pod to be deleted by the kubelet', SLOW);
  });

  let pvPath = '';
  test('a workload pod mounts a provisioned 20Mi sized volume, writes a file that is on disk where the PV says, and gets ENOSPC at the size', async (t) => {
    await api.post(`/api/v1/namespaces/${NS}/persistentvolumeclaims`, 'v1', 'PersistentVolumeClaim', {
      metadata: { name: 'data', namespace: NS },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '20Mi' } }, storageClassName: CLASS },
    });
    const script = [
      'echo payload-from-the-pod > /data/hello.txt',
      'dd if=/dev/zero of=/data/fill bs=1M count=64 2>/tmp/dd.err; echo "dd exit $?"; grep -o "No space left on device" /tmp/dd.err | head -n 1',
      'rm -f /data/fill; dd if=/dev/zero of=/data/five bs=1M count=5 2>/dev/null; sync; echo written',
      'trap "exit 0" TERM; while true; do sleep 1; done',
    ];
    await api.post(`/api/v1/namespaces/${NS}/pods`, 'v1', 'Pod', podSpec('writer', script, { claim: 'data', terminationGracePeriodSeconds: 30 }));
    await waitFor(async () => (/written/.test((await kubectl(['logs', '-n', NS, 'writer']).catch(() => ({ stdout: '' }))).stdout) ? true : undefined), 'the writer to fill its volume', SLOW);
    const { stdout } = await kubectl(['logs', '-n', NS, 'writer']);
    t.diagnostic(stdout.trim().replace(/\n/g, ' | '));
    assert.match(stdout, /^dd exit 1\nNo space left on device\nwritten\n$/);
    const claim = await api.get<PersistentVolumeClaim>(`/api/v1/namespaces/${NS}/persistentvolumeclaims/data`);
    const pv = await api.get<PersistentVolume>(`/api/v1/persistentvolumes/${claim?.spec.volumeName ?? ''}`);
    pvPath = pv?.spec.local?.path ?? '';
    assert.ok(pvPath.startsWith(`${root}/`), `the PV's path ${pvPath} is under the agent's root`);
    assert.equal(await readFile(join(pvPath, 'hello.txt'), 'utf8'), 'payload-from-the-pod\n');
    assert.deepEqual(mountsUnder(pvPath).filter((m) => m === pvPath), [pvPath], 'the image is mounted at the PV path on the host');
  });

  test('the kubelet\'s own kubelet_volume_stats_* for the claim, scraped on its port as kube-apiserver would, match our agent\'s', async (t) => {
    assert.ok(pvPath, 'the volume test ran');
    const series = ['capacity_bytes', 'used_bytes', 'available_bytes', 'inodes', 'inodes_used', 'inodes_free'];
    const both = await waitFor(async () => {
      const kubelet = scrape((await nodes?.nodes[0].kubeletGet('/metrics')) ?? '');
      const ours = scrape(await (await fetch(agentMetrics)).text());
      const k = series.map((s) => volumeStat(kubelet, s, NS, 'data'));
      const o = series.map((s) => volumeStat(ours, s, NS, 'data'));
      return k.every((v) => v !== undefined) && o.every((v) => v !== undefined) && (k[1] ?? 0) >= 5 * 1024 * 1024 ? { k, o } : undefined;
    }, 'both to report the claim', SLOW);
    t.diagnostic(series.map((s, i) => `${s}: kubelet ${both.k[i]}, ours ${both.o[i]}`).join('; '));
    assert.equal(both.k[0], both.o[0], 'capacity_bytes');
    assert.equal(both.k[3], both.o[3], 'inodes');
    for (const i of [1, 2]) assert.ok(Math.abs((both.k[i] ?? 0) - (both.o[i] ?? 0)) <= USED_TOLERANCE, `${series[i]} within 1 MiB`);
    for (const i of [4, 5]) assert.ok(Math.abs((both.k[i] ?? 0) - (both.o[i] ?? 0)) <= 2, `${series[i]} within 2 inodes`);
  });

  test('the pod deleted gracefully (the kubelet finishes the delete), then the claim: the volume, its image, mount and loop device are gone', async () => {
    assert.ok(pvPath, 'the volume test ran');
    await api.delete(`/api/v1/namespaces/${NS}/pods/writer`);
    await waitFor(async () => ((await getPod('writer')) ? undefined : true), 'the kubelet to finish the graceful delete', SLOW);
    await api.delete(`/api/v1/namespaces/${NS}/persistentvolumeclaims/data`);
    await waitFor(async () => ((await api.items<PersistentVolume>('/api/v1/persistentvolumes')).length === 0 ? true : undefined), 'the PV to be deleted', SLOW);
    await waitFor(async () => (existsSync(pvPath) ? undefined : true), 'the volume directory to be removed', SLOW);
    assert.deepEqual(mountsUnder(root), [], 'nothing mounted under the root');
    assert.deepEqual(loopDevicesUnder(root), [], 'no loop device left attached');
    const images = await readdir(join(root, IMAGE_DIR)).catch(() => [] as string[]);
    assert.deepEqual(images, [], 'no image left');
  });

  test('stopping the nodes leaves nothing: kubelet, containerd and shims gone, no process in the node\'s cgroups, the cgroups, mounts and directories removed', async () => {
    const node = nodes?.nodes[0];
    assert.ok(node);
    const socket = node.paths.containerdSocket;
    const pids = [node.kubelet.pid, node.containerd.pid];
    await agent?.stop();
    await nodes?.stop();
    const alive = pids.filter((pid) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    });
    assert.deepEqual(alive, [], 'kubelet and containerd have exited');
    assert.deepEqual(shimsOf(socket), [], 'no shim of this containerd is left');
    assert.deepEqual(pidsUnder(node.cgroupRoot), [], 'no process in the node\'s cgroups');
    assert.equal(existsSync(join('/sys/fs/cgroup/memory', node.cgroupRoot)), false, 'the node\'s cgroup is removed');
    assert.deepEqual(mountsUnder(node.dir), [], 'nothing mounted under the node directory');
    assert.equal(existsSync(node.dir), false, 'the node directory is removed');
  });
});

