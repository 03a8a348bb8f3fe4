/** The orphan count is a metric: a leaked volume shows on /metrics without anyone running `orphans`. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api, StorageV1Api } from '@kubernetes/client-node';
import { parseExposition } from '../../src/metrics/text-format.js';
import { HOST_PATH_PROVISIONER } from '../../src/plugins/host-path/index.js';
import { conformanceRequest } from '../plugins/conformance/subject.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { waitFor } from '../helpers/wait.js';

let cluster: TestCluster;
before(async () => {
  cluster = await startTestCluster({ noController: true });
});
after(async () => cluster.stop());

async function orphanGauge(url: string): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const sample = parseExposition(text).samples.find(
    (s) => s.name === 'pv_controller_orphaned_volumes' && s.labels.plugin === HOST_PATH_PROVISIONER,
  );
  return sample?.value;
}

test('a backing volume no PV or claim refers to is counted in pv_controller_orphaned_volumes; a bound one is not', async () => {
  const plugin = cluster.plugins.byProvisioner(HOST_PATH_PROVISIONER)!;
  // A leak: a directory of this cluster (metadata record and all) whose PV never came to be.
  await plugin.provision(conformanceRequest(plugin, { clusterName: cluster.options.clusterName }));
  const controller = await cluster.startController();
  const core = cluster.kc.makeApiClient(CoreV1Api);
  await core.createNamespacedPersistentVolumeClaim({
    namespace: 'default',
    body: {
      metadata: { name: 'kept', namespace: 'default' },
      spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'hp', resources: { requests: { storage: '1Mi' } } },
    },
  });
  const storage = cluster.kc.makeApiClient(StorageV1Api);
  await storage.createStorageClass({ body: { metadata: { name: 'hp' }, provisioner: HOST_PATH_PROVISIONER } });
  await waitFor(async () => (await core.readNamespacedPersistentVolumeClaim({ name: 'kept', namespace: 'default' })).status?.phase === 'Bound', 'claim Bound');
  // A scan runs when a controller starts leading; restart so one runs after the bind (the period is 10m).
  await cluster.stopController();
  const again = await cluster.startController();
  assert.notEqual(again, controller);
  const url = again.observability.server!.url;
  const count = await waitFor(async () => orphanGauge(url), 'the orphan gauge');
  assert.equal(count, 1, 'only the leaked directory is an orphan; the bound claim\'s volume is not');
});
