/**
 * One node agent with two roots, each with a configured capacity, on the embedded server: the
 * class's CSIStorageCapacity is the larger root's room (a volume cannot span roots), claims made
 * at once are placed so that no root is promised more than its capacity, the claim that fits
 * nowhere waits with a ProvisioningFailed event naming the roots, a restarted agent rebuilds the
 * accounting from its records, and a deleted volume's space is published and given again.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ANN_SELECTED_NODE, LABEL_HOSTNAME } from '@pv-controller/kube/annotations.js';
import type { KubeObject, PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { AgentsApi, createAgentClass, startAgent, stopAgent } from './node-agent-helpers.js';
import { waitFor } from './provisioning-helpers.js';

type Capacity = KubeObject & { storageClassName: string; capacity?: string; maximumVolumeSize?: string };
const CLAIMS = '/api/v1/namespaces/default/persistentvolumeclaims';

describe('node agent with several roots: placement within each root\'s capacity', () => {
  let cluster: TestCluster;
  let api: AgentsApi;
  let agent: ChildProcess | undefined;
  let big: string;
  let small: string;
  let args: string[];

  before(async () => {
    cluster = await startTestCluster({ noHostPath: true });
    api = new AgentsApi(cluster.kc);
    [big, small] = [join(cluster.dataDir, 'disk-big'), join(cluster.dataDir, 'disk-small')];
    for (const root of [big, small]) await mkdir(root);
    await api.post('/api/v1/nodes', 'v1', 'Node', { metadata: { name: 'n1', labels: { [LABEL_HOSTNAME]: 'n1' } } });
    args = ['--host-path-root', small, '--host-path-root-capacity', `${big}=3Gi`, '--host-path-root-capacity', `${small}=2Gi`];
    agent = startAgent(cluster.api.server.kubeconfigPath, 'n1', big, args);
    await createAgentClass(api, 'disks');
  });

  after(async () => {
    if (agent) await stopAgent(agent);
    api.close();
    await cluster.stop();
  });

  const capacityIs = (capacity: string): Promise<Capacity> =>
    waitFor(async () => {
      const [c] = await api.items<Capacity>('/apis/storage.k8s.io/v1/namespaces/default/csistoragecapacities');
      return c?.capacity === capacity ? c : undefined;
    }, `the class's CSIStorageCapacity to say ${capacity}`);

  const claim = (name: string): Promise<PersistentVolumeClaim> =>
    api.post(CLAIMS, 'v1', 'PersistentVolumeClaim', {
      metadata: { name, namespace: 'default', annotations: { [ANN_SELECTED_NODE]: 'n1' } },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'disks' },
    });

  const volumesIn = async (root: string): Promise<number> => (await readdir(root)).filter((n) => !n.startsWith('.')).length;

  test('the published capacity is the larger root\'s room, not the sum', async () => {
    const c = await capacityIs('3Gi');
    assert.equal(c.maximumVolumeSize, '3Gi');
  });

  test('five claims made at once fill both roots exactly; a sixth waits naming the roots; a restart keeps the accounting; a delete frees its room', async () => {
    const names = ['c1', 'c2', 'c3', 'c4', 'c5'];
    await Promise.all(names.map(claim));
    for (const name of names) await api.claimWhen(name, 'to be Bound', (c) => c.status?.phase === 'Bound');
    assert.deepEqual([await volumesIn(big), await volumesIn(small)], [3, 2]);
    await capacityIs('0');

    await claim('c6');
    const failed = await waitFor(async () => (await api.events('default', 'c6')).find((e) => e.reason === 'ProvisioningFailed'), 'a ProvisioningFailed event about c6');
    assert.match(failed.message ?? '', /cannot hold 1Gi more: 3Gi of its configured capacity 3Gi/);
    assert.match(failed.message ?? '', /cannot hold 1Gi more: 2Gi of its configured capacity 2Gi/);

    await stopAgent(agent!);
    agent = startAgent(cluster.api.server.kubeconfigPath, 'n1', big, args);
    assert.equal((await api.claim('c6'))?.status?.phase, 'Pending');

    const gone = await api.claim('c4');
    await api.delete(`${CLAIMS}/c4`);
    await waitFor(async () => ((await api.get<PersistentVolume>(`/api/v1/persistentvolumes/${gone?.spec.volumeName}`)) ? undefined : true), 'c4\'s PV to be deleted');
    await capacityIs('1Gi');
    // c6 is retried on its backoff (up to minutes after failures); a new claim takes the space at once.
    await api.delete(`${CLAIMS}/c6`);
    await claim('c7');
    await api.claimWhen('c7', 'to be Bound in c4\'s space', (c) => c.status?.phase === 'Bound');
    await capacityIs('0');
    assert.deepEqual([await volumesIn(big), await volumesIn(small)], [3, 2], 'still no root holds more than its capacity');
  });
});
