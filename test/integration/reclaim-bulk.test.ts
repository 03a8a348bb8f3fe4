/** Reclaim at volume: many provisioned claims deleted at once all end with their volumes deleted. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { CoreV1Api, StorageV1Api } from '@kubernetes/client-node';
import { HOST_PATH_PROVISIONER } from '../../src/plugins/host-path/index.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { waitFor } from '../helpers/wait.js';

const N = 30;
let cluster: TestCluster;
before(async () => {
  // The default 10m resync: every step must follow from an event, none from a periodic resync.
  cluster = await startTestCluster({ controllerOptions: { syncPeriodMs: 600_000 } });
});
after(async () => cluster.stop());

test(`${N} provisioned claims deleted at once: every PV is released and deleted, every directory removed`, { timeout: 120_000 }, async () => {
  const core = cluster.kc.makeApiClient(CoreV1Api);
  await cluster.kc.makeApiClient(StorageV1Api).createStorageClass({
    body: { metadata: { name: 'bulk' }, provisioner: HOST_PATH_PROVISIONER, reclaimPolicy: 'Delete' },
  });
  const names = Array.from({ length: N }, (_, i) => `bulk-${i}`);
  await Promise.all(
    names.map((name) =>
      core.createNamespacedPersistentVolumeClaim({
        namespace: 'default',
        body: { metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'bulk', resources: { requests: { storage: '1Mi' } } } },
      }),
    ),
  );
  await waitFor(async () => {
    const list = await core.listNamespacedPersistentVolumeClaim({ namespace: 'default' });
    return list.items.filter((c) => c.status?.phase === 'Bound').length === N;
  }, 'all claims Bound', { timeoutMs: 60_000 });
  await Promise.all(names.map((name) => core.deleteNamespacedPersistentVolumeClaim({ name, namespace: 'default' })));
  try {
    await waitFor(async () => (await core.listPersistentVolume()).items.length === 0, 'every PV deleted', { timeoutMs: 60_000 });
  } catch (err) {
    const pvs = (await core.listPersistentVolume()).items.map((v) => `${v.metadata?.name} ${v.status?.phase} ${v.metadata?.deletionTimestamp ? 'deleting' : ''} fin=${v.metadata?.finalizers} ann=${JSON.stringify(v.metadata?.annotations)}`);
    const claims = (await core.listNamespacedPersistentVolumeClaim({ namespace: 'default' })).items.map((c) => `${c.metadata?.name} ${c.status?.phase} fin=${c.metadata?.finalizers} del=${c.metadata?.deletionTimestamp}`);
    throw new Error(`${(err as Error).message}\nPVs:\n${pvs.slice(0, 5).join('\n')}\n(${pvs.length})\nclaims:\n${claims.slice(0, 5).join('\n')} (${claims.length})`);
  }
  await waitFor(async () => (await core.listNamespacedPersistentVolumeClaim({ namespace: 'default' })).items.length === 0, 'every claim gone');
  const left = (await readdir(cluster.hostPathRoot)).filter((d) => d !== '.pv-controller');
  assert.deepEqual(left, [], 'no volume directory left');
});
