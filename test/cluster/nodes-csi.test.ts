/**
 * Issue 28, the CSI part of the nodes suite: a pod on a real kubelet uses a CSI volume we
 * provisioned. The real control plane (kube-controller-manager running the node-lifecycle and
 * protection controllers), one node (kubelet + containerd, tools/cluster/nodes.ts), Kubernetes' CSI mock
 * registered with that kubelet through csi-registrar (tools/cluster/csi-node-plugin.ts), and our
 * controller with `--csi-address` on the mock's socket. A claim of the mock's class is Bound by
 * us, a pod on the node mounts it, writes and reads it; the pod is deleted gracefully (the
 * kubelet unpublishes), then the claim: DeleteVolume is called exactly once.
 *
 * What the mock's "volume" is (csi-node-plugin.ts): NodePublishVolume makes the target a plain
 * directory on the node's filesystem, so the pod writes to the kubelet's own disk and what it
 * wrote is removed at unpublish. The test checks both from the host side.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CoreV1Api, StorageV1Api, type V1Pod } from '@kubernetes/client-node';
import { startProvisioner, type RunningProvisioner } from '../../bench/csi/provisioner.js';
import { csiBinaryUnavailable } from '../../tools/cluster/csi-build.js';
import { startCsiNodePlugin, type CsiNodePlugin } from '../../tools/cluster/csi-node-plugin.js';
import { nodesUnavailable } from '../../tools/cluster/node-binaries.js';
import { startNodes } from '../../tools/cluster/nodes.js';
import type { ManagedProcess } from '../../tools/cluster/processes.js';
import { realControlPlaneSkip, startTestControlPlane } from '../helpers/control-plane.js';
import { waitFor } from '../helpers/wait.js';
import { podSpec } from './nodes/pods.js';

// Short: the registration socket <kubelet root>/plugins_registry/<driver>-reg.sock must fit a
// unix socket path (~107 bytes).
const DRIVER = 'node.csi.test';
const CLASS = 'csi-mock-node';
const NS = 'default';

const skip = realControlPlaneSkip() || nodesUnavailable() || (csiBinaryUnavailable('csi-mock') ?? csiBinaryUnavailable('csi-registrar') ?? false);

test('a pod on a real kubelet writes to a CSI volume we provisioned; pod and claim deleted, DeleteVolume called once', { skip, timeout: 10 * 60_000 }, async () => {
  const stops: Array<() => Promise<void>> = [];
  // Unix socket paths are limited to ~107 bytes: the driver's sockets and the node (whose kubelet
  // root holds plugins_registry) live in a short directory.
  const socketDir = await mkdtemp(join(tmpdir(), 'csin-'));
  stops.push(() => rm(socketDir, { recursive: true, force: true }));
  try {
    const plane = await startTestControlPlane({ nodes: 1, controllerRbac: 'rbac-csi.yaml' });
    stops.push(() => plane.stop().finally(() => plane.removeDir()));
    const kcm: ManagedProcess = await plane.startControllerManager({
      controllers: ['node-lifecycle-controller', 'persistentvolume-protection-controller', 'persistentvolumeclaim-protection-controller'],
    });
    stops.push(() => kcm.stop());
    const core = plane.admin().makeApiClient(CoreV1Api);
    const storage = plane.admin().makeApiClient(StorageV1Api);
    // No VolumeAttachment for this driver: the kubelet stages and publishes straight away.
    await storage.createCSIDriver({ body: { metadata: { name: DRIVER }, spec: { attachRequired: false, podInfoOnMount: false, volumeLifecycleModes: ['Persistent'] } } });
    await storage.createStorageClass({ body: { metadata: { name: CLASS }, provisioner: DRIVER, reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' } });

    const nodes = await startNodes({ controlPlane: plane, count: 1, dir: join(socketDir, 'n') });
    stops.push(() => nodes.stop());
    const node = nodes.nodes[0]!;
    const plugin: CsiNodePlugin = await startCsiNodePlugin({ dir: socketDir, driver: DRIVER, registrationDir: join(node.paths.kubeletRoot, 'plugins_registry') });
    stops.push(() => plugin.stop());

    // The kubelet found the registration socket, dialled the driver and wrote its CSINode entry.
    const csiNode = await waitFor(async () => {
      const n = await storage.readCSINode({ name: node.name }).catch(() => undefined);
      return n?.spec.drivers.find((d) => d.name === DRIVER);
    }, `CSINode ${node.name} lists ${DRIVER}`, { timeoutMs: 60_000, intervalMs: 500 });
    assert.equal(csiNode.nodeID, DRIVER, 'the mock names its node after the driver (NodeGetInfo)');
    const notified = (await plugin.registrarCalls()).filter((c) => c.method.endsWith('/NotifyRegistrationStatus'));
    assert.deepEqual(notified.map((c) => c.request), [{ pluginRegistered: true }]);

    const provisioner: RunningProvisioner = startProvisioner({
      kind: 'pv-controller', kubeconfig: plane.controllerKubeconfigPath ?? plane.kubeconfigPath, csiAddress: plugin.socket, dir: socketDir, resizer: false, workers: 4,
    });
    stops.push(() => provisioner.stop());
    await core.createNamespacedPersistentVolumeClaim({ namespace: NS, body: {
      metadata: { name: 'data' }, spec: { storageClassName: CLASS, accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    } });
    const bound = await waitFor(async () => {
      const c = await core.readNamespacedPersistentVolumeClaim({ name: 'data', namespace: NS });
      return c.status?.phase === 'Bound' ? c : undefined;
    }, 'claim data Bound by our controller', { timeoutMs: 60_000, intervalMs: 250 });
    const pvName = bound.spec!.volumeName!;
    const created = await plugin.mockCalls('/csi.v1.Controller/CreateVolume');
    assert.equal(created.filter((c) => c.code === 'OK').length, 1);
    const volumeId = (created[0]!.response as { volume: { volumeId: string } }).volume.volumeId;

    const script = ['echo written-by-the-pod > /data/out && cat /data/out', 'trap "exit 0" TERM; while true; do sleep 1; done'];
    const body = podSpec('writer', script, { claim: 'data' }) as V1Pod;
    body.spec = { ...body.spec!, nodeName: node.name };
    const pod = await core.createNamespacedPod({ namespace: NS, body });
    await waitFor(async () => (await core.readNamespacedPod({ name: 'writer', namespace: NS })).status?.phase === 'Running', 'the writer pod Running', { timeoutMs: 180_000, intervalMs: 500 });
    const target = join(node.paths.kubeletRoot, 'pods', pod.metadata!.uid!, 'volumes', 'kubernetes.io~csi', pvName, 'mount');
    const written = await waitFor(() => (existsSync(join(target, 'out')) ? readFileSync(join(target, 'out'), 'utf8') : undefined), 'what the pod wrote, seen from the node', { timeoutMs: 30_000 });
    assert.equal(written, 'written-by-the-pod\n');
    const published = await plugin.mockCalls('/csi.v1.Node/NodePublishVolume');
    assert.deepEqual(published.map((c) => [c.code, c.request?.volumeId, c.request?.targetPath]), [['OK', volumeId, target]]);

    // Graceful: the kubelet stops the container, unpublishes and deletes the pod itself.
    await core.deleteNamespacedPod({ name: 'writer', namespace: NS });
    await waitFor(async () => (await core.readNamespacedPod({ name: 'writer', namespace: NS }).then(() => false, () => true)), 'the pod gone', { timeoutMs: 120_000, intervalMs: 500 });
    await waitFor(async () => (await plugin.mockCalls('/csi.v1.Node/NodeUnpublishVolume')).some((c) => c.code === 'OK'), 'NodeUnpublishVolume', { timeoutMs: 60_000 });
    assert.equal(existsSync(target), false, 'the published directory and what the pod wrote are gone');

    await core.deleteNamespacedPersistentVolumeClaim({ name: 'data', namespace: NS });
    await waitFor(async () => (await core.readPersistentVolume({ name: pvName }).then(() => false, () => true)), `PV ${pvName} gone`, { timeoutMs: 60_000, intervalMs: 250 });
    const deletes = await plugin.mockCalls('/csi.v1.Controller/DeleteVolume');
    assert.deepEqual(deletes.map((c) => [c.code, c.request?.volumeId]), [['OK', volumeId]], 'DeleteVolume once, for our volume');
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  }
});
