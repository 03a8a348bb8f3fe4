/**
 * Growing claims through the embedded API server, on each cloud plugin against its emulator:
 * the PV's capacity, the claim's KEP-1790 status and the events as upstream's resizers leave
 * them; a growth refused at the API as kube-apiserver's PersistentVolumeClaimResize refuses it;
 * a failed expansion recovered from by asking for less; host-path refusing for good.
 */
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import type { ApiError } from '@pv-controller/kube/errors.js';
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { AWS_EBS_PLUGIN_NAME } from '../../src/plugins/aws-ebs/parameters.js';
import { CINDER_PLUGIN_NAME } from '../../src/plugins/cinder/parameters.js';
import { GCE_PD_PLUGIN_NAME } from '../../src/plugins/gce-pd/parameters.js';
import { HOST_PATH_PROVISIONER } from '../../src/plugins/host-path/index.js';
import { Ec2Emulator } from '../emulators/ec2.js';
import { GceEmulator } from '../emulators/gce.js';
import { OpenStackEmulator } from '../emulators/openstack.js';
import { startTestCluster } from '../helpers/cluster.js';
import { awsPlugin, boundClaim, cinderPlugin, cloudClaim, cloudClass, gcePlugin, volumeOf } from './cloud-helpers.js';
import { claimWhen, conditionTypes, requestStorage, resizeStatusOf, startExpansionCluster, type ExpansionSetup } from './expansion-helpers.js';
import { TestApi } from './provisioning-helpers.js';

const running: { stop(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.stop();
});

async function aws(): Promise<ExpansionSetup<Ec2Emulator>> {
  const s = await startExpansionCluster(new Ec2Emulator(), awsPlugin, AWS_EBS_PLUGIN_NAME);
  running.push(s);
  return s;
}

/** Grows claim `name` from 1Gi to 3Gi and returns it once the controller's part is done. */
async function growToNodePending(s: ExpansionSetup<unknown>, name: string): Promise<PersistentVolumeClaim> {
  await s.api.createClaim(cloudClaim(name, 'grows', '1Gi'));
  await boundClaim(s, name);
  await requestStorage(s, name, '3Gi');
  return claimWhen(s, name, 'to wait for the node', (c) => resizeStatusOf(c) === 'NodeResizePending');
}

async function assertGrownOnController(s: ExpansionSetup<unknown>, claim: PersistentVolumeClaim): Promise<void> {
  const pv = await volumeOf(s, claim);
  assert.equal(pv.spec.capacity?.storage, '3Gi');
  assert.equal(pv.metadata.annotations?.['volume.alpha.kubernetes.io/pre-resize-capacity'], '1Gi');
  assert.deepEqual(claim.status?.allocatedResources, { storage: '3Gi' });
  assert.equal(claim.status?.capacity?.storage, '1Gi', 'the filesystem is grown by the kubelet, then the claim says 3Gi');
  assert.deepEqual(conditionTypes(claim), ['Resizing', 'FileSystemResizePending']);
  const fsPending = claim.status?.conditions?.find((c) => c.type === 'FileSystemResizePending');
  assert.equal(fsPending?.message, 'Waiting for user to (re-)start a pod to finish file system resize of volume on node.');
  await s.api.eventsRecorded('default', claim.metadata.name ?? '', ['Resizing', 'FileSystemResizeRequired']);
}

test('aws: a grown claim gets ModifyVolume to 3 GiB, the PV says 3Gi and the claim waits for the node (NodeResizePending)', async () => {
  const s = await aws();
  const claim = await growToNodePending(s, 'grow');
  await assertGrownOnController(s, claim);
  assert.deepEqual(s.emulator.volumes().map((v) => v.sizeGiB), [3]);
  assert.equal(s.emulator.modifications.history.length, 1);
});

test('gce: a grown claim gets disks.resize to 3 GiB, the PV says 3Gi and the claim waits for the node', async () => {
  const s = await startExpansionCluster(new GceEmulator(), gcePlugin, GCE_PD_PLUGIN_NAME);
  running.push(s);
  const claim = await growToNodePending(s, 'grow');
  await assertGrownOnController(s, claim);
  assert.deepEqual(s.emulator.disks().map((d) => d.sizeGb), [3]);
});

test('cinder: a grown claim gets os-extend to 3 GiB, the PV says 3Gi and the claim waits for the node', async () => {
  const s = await startExpansionCluster(new OpenStackEmulator(), cinderPlugin, CINDER_PLUGIN_NAME);
  running.push(s);
  const claim = await growToNodePending(s, 'grow');
  await assertGrownOnController(s, claim);
  assert.deepEqual(s.emulator.actions.map((a) => [a.action, a.value]), [['os-extend', 3]]);
});

test('aws: a raw block claim needs no node step: the claim itself says 3Gi, no resize status is left, VolumeResizeSuccessful', async () => {
  const s = await aws();
  await s.api.createClaim({ ...cloudClaim('raw', 'grows', '1Gi'), spec: { ...cloudClaim('raw', 'grows', '1Gi').spec, volumeMode: 'Block' } });
  await boundClaim(s, 'raw');
  await requestStorage(s, 'raw', '3Gi');
  const claim = await claimWhen(s, 'raw', 'to say 3Gi', (c) => c.status?.capacity?.storage === '3Gi');
  assert.equal(claim.status?.allocatedResourceStatuses, undefined);
  assert.deepEqual(claim.status?.allocatedResources, { storage: '3Gi' });
  assert.deepEqual(conditionTypes(claim), []);
  await s.api.eventsRecorded('default', 'raw', ['VolumeResizeSuccessful']);
});

