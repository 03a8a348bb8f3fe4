/**
 * VolumeAttributesClass end to end on the embedded API server with the aws-ebs plugin against
 * the EC2 emulator: the binder matches a claim's class to a volume's (nil and "" alike, as
 * upstream), provisioning hands the class's parameters to EBS, and naming another class on a
 * bound claim modifies its volume (ModifyVolume) before the claim says it has that class.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { AWS_EBS_PLUGIN_NAME } from '../../src/plugins/aws-ebs/parameters.js';
import { Ec2Emulator } from '../emulators/ec2.js';
import { awsPlugin, boundClaim, cloudClaim, volumeOf } from './cloud-helpers.js';
import { claimWhen, conditionTypes, createAttributesClass, type ExpansionSetup, setAttributesClass, startExpansionCluster } from './expansion-helpers.js';

function staticEbsVolume(name: string, size: string, vac?: string): PersistentVolume {
  return {
    metadata: { name },
    spec: {
      capacity: { storage: size },
      accessModes: ['ReadWriteOnce'],
      storageClassName: 'manual',
      persistentVolumeReclaimPolicy: 'Retain',
      csi: { driver: 'ebs.csi.aws.com', volumeHandle: `vol-0${name.replace(/[^a-f0-9]/g, '0')}` },
      ...(vac === undefined ? {} : { volumeAttributesClassName: vac }),
    },
  };
}

function manualClaim(name: string, vac?: string): PersistentVolumeClaim {
  const claim = cloudClaim(name, 'manual', '1Gi');
  if (vac !== undefined) claim.spec.volumeAttributesClassName = vac;
  return claim;
}

describe('VolumeAttributesClass through the embedded API server and the EC2 emulator', () => {
  let s: ExpansionSetup<Ec2Emulator>;
  before(async () => {
    s = await startExpansionCluster(new Ec2Emulator(), awsPlugin, AWS_EBS_PLUGIN_NAME);
    await createAttributesClass(s, 'fast', 'ebs.csi.aws.com', { type: 'gp3', iops: '4000', throughput: '250' });
  });
  after(() => s.stop());

  test('the binder binds a claim only to a volume of the same attributes class, nil and "" alike', async () => {
    const create = (pv: PersistentVolume) => s.transport.request({ method: 'POST', verb: 'create', path: '/api/v1/persistentvolumes',
      body: { apiVersion: 'v1', kind: 'PersistentVolume', ...pv } });
    await create(staticEbsVolume('pv-plain', '1Gi'));
    await create(staticEbsVolume('pv-gold', '2Gi', 'gold'));
    await s.api.createClaim(manualClaim('wants-gold', 'gold'));
    await s.api.createClaim(manualClaim('wants-silver', 'silver'));
    await s.api.createClaim(manualClaim('wants-empty', ''));
    const gold = await boundClaim(s, 'wants-gold');
    assert.equal(gold.spec.volumeName, 'pv-gold', 'the larger volume of the class, not the closer fit without one');
    assert.equal(gold.status?.currentVolumeAttributesClassName, 'gold');
    const empty = await boundClaim(s, 'wants-empty');
    assert.equal(empty.spec.volumeName, 'pv-plain', '"" on the claim matches a volume with no class');
    assert.equal(empty.status?.currentVolumeAttributesClassName, undefined);
    assert.equal((await s.api.claim('default', 'wants-silver'))?.status?.phase, 'Pending');
  });

  test('a provisioned volume gets the class parameters on EBS, the PV names the class and so does the claim', async () => {
    await s.api.createClaim({ ...cloudClaim('fast', 'grows', '1Gi'), spec: { ...cloudClaim('fast', 'grows', '1Gi').spec, volumeAttributesClassName: 'fast' } });
    const claim = await boundClaim(s, 'fast');
    const pv = await volumeOf(s, claim);
    assert.equal(pv.spec.volumeAttributesClassName, 'fast');
    assert.equal(pv.spec.csi?.driver, 'ebs.csi.aws.com', 'kube-apiserver lets only CSI volumes name a class');
    assert.equal(claim.status?.currentVolumeAttributesClassName, 'fast');
    const id = pv.spec.csi?.volumeHandle;
    const volume = s.emulator.volumes().find((v) => v.id === id);
    assert.deepEqual([volume?.type, volume?.iops, volume?.throughput], ['gp3', 4000, 250]);
  });

  test('naming another class modifies the volume (ModifyVolume), then the PV and the claim name it', async () => {
    await createAttributesClass(s, 'faster', 'kubernetes.io/aws-ebs', { type: 'io2', iops: '8000' });
    await setAttributesClass(s, 'fast', 'faster');
    const claim = await claimWhen(s, 'fast', 'to be modified', (c) => c.status?.currentVolumeAttributesClassName === 'faster');
    assert.equal(claim.status?.modifyVolumeStatus, undefined);
    assert.deepEqual(conditionTypes(claim), []);
    const pv = await volumeOf(s, claim);
    assert.equal(pv.spec.volumeAttributesClassName, 'faster');
    const volume = s.emulator.volumes().find((v) => v.id === pv.spec.csi?.volumeHandle);
    assert.deepEqual([volume?.type, volume?.iops, volume?.throughput], ['io2', 8000, 250]);
    // Events are recorded beside the status writes, not before them: wait for them as for the status.
    await s.api.eventsRecorded('default', 'fast', ['VolumeModify', 'VolumeModifySuccessful']);
    await createAttributesClass(s, 'bogus', 'ebs.csi.aws.com', { type: 'gp9' });
    await setAttributesClass(s, 'fast', 'bogus');
    const refused = await claimWhen(s, 'fast', 'to be Infeasible', (c) => c.status?.modifyVolumeStatus?.status === 'Infeasible');
    assert.match(refused.status?.conditions?.find((c) => c.type === 'ModifyVolumeError')?.message ?? '', /type: "gp9" is not one of/);
    assert.equal(refused.status?.currentVolumeAttributesClassName, 'faster');
    await s.api.eventsRecorded('default', 'fast', ['VolumeModifyFailed']);
  });

  test('a class that does not exist leaves the modification Pending; an in-tree volume cannot take a class (Infeasible)', async () => {
    await s.api.createClaim(cloudClaim('other', 'grows', '1Gi'));
    await boundClaim(s, 'other');
    await setAttributesClass(s, 'other', 'nowhere');
    const pending = await claimWhen(s, 'other', 'to be Pending', (c) => c.status?.modifyVolumeStatus?.status === 'Pending');
    assert.deepEqual(pending.status?.modifyVolumeStatus, { targetVolumeAttributesClassName: 'nowhere', status: 'Pending' });
    await setAttributesClass(s, 'other', 'fast');
    const refused = await claimWhen(s, 'other', 'to be Infeasible', (c) => c.status?.modifyVolumeStatus?.status === 'Infeasible');
    assert.match(refused.status?.conditions?.find((c) => c.type === 'ModifyVolumeError')?.message ?? '', /has an in-tree volume source/);
    assert.equal(s.emulator.modifications.history.filter((m) => m.targetType === 'gp3').length, 0);
  });
});
