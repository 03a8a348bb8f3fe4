/**
 * The binder end to end: objects created through the Kubernetes API of the embedded server,
 * decisions taken by a controller that sees nothing but that API.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api } from '@kubernetes/client-node';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { waitFor } from '../helpers/wait.js';
import { ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER } from '@pv-controller/kube/annotations.js';

function staticVolume(name: string, size: string, cls = 'manual', modes = ['ReadWriteOnce']) {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name },
    spec: {
      capacity: { storage: size },
      accessModes: modes,
      storageClassName: cls,
      persistentVolumeReclaimPolicy: 'Retain',
      hostPath: { path: `/tmp/${name}` },
    },
  };
}

function claim(name: string, size: string, cls = 'manual', modes = ['ReadWriteOnce']) {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'default' },
    spec: { accessModes: modes, storageClassName: cls, resources: { requests: { storage: size } } },
  };
}

describe('binding through the embedded API server', () => {
  let cluster: TestCluster;
  let core: CoreV1Api;
  before(async () => {
    cluster = await startTestCluster();
    core = cluster.kc.makeApiClient(CoreV1Api);
  });
  after(async () => cluster.stop());

  test('a claim binds the smallest volume that fits, and both sides say so', async () => {
    for (const [name, size] of [['pv-small', '1Gi'], ['pv-fit', '5Gi'], ['pv-big', '50Gi']] as const) {
      await core.createPersistentVolume({ body: staticVolume(name, size) });
    }
    // The controller has seen every volume once it made them Available: on a real API server its
    // volume and claim watches may otherwise deliver the claim first, and it would bind what it knew.
    for (const name of ['pv-small', 'pv-fit', 'pv-big']) {
      await waitFor(async () => (await core.readPersistentVolume({ name })).status?.phase === 'Available', `${name} Available`);
    }
    await core.createNamespacedPersistentVolumeClaim({ namespace: 'default', body: claim('c1', '3Gi') });
    const bound = await waitFor(async () => {
      const c = await core.readNamespacedPersistentVolumeClaim({ name: 'c1', namespace: 'default' });
      return c.status?.phase === 'Bound' ? c : undefined;
    }, 'claim c1 Bound');
    assert.equal(bound.spec?.volumeName, 'pv-fit');
    assert.equal(bound.metadata?.annotations?.[ANN_BIND_COMPLETED], 'yes');
    assert.equal(bound.metadata?.annotations?.[ANN_BOUND_BY_CONTROLLER], 'yes');
    assert.equal(bound.status?.capacity?.storage, '5Gi');
    const pv = await waitFor(async () => {
      const v = await core.readPersistentVolume({ name: 'pv-fit' });
      return v.status?.phase === 'Bound' ? v : undefined;
    }, 'pv-fit Bound');
    assert.equal(pv.spec?.claimRef?.name, 'c1');
    assert.equal(pv.spec?.claimRef?.uid, bound.metadata?.uid);
    const small = await core.readPersistentVolume({ name: 'pv-small' });
    assert.equal(small.spec?.claimRef, undefined, 'a too-small volume is never touched');
  });

  test('a volume created after its claim binds at once, not at the next resync (10m here)', async () => {
    await cluster.restartController({ syncPeriodMs: 600_000 });
    await core.createNamespacedPersistentVolumeClaim({ namespace: 'default', body: claim('late', '1Gi', 'late-class') });
    await waitFor(async () => {
      const c = await core.readNamespacedPersistentVolumeClaim({ name: 'late', namespace: 'default' });
      return c.status?.phase === 'Pending' ? c : undefined;
    }, 'claim late Pending');
    await core.createPersistentVolume({ body: staticVolume('pv-late', '2Gi', 'late-class') });
    const c = await waitFor(async () => {
      const got = await core.readNamespacedPersistentVolumeClaim({ name: 'late', namespace: 'default' });
      return got.status?.phase === 'Bound' ? got : undefined;
    }, 'claim late Bound', { timeoutMs: 30_000 });
    assert.equal(c.spec?.volumeName, 'pv-late');
  });
});
