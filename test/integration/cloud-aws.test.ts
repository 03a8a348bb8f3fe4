/**
 * AWS EBS end to end: the controller (binder, provisioner, reclaimer) on the embedded API server,
 * the aws-ebs plugin over the official SDK against the loopback EC2 emulator. Every assertion on
 * disks is made on the emulator's side.
 */
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { ANN_BACKING_GENERATION, FINALIZER_PROVISIONING, LABEL_TOPOLOGY_ZONE, TAG_AWS_NAME } from '@pv-controller/kube/annotations.js';
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { AWS_EBS_PLUGIN_NAME } from '../../src/plugins/aws-ebs/parameters.js';
import type { VolumePlugin } from '../../src/plugins/api/core.js';
import { waitFor } from '../helpers/wait.js';
import {
  type AwsSetup,
  boundClaim,
  claimGone,
  cloudClaim,
  cloudClass,
  createNode,
  expectedBackingName,
  startAwsSetup,
  volumeGone,
  volumeOf,
} from './cloud-helpers.js';
import { HoldablePlugin } from './provisioning-helpers.js';

const running: AwsSetup[] = [];

afterEach(async () => {
  for (const s of running.splice(0)) {
    await s.stop();
    await s.ec2.stop();
  }
});

async function setup(wrap?: (plugin: VolumePlugin) => VolumePlugin): Promise<AwsSetup> {
  const s = await startAwsSetup(running, wrap);
  await s.api.createClass(cloudClass('ebs', AWS_EBS_PLUGIN_NAME));
  return s;
}

/** Live (not deleted) EBS volumes made for this claim, by the Name tag. */
function disksOf(s: AwsSetup, claim: PersistentVolumeClaim) {
  return s.ec2.volumes().filter((v) => v.tags[TAG_AWS_NAME] === expectedBackingName(claim));
}

async function provisionedDisk(s: AwsSetup, name: string) {
  const claim = await boundClaim(s, name);
  const disks = disksOf(s, claim);
  assert.equal(disks.length, 1, `exactly one EBS volume for claim ${name}`);
  return { claim, disk: disks[0], pv: await volumeOf(s, claim) };
}

test('aws: a claim gets one EBS volume named <cluster>-dynamic-pvc-<uid> with the claim, PV and cluster tags, and is bound to it', async () => {
  const s = await setup();
  const created = await s.api.createClaim(cloudClaim('db', 'ebs', '1500Mi'));
  const { claim, disk, pv } = await provisionedDisk(s, 'db');
  const pvName = `pvc-${created.metadata.uid}`;
  assert.equal(claim.spec.volumeName, pvName);
  assert.deepEqual(disk.tags, {
    Name: `kubernetes-dynamic-${pvName}`,
    'kubernetes.io/created-for/pvc/name': 'db',
    'kubernetes.io/created-for/pvc/namespace': 'default',
    'kubernetes.io/created-for/pv/name': pvName,
    'kubernetes.io/cluster/kubernetes': 'owned',
  });
  assert.equal(disk.sizeGiB, 2, '1500Mi rounds up to 2 GiB');
  assert.equal(pv.spec.capacity?.storage, '2Gi');
  assert.equal(pv.spec.awsElasticBlockStore?.volumeID, `aws://${disk.zone}/${disk.id}`);
  assert.equal(pv.metadata.labels?.[LABEL_TOPOLOGY_ZONE], disk.zone);
  assert.ok(!claim.metadata.finalizers?.includes(FINALIZER_PROVISIONING));
});

test('aws: a WaitForFirstConsumer claim gets its volume in the selected node zone, read from the node labels through the API', async () => {
  const s = await setup();
  await createNode(s, 'worker-b', { [LABEL_TOPOLOGY_ZONE]: 'us-east-1b' });
  await s.api.createClass(cloudClass('ebs-late', AWS_EBS_PLUGIN_NAME, { volumeBindingMode: 'WaitForFirstConsumer' }));
  await s.api.createClaim(cloudClaim('late', 'ebs-late', '1Gi', 'worker-b'));
  const { disk, pv } = await provisionedDisk(s, 'late');
  assert.equal(disk.zone, 'us-east-1b');
  const term = pv.spec.nodeAffinity?.required?.nodeSelectorTerms[0];
  assert.deepEqual(term?.matchExpressions?.find((e) => e.key === LABEL_TOPOLOGY_ZONE)?.values, ['us-east-1b']);
});

test('aws: deleting a claim whose class reclaims with Delete deletes the EBS volume and the PV', async () => {
  const s = await setup();
  await s.api.createClaim(cloudClaim('tmp', 'ebs'));
  const { claim, disk } = await provisionedDisk(s, 'tmp');
  await s.api.deleteClaim('default', 'tmp');
  await volumeGone(s, claim.spec.volumeName ?? '');
  assert.equal(s.ec2.volumes().some((v) => v.id === disk.id), false, 'the EBS volume is deleted');
});

test('aws: a CreateVolume whose answer is lost leaves one volume, not two, and the claim ends bound', async () => {
  const s = await setup();
  s.ec2.faults.inject('CreateVolume', 'lostResponse');
  await s.api.createClaim(cloudClaim('lost', 'ebs'));
  await provisionedDisk(s, 'lost');
  assert.equal(s.ec2.faults.pending('CreateVolume'), 0, 'the lost answer was exercised');
  assert.equal(s.ec2.volumes().length, 1);
});

