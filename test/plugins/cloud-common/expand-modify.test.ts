/**
 * The expand and modify capabilities of the cloud plugins, each against its emulator: a volume
 * grows (EBS ModifyVolume + modification state, GCE disks.resize, Cinder os-extend), a repeated
 * call changes nothing, a failure the cloud reports is final for that size (not retryable), and
 * VolumeAttributesClass parameters reach the cloud at birth and on a live volume.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import type { VolumePlugin } from '../../../src/plugins/api/core.js';
import { PluginError } from '../../../src/plugins/api/errors.js';
import { canExpand, type Expander } from '../../../src/plugins/api/capabilities/expand.js';
import { canModify, type Modifier } from '../../../src/plugins/api/capabilities/modify.js';
import { Ec2Emulator } from '../../emulators/ec2.js';
import { GIB, provisionRequest } from '../../emulators/fixtures.js';
import { GceEmulator } from '../../emulators/gce.js';
import { OpenStackEmulator } from '../../emulators/openstack.js';
import { awsPlugin, cinderPlugin, gcePlugin } from '../../integration/cloud-helpers.js';

/** The PV the provisioner would save for a provisioned volume. */
async function provisioned(plugin: VolumePlugin, pvName: string, attributes?: Record<string, string>): Promise<PersistentVolume> {
  const volume = await plugin.provision(provisionRequest({ pvName, requestBytes: 1n * GIB }, attributes ? { attributes } : {}));
  return {
    metadata: { name: pvName, ...(volume.labels ? { labels: volume.labels } : {}) },
    spec: { ...volume.source, capacity: { storage: volume.capacity }, volumeMode: 'Filesystem', ...(volume.nodeAffinity ? { nodeAffinity: volume.nodeAffinity } : {}) },
  };
}

type CloudPlugin = VolumePlugin & Expander & Modifier;

/** Every cloud plugin has both capabilities. */
function expandsAndModifies(plugin: VolumePlugin): CloudPlugin {
  assert.ok(canExpand(plugin) && canModify(plugin), `${plugin.name} lacks expand or modify`);
  return plugin;
}

async function assertFinal(call: Promise<unknown>, message: RegExp): Promise<void> {
  await assert.rejects(call, (err: unknown) => {
    assert.ok(err instanceof PluginError, String(err));
    assert.equal(err.retryable, false, err.message);
    assert.match(err.message, message);
    return true;
  });
}

describe('aws-ebs expand and modify against the EC2 emulator', () => {
  const ec2 = new Ec2Emulator();
  let plugin: CloudPlugin;
  before(async () => {
    await ec2.start();
    plugin = expandsAndModifies(awsPlugin(ec2));
  });
  after(() => ec2.stop());

  it('grows a volume with ModifyVolume, waits for the modification, and a repeat changes nothing', async () => {
    const pv = await provisioned(plugin, 'pvc-ebs-grow');
    assert.deepEqual(await plugin.expand({ pv, sizeBytes: 3n * GIB }), { capacity: '3Gi', nodeExpansionRequired: true });
    const id = String(pv.spec.awsElasticBlockStore?.volumeID).split('/').pop();
    assert.equal(ec2.volumes().find((v) => v.id === id)?.sizeGiB, 3);
    const modifications = ec2.modifications.history.length;
    assert.deepEqual(await plugin.expand({ pv, sizeBytes: 3n * GIB }), { capacity: '3Gi', nodeExpansionRequired: true });
    assert.equal(ec2.modifications.history.length, modifications, 'no second ModifyVolume');
    const block = { ...pv, spec: { ...pv.spec, volumeMode: 'Block' } };
    assert.equal((await plugin.expand({ pv: block, sizeBytes: 3n * GIB })).nodeExpansionRequired, false);
  });

  it('a modification that ends failed is final for that size', async () => {
    const pv = await provisioned(plugin, 'pvc-ebs-fail');
    ec2.modifications.failNext('insufficient capacity in us-east-1a');
    await assertFinal(plugin.expand({ pv, sizeBytes: 5n * GIB }), /modification failed: insufficient capacity/);
    assert.deepEqual(await plugin.expand({ pv, sizeBytes: 2n * GIB }), { capacity: '2Gi', nodeExpansionRequired: true });
  });

  it('provisions with the attributes class type, IOPS and throughput, and modifies a live volume to another class', async () => {
    const pv = await provisioned(plugin, 'pvc-ebs-vac', { type: 'gp3', iops: '4000', throughput: '250' });
    assert.equal(pv.spec.csi?.driver, 'ebs.csi.aws.com', 'a volume with a class is a CSI volume of the migrated driver');
    assert.ok(plugin.handles(pv));
    const id = pv.spec.csi?.volumeHandle;
    const created = ec2.volumes().find((v) => v.id === id);
    assert.deepEqual([created?.type, created?.iops, created?.throughput], ['gp3', 4000, 250]);
    await plugin.modify({ pv, attributes: { type: 'io2', iops: '8000' } });
    const modified = ec2.volumes().find((v) => v.id === id);
    assert.deepEqual([modified?.type, modified?.iops, modified?.throughput], ['io2', 8000, 250]);
    assert.deepEqual(plugin.validateAttributes({ type: 'gp9', speed: 'x' }).map((p) => p.parameter), ['speed', 'type']);
    await plugin.delete({ backingName: 'not-used-with-a-pv', pv });
    assert.equal(ec2.volumes().some((v) => v.id === id), false, 'the CSI-sourced PV deletes its EBS volume');
  });
});