test('a claim of a class without allowVolumeExpansion cannot grow: 403 Forbidden with the PersistentVolumeClaimResize message', async () => {
  const s = await aws();
  await s.api.createClaim(cloudClaim('fixed', 'fixed', '1Gi'));
  await boundClaim(s, 'fixed');
  await assert.rejects(requestStorage(s, 'fixed', '2Gi'), (err: ApiError) => {
    assert.equal(err.code, 403);
    assert.equal(err.reason, 'Forbidden');
    assert.equal(err.message,
      'persistentvolumeclaims "fixed" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
    return true;
  });
  assert.equal(s.emulator.modifications.history.length, 0);
});

test('KEP-1790: an expansion that fails for good is ControllerResizeInfeasible; asking for less (above the capacity) then succeeds', async () => {
  const s = await aws();
  await s.api.createClaim(cloudClaim('recover', 'grows', '1Gi'));
  await boundClaim(s, 'recover');
  s.emulator.modifications.failNext('requested size exceeds the account limit');
  await requestStorage(s, 'recover', '5Gi');
  const failed = await claimWhen(s, 'recover', 'to be infeasible', (c) => resizeStatusOf(c) === 'ControllerResizeInfeasible');
  assert.deepEqual(failed.status?.allocatedResources, { storage: '5Gi' });
  assert.match(failed.status?.conditions?.find((c) => c.type === 'ControllerResizeError')?.message ?? '', /exceeds the account limit/);
  await s.api.eventsRecorded('default', 'recover', ['VolumeResizeFailed']);
  await assert.rejects(requestStorage(s, 'recover', '1Gi'), /field can not be less than status.capacity/);
  await requestStorage(s, 'recover', '2Gi');
  const grown = await claimWhen(s, 'recover', 'to be grown to 2Gi', (c) => resizeStatusOf(c) === 'NodeResizePending');
  assert.deepEqual(grown.status?.allocatedResources, { storage: '2Gi' });
  assert.equal((await volumeOf(s, grown)).spec.capacity?.storage, '2Gi');
  assert.deepEqual(s.emulator.modifications.history.map((m) => [m.targetSize, m.state === 'failed']), [[5, true], [2, false]]);
});

test('host-path: a grown plain-directory claim is ControllerResizeInfeasible with a message that says only sized volumes grow and what its class should not offer', async () => {
  const cluster = await startTestCluster();
  const api = new TestApi(cluster.kc);
  running.push({ stop: async () => (api.close(), await cluster.stop()) });
  await api.createClass(cloudClass('local', HOST_PATH_PROVISIONER, { allowVolumeExpansion: true }));
  await api.createClaim(cloudClaim('local', 'local', '1Mi'));
  const setup = { api } as unknown as ExpansionSetup<unknown>;
  await boundClaim(setup, 'local');
  await requestStorage(setup, 'local', '2Mi');
  const claim = await claimWhen(setup, 'local', 'to be infeasible', (c) => resizeStatusOf(c) === 'ControllerResizeInfeasible');
  assert.match(claim.status?.conditions?.find((c) => c.type === 'ControllerResizeError')?.message ?? '',
    /is a plain directory \(sizing: none\), which has no size to grow; only sizing: image volumes can be expanded \(a StorageClass of plain directories should not set allowVolumeExpansion\)$/);
});

test('expansions are timed in storage_operation_duration_seconds and failures counted in volume_operation_total_errors as expand_volume', async () => {
  const s = await aws();
  const controller = await s.cluster.restartController({ metricsBindAddress: '127.0.0.1:0' });
  const scrape = async (): Promise<string> => (await fetch(`${controller.observability.server?.url ?? ''}/metrics`)).text();
  await s.api.createClaim(cloudClaim('timed', 'grows', '1Gi'));
  await boundClaim(s, 'timed');
  s.emulator.modifications.failNext();
  await requestStorage(s, 'timed', '5Gi');
  await claimWhen(s, 'timed', 'to be infeasible', (c) => resizeStatusOf(c) === 'ControllerResizeInfeasible');
  await requestStorage(s, 'timed', '2Gi');
  await claimWhen(s, 'timed', 'to be grown', (c) => resizeStatusOf(c) === 'NodeResizePending');
  const text = await scrape();
  const plugin = 'volume_plugin="kubernetes.io/aws-ebs",operation_name="expand_volume"';
  assert.match(text, new RegExp(`storage_operation_duration_seconds_count\\{${plugin},status="success",migrated="false"\\} 1\\n`));
  assert.match(text, new RegExp(`storage_operation_duration_seconds_count\\{${plugin},status="fail-unknown",migrated="false"\\} 1\\n`));
  assert.match(text, /volume_operation_total_errors\{plugin_name="kubernetes.io\/aws-ebs",operation_name="expand_volume"\} 1\n/);
});
