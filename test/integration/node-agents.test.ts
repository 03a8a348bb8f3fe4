/**
 * The multi-node shape on the embedded server: a central controller that serves no host-path
 * plugin, and two `pv-controller node-agent` processes (nodes n1 and n2, each with its own root).
 * No scheduler runs here, so the test sets the selected-node annotation as kube-scheduler would.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ANN_SELECTED_NODE, LABEL_HOSTNAME } from '@pv-controller/kube/annotations.js';
import type { KubeObject, PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { NODE_HOST_PATH_PROVISIONER } from '../../src/plugins/host-path/index.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { AgentsApi, createAgentClass, resizeEvents, startAgents, stopAgent } from './node-agent-helpers.js';
import { waitFor } from './provisioning-helpers.js';

const NODES = ['n1', 'n2'];

describe('node agents: each provisions, deletes, grows and reports capacity for its own node only', () => {
  let cluster: TestCluster;
  let api: AgentsApi;
  const agents: ChildProcess[] = [];
  let roots: Record<string, string> = {};

  before(async () => {
    cluster = await startTestCluster({ noHostPath: true });
    api = new AgentsApi(cluster.kc);
    roots = await startAgents(cluster, api, NODES, agents);
    await createAgentClass(api, 'local');
  });

  after(async () => {
    await Promise.all(agents.map(stopAgent));
    api.close();
    await cluster.stop();
  });

  test('each agent publishes its CSIStorageCapacity for the class, and the CSIDriver the scheduler needs', async () => {
    const capacities = await waitFor(async () => {
      const items = await api.items<KubeObject & { storageClassName: string; capacity?: string; nodeTopology?: { matchLabels: Record<string, string> } }>(
        '/apis/storage.k8s.io/v1/namespaces/default/csistoragecapacities',
      );
      return items.length === 2 ? items : undefined;
    }, 'two CSIStorageCapacity objects');
    assert.deepEqual(capacities.map((c) => c.nodeTopology?.matchLabels[LABEL_HOSTNAME]).sort(), NODES);
    for (const c of capacities) {
      assert.equal(c.storageClassName, 'local');
      assert.match(c.capacity ?? '', /^\d+(\.\d+)?([KMGTPE]i)?$/);
      assert.equal(c.metadata.ownerReferences?.[0]?.kind, 'Node');
    }
    const driver = await api.get<{ spec: { storageCapacity: boolean; attachRequired: boolean } }>(`/apis/storage.k8s.io/v1/csidrivers/${NODE_HOST_PATH_PROVISIONER}`);
    assert.deepEqual([driver?.spec.storageCapacity, driver?.spec.attachRequired], [true, false]);
  });

  test('a claim placed on n1 is provisioned by n1 only: a local PV pinned to n1, its directory under n1\'s root; deleting it removes it there', async () => {
    const claim = await api.post<PersistentVolumeClaim>('/api/v1/namespaces/default/persistentvolumeclaims', 'v1', 'PersistentVolumeClaim', {
      metadata: { name: 'on-n1', namespace: 'default', annotations: { [ANN_SELECTED_NODE]: 'n1' } },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'local' },
    });
    const bound = await waitFor(async () => {
      const c = await api.get<PersistentVolumeClaim>('/api/v1/namespaces/default/persistentvolumeclaims/on-n1');
      return c?.status?.phase === 'Bound' ? c : undefined;
    }, 'the claim to be Bound');
    const pv = await api.get<PersistentVolume>(`/api/v1/persistentvolumes/${bound.spec.volumeName}`);
    assert.equal(pv?.spec.local?.path, join(roots.n1, `kubernetes-dynamic-pvc-${claim.metadata.uid}`));
    assert.deepEqual(pv?.spec.nodeAffinity?.required?.nodeSelectorTerms?.[0]?.matchExpressions?.[0]?.values, ['n1']);
    assert.deepEqual((await readdir(roots.n2)).filter((n) => !n.startsWith('.')), [], 'nothing on n2');
    const reasons = (await api.events('default', 'on-n1')).map((e) => `${e.reason}: ${e.message}`);
    assert.ok(!reasons.some((r) => r.startsWith('ProvisioningFailed')), reasons.join('\n'));

    await api.delete('/api/v1/namespaces/default/persistentvolumeclaims/on-n1');
    await waitFor(async () => ((await api.get(`/api/v1/persistentvolumes/${bound.spec.volumeName}`)) ? undefined : true), 'the PV to be deleted');
    await waitFor(async () => ((await readdir(roots.n1)).filter((n) => !n.startsWith('.')).length === 0 ? true : undefined), 'n1\'s directory to be removed');
  });

  // Last: its class adds a CSIStorageCapacity per node, which the first test counts.
  test('a grown plain-directory claim on n1: n1\'s agent is its resizer and says it cannot grow (ControllerResizeInfeasible); nobody waits for an external controller', async () => {
    await createAgentClass(api, 'local-grows', { allowVolumeExpansion: true });
    await api.post('/api/v1/namespaces/default/persistentvolumeclaims', 'v1', 'PersistentVolumeClaim', {
      metadata: { name: 'plain', namespace: 'default', annotations: { [ANN_SELECTED_NODE]: 'n1' } },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'local-grows' },
    });
    const bound = await api.claimWhen('plain', 'to be Bound', (c) => c.status?.phase === 'Bound');
    await api.growClaim('plain', '2Gi');
    const claim = await api.claimWhen('plain', 'to be infeasible', (c) => c.status?.allocatedResourceStatuses?.storage === 'ControllerResizeInfeasible');
    const pv = bound.spec.volumeName ?? '';
    assert.equal(claim.metadata.annotations?.['volume.kubernetes.io/storage-resizer'], NODE_HOST_PATH_PROVISIONER);
    assert.deepEqual(claim.status?.allocatedResources, { storage: '2Gi' });
    assert.equal(claim.status?.capacity?.storage, '1Gi');
    assert.equal(claim.status?.conditions?.find((c) => c.type === 'ControllerResizeError')?.message,
      `error expanding pvc default/plain: PV "${pv}" is a plain directory (sizing: none), which has no size to grow; ` +
        'only sizing: image volumes can be expanded (a StorageClass of plain directories should not set allowVolumeExpansion)');
    assert.deepEqual(await resizeEvents(api, 'plain', 'VolumeResizeFailed'), ['Resizing×1', 'VolumeResizeFailed×1']);
    assert.equal((await api.get<PersistentVolume>(`/api/v1/persistentvolumes/${pv}`))?.spec.capacity?.storage, '1Gi');
  });
});