test('aws: a volume that went to state error is deleted, and the retry makes a new one under a new ClientToken: the claim ends bound', async () => {
  const s = await setup();
  s.ec2.stateAfterCreate = 'error';
  const created = await s.api.createClaim(cloudClaim('burned', 'ebs'));
  await waitFor(async () => (await s.api.claim('default', 'burned'))?.metadata.annotations?.[ANN_BACKING_GENERATION] === '1', 'the deleted volume to be counted on the claim');
  s.ec2.stateAfterCreate = 'available';
  // EC2 answers a ClientToken it has seen with that token's volume, deleted or not: retried under
  // the first token, the claim would wait for a deleted volume for good.
  const { disk, pv } = await provisionedDisk(s, 'burned');
  assert.equal(pv.metadata.name, `pvc-${created.metadata.uid}`);
  assert.equal(pv.spec.awsElasticBlockStore?.volumeID, `aws://${disk.zone}/${disk.id}`);
  assert.deepEqual(s.ec2.volumes().map((v) => v.id), [disk.id], 'one live volume: the new one');
});

test('aws: a controller stopped after the volume was created and before the PV: the next one reuses that volume and binds', async () => {
  let holdable: HoldablePlugin | undefined;
  const s = await setup((plugin) => (holdable = new HoldablePlugin(plugin)));
  const hold = holdable!.holdNextProvision();
  const created = await s.api.createClaim(cloudClaim('crash', 'ebs'));
  await hold.reached;
  await s.cluster.stopController();
  hold.release();
  assert.deepEqual(await s.api.volumes(), [], 'the stopped controller created no PV');
  assert.equal(disksOf(s, created).length, 1);
  await s.cluster.startController();
  const { disk } = await provisionedDisk(s, 'crash');
  assert.equal(s.ec2.volumes().length, 1);
  assert.equal(disk.tags['kubernetes.io/created-for/pv/name'], `pvc-${created.metadata.uid}`);
});

test('aws: a claim deleted while CreateVolume hangs leaves no volume and no PV', async () => {
  const s = await setup();
  s.ec2.faults.inject('CreateVolume', 'hang');
  const created = await s.api.createClaim(cloudClaim('gone', 'ebs'));
  await waitFor(() => s.ec2.faults.calls('CreateVolume') >= 1, 'the hanging CreateVolume');
  const live = await s.api.claim('default', 'gone');
  assert.ok(live?.metadata.finalizers?.includes(FINALIZER_PROVISIONING), 'intent recorded before the cloud call');
  await s.api.deleteClaim('default', 'gone');
  await claimGone(s, 'gone');
  assert.deepEqual(await s.api.volumes(), []);
  assert.deepEqual(disksOf(s, created), [], 'whatever the retried create made was deleted');
});

test('aws: a claim deleted after its volume was created and before the PV was saved: the volume is deleted and no PV is made', async () => {
  let holdable: HoldablePlugin | undefined;
  const s = await setup((plugin) => (holdable = new HoldablePlugin(plugin)));
  const hold = holdable!.holdNextProvision();
  const created = await s.api.createClaim(cloudClaim('late-delete', 'ebs'));
  await hold.reached;
  assert.equal(disksOf(s, created).length, 1, 'the volume exists while the provision call is held');
  await s.api.deleteClaim('default', 'late-delete');
  hold.release();
  await claimGone(s, 'late-delete');
  assert.deepEqual(await s.api.volumes(), []);
  assert.deepEqual(disksOf(s, created), []);
});

test('aws: 5xx and throttling are retried inside the plugin and by the provisioner, and nothing is leaked', async () => {
  const s = await setup();
  s.ec2.faults.inject('DescribeVolumes', 'throttle', 2);
  s.ec2.faults.inject('CreateVolume', 'serverError', 7);
  await s.api.createClaim(cloudClaim('flaky', 'ebs'));
  await provisionedDisk(s, 'flaky');
  await s.api.eventsRecorded('default', 'flaky', ['ProvisioningFailed']); // the attempt that ran out of retries was reported
  assert.equal(s.ec2.faults.pending('CreateVolume'), 0);
  assert.equal(s.ec2.volumes().length, 1);
});

test('aws: "in use" on delete is retried later with a Normal event, never a failure, and the volume ends deleted', async () => {
  const s = await setup();
  await s.api.createClaim(cloudClaim('busy', 'ebs'));
  const { claim, disk } = await provisionedDisk(s, 'busy');
  const pvName = claim.spec.volumeName ?? '';
  s.ec2.faults.inject('DeleteVolume', 'inUse', 2);
  await s.api.deleteClaim('default', 'busy');
  const events = await waitFor(async () => {
    const list = await s.api.eventsFor('default', pvName);
    return list.some((e) => e.reason === 'VolumeDelete' && e.type === 'Normal') ? list : undefined;
  }, 'a Normal VolumeDelete event');
  assert.match(events.find((e) => e.reason === 'VolumeDelete')?.message ?? '', /in use/);
  await volumeGone(s, pvName);
  assert.equal(s.ec2.volumes().some((v) => v.id === disk.id), false);
  const warnings = (await s.api.eventsFor('default', pvName)).filter((e) => e.type === 'Warning');
  assert.deepEqual(warnings.map((e) => e.reason), []);
});
