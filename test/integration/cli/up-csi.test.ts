/**
 * `pv-controller up --csi-address SOCKET`, as a user runs it beside a CSI driver: the driver named
 * by GetPluginInfo serves its StorageClass; a claim is provisioned through CreateVolume (the seed's
 * tags as extra-create-metadata), its PV carries `spec.csi` and the controller's provenance proof,
 * it grows through ControllerExpandVolume, the driver's capacity is published as
 * CSIStorageCapacity, deleting the claim ends with DeleteVolume — and a PV someone wrote naming the
 * same volume handle is never deleted.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { ANN_CSI_PROVENANCE, ANN_PROVISIONED_BY } from '@pv-controller/kube/annotations.js';
import type { CoreEvent, ObjectList, PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { RestTransport } from '../../../src/kube-client/transport.js';
import { FakeCsiDriver } from '../../csi/fake-driver.js';
import { startUp, type UpProcess } from '../../helpers/up-process.js';
import { waitFor } from '../../helpers/wait.js';

const DRIVER = 'fake.csi.pv-controller.io';
let driver: FakeCsiDriver;
let up: UpProcess;
let api: RestTransport;

const get = <T>(path: string): Promise<T> => api.request<T>({ method: 'GET', verb: 'get', path });
const post = (path: string, body: object): Promise<unknown> => api.request({ method: 'POST', verb: 'create', path, body });

before(async () => {
  driver = await FakeCsiDriver.start({ name: DRIVER });
  up = await startUp(['--storage', 'memory', '--metrics-bind-address', '127.0.0.1:0', '--log-format', 'json', '--csi-address', driver.socketPath]);
  const kc = new KubeConfig();
  kc.loadFromFile(up.kubeconfigPath);
  api = new RestTransport(kc, { qps: 0, burst: 0 });
});

after(async () => {
  api?.close();
  await up?.stop();
  await driver?.stop();
});

test('up --csi-address provisions, grows, publishes capacity for and deletes a claim through the CSI driver, and never deletes a forged PV\'s volume', async () => {
  assert.match(up.output(), /CSI driver connected/);
  await post('/apis/storage.k8s.io/v1/storageclasses', {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: 'fake' },
    provisioner: DRIVER,
    allowVolumeExpansion: true,
  });
  await post('/api/v1/namespaces/default/persistentvolumeclaims', {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'data' },
    spec: { storageClassName: 'fake', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  });
  const claimPath = '/api/v1/namespaces/default/persistentvolumeclaims/data';
  const bound = await waitFor(async () => {
    const c = await get<PersistentVolumeClaim>(claimPath);
    return c.status?.phase === 'Bound' ? c : undefined;
  }, 'the claim to be Bound', { timeoutMs: 30_000 });
  const pv = await get<PersistentVolume>(`/api/v1/persistentvolumes/${bound.spec.volumeName}`);
  const csi = pv.spec.csi as { driver: string; volumeHandle: string };
  assert.equal(csi.driver, DRIVER);
  assert.equal(pv.metadata.annotations?.[ANN_PROVISIONED_BY], DRIVER);
  assert.match(pv.metadata.annotations?.[ANN_CSI_PROVENANCE] ?? '', /^v1:/);
  const create = driver.calls.find((c) => c.method === 'CreateVolume');
  const request = create?.request as { name: string; parameters: Record<string, string> };
  assert.equal(request.name, `kubernetes-dynamic-${pv.metadata.name}`);
  assert.deepEqual(request.parameters, {
    'csi.storage.k8s.io/pvc/name': 'data',
    'csi.storage.k8s.io/pvc/namespace': 'default',
    'csi.storage.k8s.io/pv/name': pv.metadata.name,
  });

  // Capacity, where kube-scheduler reads it.
  const capacities = await waitFor(async () => {
    const list = await get<ObjectList>('/apis/storage.k8s.io/v1/namespaces/kube-system/csistoragecapacities');
    return list.items.length > 0 ? list.items : undefined;
  }, 'a CSIStorageCapacity for the class', { timeoutMs: 30_000 });
  assert.equal((capacities[0] as unknown as { storageClassName: string }).storageClassName, 'fake');

  // Growth through ControllerExpandVolume.
  await api.request({ method: 'PATCH', verb: 'patch', path: claimPath, body: { spec: { resources: { requests: { storage: '3Gi' } } } }, contentType: 'application/merge-patch+json' });
  await waitFor(async () => ((await get<PersistentVolumeClaim>(claimPath)).status?.capacity?.storage === '3Gi' ? true : undefined), 'the claim to report 3Gi', { timeoutMs: 30_000 });
  assert.ok(driver.calls.some((c) => c.method === 'ControllerExpandVolume'));

  // A PV written by hand naming the same handle, provisioned-by the driver, policy Delete: refused.
  await post('/api/v1/persistentvolumes', {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: 'forged', annotations: { [ANN_PROVISIONED_BY]: DRIVER } },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Delete',
      csi: { driver: DRIVER, volumeHandle: csi.volumeHandle },
      claimRef: { namespace: 'default', name: 'gone', uid: '00000000-0000-0000-0000-000000000001' },
    },
  });
  const refusal = await waitFor(async () => {
    const events = await get<ObjectList<CoreEvent>>('/api/v1/namespaces/default/events');
    return events.items.find((e) => e.involvedObject?.name === 'forged' && e.reason === 'VolumeFailedDelete');
  }, 'the forged PV\'s delete to be refused', { timeoutMs: 30_000 });
  assert.match(refusal.message ?? '', /no valid proof that pv-controller made CSI volume/);
  assert.equal(driver.calls.filter((c) => c.method === 'DeleteVolume').length, 0, 'the volume was not deleted for the forged PV');

  // The CSI calls are measured where the sidecars measure them, on the controller's /metrics.
  const address = /"address":"([^"]+)","msg":"serving \/metrics/.exec(up.output())?.[1];
  assert.ok(address, 'up logged its metrics address');
  const metrics = await (await fetch(`http://${address}/metrics`)).text();
  assert.match(metrics, /csi_sidecar_operations_seconds_count\{driver_name="fake.csi.pv-controller.io",method_name="\/csi.v1.Controller\/CreateVolume",grpc_status_code="OK"\} 1/);

  // Deleting the claim deletes its volume on the driver.
  await api.request({ method: 'DELETE', verb: 'delete', path: claimPath });
  await waitFor(() => (driver.state.volumes.size === 0 ? true : undefined), 'the driver to hold no volume', { timeoutMs: 30_000 });
  const deletes = driver.calls.filter((c) => c.method === 'DeleteVolume').map((c) => (c.request as { volume_id?: string; volumeId?: string }));
  assert.equal(deletes.length, 1);
});