describe('gce-pd expand and modify against the Compute emulator', () => {
  const gce = new GceEmulator();
  let plugin: CloudPlugin;
  before(async () => {
    await gce.start();
    plugin = expandsAndModifies(gcePlugin(gce));
  });
  after(() => gce.stop());

  it('grows a disk with disks.resize and a repeat changes nothing', async () => {
    const pv = await provisioned(plugin, 'pvc-gce-grow');
    assert.deepEqual(await plugin.expand({ pv, sizeBytes: 4n * GIB }), { capacity: '4Gi', nodeExpansionRequired: true });
    const calls = gce.faults.calls('disks.resize');
    assert.deepEqual(await plugin.expand({ pv, sizeBytes: 4n * GIB }), { capacity: '4Gi', nodeExpansionRequired: true });
    assert.equal(gce.faults.calls('disks.resize'), calls);
    assert.equal(gce.disks().find((d) => d.name === pv.spec.gcePersistentDisk?.pdName)?.sizeGb, 4);
  });

  it('a resize operation that fails is reported, and a smaller retry succeeds', async () => {
    const pv = await provisioned(plugin, 'pvc-gce-fail');
    gce.resizeErrors.push({ code: 'INVALID_USAGE', message: 'disk size exceeds the quota' });
    await assertFinal(plugin.expand({ pv, sizeBytes: 9n * GIB }), /disk size exceeds the quota/);
    assert.deepEqual(await plugin.expand({ pv, sizeBytes: 2n * GIB }), { capacity: '2Gi', nodeExpansionRequired: true });
  });

  it('provisions with provisioned IOPS and throughput and updates them on a live disk', async () => {
    const pv = await provisioned(plugin, 'pvc-gce-vac', { iops: '5000', throughput: '200' });
    assert.match(String(pv.spec.csi?.volumeHandle), /^projects\/emulated-project\/zones\/us-central1-a\/disks\/kubernetes-dynamic-pvc-gce-vac$/);
    const disk = () => gce.disks().find((d) => `projects/${gce.project}/zones/${d.location}/disks/${d.name}` === pv.spec.csi?.volumeHandle);
    assert.deepEqual([disk()?.provisionedIops, disk()?.provisionedThroughput], [5000, 200]);
    await plugin.modify({ pv, attributes: { iops: '7000' } });
    assert.deepEqual([disk()?.provisionedIops, disk()?.provisionedThroughput], [7000, 200]);
    assert.deepEqual(plugin.validateAttributes({ type: 'pd-ssd' }).map((p) => p.parameter), ['type']);
  });
});

describe('cinder expand and modify against the OpenStack emulator', () => {
  const os = new OpenStackEmulator();
  let plugin: CloudPlugin;
  before(async () => {
    await os.start();
    plugin = expandsAndModifies(cinderPlugin(os));
  });
  after(() => os.stop());

  it('grows a volume with os-extend and a repeat changes nothing', async () => {
    const pv = await provisioned(plugin, 'pvc-cinder-grow');
    assert.deepEqual(await plugin.expand({ pv, sizeBytes: 3n * GIB }), { capacity: '3Gi', nodeExpansionRequired: true });
    assert.deepEqual(await plugin.expand({ pv, sizeBytes: 3n * GIB }), { capacity: '3Gi', nodeExpansionRequired: true });
    assert.equal(os.actions.filter((a) => a.action === 'os-extend').length, 1);
  });

  it('an extension that ends in error_extending is final', async () => {
    const pv = await provisioned(plugin, 'pvc-cinder-fail');
    os.failNextExtend();
    await assertFinal(plugin.expand({ pv, sizeBytes: 3n * GIB }), /error_extending/);
  });

  it('provisions with the attributes class volume type and retypes a live volume', async () => {
    const pv = await provisioned(plugin, 'pvc-cinder-vac', { type: 'ssd' });
    assert.equal(pv.spec.csi?.driver, 'cinder.csi.openstack.org');
    const volume = () => os.volumes().find((v) => v.id === pv.spec.csi?.volumeHandle);
    assert.equal(volume()?.volumeType, 'ssd');
    await plugin.modify({ pv, attributes: { type: 'fast' } });
    assert.equal(volume()?.volumeType, 'fast');
    await assertFinal(plugin.modify({ pv, attributes: { type: 'no-such-type' } }), /could not be found/);
  });
});
