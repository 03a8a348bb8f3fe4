import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  TAG_AWS_NAME,
  TAG_CREATED_FOR_PVC_NAME,
  TAG_CREATED_FOR_PVC_NAMESPACE,
  TAG_CREATED_FOR_PV_NAME,
} from '@pv-controller/kube/annotations.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { MetricsNotSupportedError } from '../../../src/metrics/provider.js';
import { AwsEbsPlugin, clientTokenFor, type AwsEbsPluginOptions } from '../../../src/plugins/aws-ebs/aws-ebs-plugin.js';
import { PluginError } from '../../../src/plugins/api/errors.js';
import { Ec2Emulator } from '../../emulators/ec2.js';
import { fastCloudOptions, GIB, provisionRequest } from '../../emulators/fixtures.js';
import { canRecycle } from '../../../src/plugins/api/capabilities/recycle.js';

const credentials = { accessKeyId: 'AKIDEMULATOR', secretAccessKey: 'emulator-secret-key' };

function pluginFor(ec2: Ec2Emulator, options: Partial<AwsEbsPluginOptions> = {}): AwsEbsPlugin {
  return new AwsEbsPlugin({ region: ec2.region, endpoint: ec2.url, credentials, ...fastCloudOptions(), ...options });
}

function pvFor(volumeID: string): PersistentVolume {
  return { metadata: { name: 'pv' }, spec: { awsElasticBlockStore: { volumeID } } };
}

describe('aws-ebs plugin against the EC2 emulator', () => {
  const ec2 = new Ec2Emulator();
  before(() => ec2.start());
  after(() => ec2.stop());
  beforeEach(() => {
    ec2.faults.clear();
    ec2.stateAfterCreate = 'available';
  });

  function volumesOf(pvName: string) {
    return ec2.volumes().filter((volume) => volume.tags[TAG_CREATED_FOR_PV_NAME] === pvName);
  }

  it('creates one volume named by the backing name, carrying the claim, PV and cluster tags', async () => {
    const req = provisionRequest({ pvName: 'pvc-tags', claimName: 'db', namespace: 'shop' });
    const result = await pluginFor(ec2).provision(req);
    const [volume, ...others] = volumesOf('pvc-tags');
    assert.equal(others.length, 0);
    assert.deepEqual(volume.tags, {
      [TAG_AWS_NAME]: 'kubernetes-dynamic-pvc-tags',
      [TAG_CREATED_FOR_PVC_NAME]: 'db',
      [TAG_CREATED_FOR_PVC_NAMESPACE]: 'shop',
      [TAG_CREATED_FOR_PV_NAME]: 'pvc-tags',
      'kubernetes.io/cluster/kubernetes': 'owned',
    });
    assert.equal(volume.type, 'gp2');
    assert.equal(volume.sizeGiB, 10);
    assert.deepEqual(result.source, { awsElasticBlockStore: { volumeID: `aws://${volume.zone}/${volume.id}` } });
    assert.equal(result.capacity, '10Gi');
    assert.deepEqual(result.labels, {
      'topology.kubernetes.io/zone': volume.zone,
      'topology.kubernetes.io/region': 'us-east-1',
    });
    assert.deepEqual(result.nodeAffinity?.required?.nodeSelectorTerms[0].matchExpressions?.[0], {
      key: 'topology.kubernetes.io/zone',
      operator: 'In',
      values: [volume.zone],
    });
  });

  it('rounds the size up to whole GiB and reports what was created', async () => {
    const plugin = pluginFor(ec2);
    const odd = await plugin.provision(provisionRequest({ pvName: 'pvc-odd', requestBytes: GIB + GIB / 2n }));
    const tiny = await plugin.provision(provisionRequest({ pvName: 'pvc-tiny', requestBytes: 1n }));
    assert.equal(odd.capacity, '2Gi');
    assert.equal(volumesOf('pvc-odd')[0].sizeGiB, 2);
    assert.equal(tiny.capacity, '1Gi');
    assert.equal(volumesOf('pvc-tiny')[0].sizeGiB, 1);
  });

  it('passes type, encryption, KMS key and clamped io1 IOPS to CreateVolume', async () => {
    const parameters = { Type: 'io1', iopsPerGB: '10', encrypted: 'true', kmsKeyId: 'arn:aws:kms:key/1', fsType: 'xfs' };
    const result = await pluginFor(ec2).provision(provisionRequest({ pvName: 'pvc-io1', requestBytes: 20n * GIB, parameters }));
    const big = await pluginFor(ec2).provision(
      provisionRequest({ pvName: 'pvc-io1-big', requestBytes: 16_000n * GIB, parameters: { type: 'io1', iopsPerGB: '50' } }),
    );
    const [volume] = volumesOf('pvc-io1');
    assert.equal(volume.type, 'io1');
    assert.equal(volume.iops, 200);
    assert.equal(volume.encrypted, true);
    assert.equal(volume.kmsKeyId, 'arn:aws:kms:key/1');
    assert.equal((result.source.awsElasticBlockStore as { fsType?: string }).fsType, 'xfs');
    assert.equal(volumesOf('pvc-io1-big')[0].iops, 64_000);
    assert.equal(big.capacity, '16000Gi');
  });

  it('deletes the volume the PV names, and deleting it again succeeds', async () => {
    const plugin = pluginFor(ec2);
    const req = provisionRequest({ pvName: 'pvc-del' });
    const result = await plugin.provision(req);
    const pv = pvFor((result.source.awsElasticBlockStore as { volumeID: string }).volumeID);
    await plugin.delete({ backingName: req.backingName, pv });
    assert.equal(volumesOf('pvc-del').length, 0);
    await plugin.delete({ backingName: req.backingName, pv });
  });

  it('without a PV, deletes only this cluster\'s volume found by the backing name', async () => {
    const plugin = pluginFor(ec2);
    const req = provisionRequest({ pvName: 'pvc-nopv' });
    await plugin.provision(req);
    const foreign = ec2.addVolume({ tags: { [TAG_AWS_NAME]: req.backingName, 'kubernetes.io/cluster/other': 'owned' } });
    await plugin.delete({ backingName: req.backingName });
    assert.equal(volumesOf('pvc-nopv').length, 0);
    assert.ok(ec2.volumes().some((volume) => volume.id === foreign.id), 'the other cluster\'s volume is untouched');
  });

  it('retries a create whose answer was lost and ends with one volume, not two', async () => {
    ec2.faults.inject('CreateVolume', 'lostResponse');
    const result = await pluginFor(ec2).provision(provisionRequest({ pvName: 'pvc-lost' }));
    const volumes = volumesOf('pvc-lost');
    assert.equal(volumes.length, 1);
    assert.equal(ec2.faults.pending('CreateVolume'), 0);
    assert.match((result.source.awsElasticBlockStore as { volumeID: string }).volumeID, new RegExp(volumes[0].id));
  });

  it('a provision that gave up after a lost answer reuses the volume on the next call', async () => {
    const req = provisionRequest({ pvName: 'pvc-crash' });
    ec2.faults.inject('CreateVolume', 'lostResponse');
    const impatient = pluginFor(ec2, { retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, callTimeoutMs: 2000 } });
    await assert.rejects(impatient.provision(req), (err: unknown) => err instanceof PluginError && err.retryable);
    assert.equal(volumesOf('pvc-crash').length, 1, 'the backend created it although the answer was lost');
    const creates = ec2.faults.calls('CreateVolume');
    const result = await pluginFor(ec2).provision(req);
    assert.equal(ec2.faults.calls('CreateVolume'), creates, 'found by its tags, not created again');
    assert.equal(volumesOf('pvc-crash').length, 1);
    assert.match((result.source.awsElasticBlockStore as { volumeID: string }).volumeID, new RegExp(volumesOf('pvc-crash')[0].id));
  });

  it('retries throttling, 5xx and calls that hang past their timeout, leaking nothing', async () => {
    ec2.faults.inject('DescribeVolumes', 'throttle', 2);
    ec2.faults.inject('CreateVolume', 'serverError');
    ec2.faults.inject('CreateVolume', 'hang');
    const plugin = pluginFor(ec2, fastCloudOptions({ retry: { maxAttempts: 6, baseDelayMs: 1, maxDelayMs: 5, callTimeoutMs: 1000 } }));
    await plugin.provision(provisionRequest({ pvName: 'pvc-flaky' }));
    assert.equal(volumesOf('pvc-flaky').length, 1);
    assert.equal(ec2.faults.pending('DescribeVolumes') + ec2.faults.pending('CreateVolume'), 0);
  });

  it('gives up on persistent throttling with a retryable Transient error and no volume', async () => {
    ec2.faults.inject('CreateVolume', 'throttle', 10);
    const before = ec2.faults.calls('CreateVolume');
    const plugin = pluginFor(ec2, fastCloudOptions({ retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2, callTimeoutMs: 2000 } }));
    await assert.rejects(plugin.provision(provisionRequest({ pvName: 'pvc-throttled' })), (err: unknown) => {
      assert.ok(err instanceof PluginError);
      assert.equal(err.code, 'Transient');
      assert.equal(err.retryable, true);
      assert.match(err.message, /RequestLimitExceeded/);
      return true;
    });
    assert.equal(ec2.faults.calls('CreateVolume') - before, 3);
    assert.equal(volumesOf('pvc-throttled').length, 0);
  });

  it('refuses to delete an attached volume with a retryable InUse error', async () => {
    const plugin = pluginFor(ec2);
    const req = provisionRequest({ pvName: 'pvc-attached' });
    const result = await plugin.provision(req);
    const pv = pvFor((result.source.awsElasticBlockStore as { volumeID: string }).volumeID);
    ec2.faults.inject('DeleteVolume', 'inUse');
    await assert.rejects(plugin.delete({ backingName: req.backingName, pv }), (err: unknown) => {
      assert.ok(err instanceof PluginError);
      assert.equal(err.code, 'InUse');
      assert.equal(err.retryable, true);
      return true;
    });
    assert.equal(volumesOf('pvc-attached').length, 1);
    ec2.attach(volumesOf('pvc-attached')[0].id);
    await assert.rejects(plugin.delete({ backingName: req.backingName, pv }), { code: 'InUse' });
  });

  it('a deleted volume spends its ClientToken: the same request finds it deleted, the next generation makes a new volume', async () => {
    const plugin = pluginFor(ec2);
    const req = provisionRequest({ pvName: 'pvc-spent' });
    const first = await plugin.provision(req);
    await plugin.delete({ backingName: req.backingName });
    assert.equal(volumesOf('pvc-spent').length, 0);
    await assert.rejects(plugin.provision(req), /disappeared/, 'EC2 answers the spent token with the deleted volume');
    const second = await plugin.provision({ ...req, generation: 1 });
    assert.notDeepEqual(second.source, first.source);
    assert.equal(volumesOf('pvc-spent').length, 1);
    // Generation 0 is the token every earlier build used, so a volume made before an upgrade is found again.
    assert.equal(clientTokenFor('kubernetes', 'b'), clientTokenFor('kubernetes', 'b', 0));
    assert.notEqual(clientTokenFor('kubernetes', 'b', 1), clientTokenFor('kubernetes', 'b'));
  });

  it('deletes a volume that went to state error after creation and reports it', async () => {
    ec2.stateAfterCreate = 'error';
    await assert.rejects(pluginFor(ec2).provision(provisionRequest({ pvName: 'pvc-err' })), (err: unknown) => {
      assert.ok(err instanceof PluginError);
      assert.equal(err.code, 'Backend');
      assert.match(err.message, /state "error"/);
      return true;
    });
    assert.equal(volumesOf('pvc-err').length, 0);
  });

  it('lists this cluster\'s volumes, including one left behind, and ignores other clusters\'', async () => {
    const plugin = pluginFor(ec2);
    await plugin.provision(provisionRequest({ clusterName: 'blue', pvName: 'pvc-blue-1' }));
    const leftBehind = ec2.addVolume({
      tags: {
        [TAG_AWS_NAME]: 'blue-dynamic-pvc-gone',
        [TAG_CREATED_FOR_PV_NAME]: 'pvc-gone',
        [TAG_CREATED_FOR_PVC_NAME]: 'old',
        [TAG_CREATED_FOR_PVC_NAMESPACE]: 'ns',
        'kubernetes.io/cluster/blue': 'owned',
      },
    });
    ec2.addVolume({ tags: { [TAG_AWS_NAME]: 'green-dynamic-pvc-x', 'kubernetes.io/cluster/green': 'owned' } });
    const listed = await plugin.listBackingVolumes('blue');
    assert.deepEqual(listed.map((v) => v.backingName).sort(), ['blue-dynamic-pvc-blue-1', 'blue-dynamic-pvc-gone']);
    assert.deepEqual(listed.find((v) => v.id === leftBehind.id), {
      backingName: 'blue-dynamic-pvc-gone',
      id: leftBehind.id,
      pvName: 'pvc-gone',
      claimName: 'old',
      claimNamespace: 'ns',
    });
  });

  it('reports no usage metrics and claims only EBS PVs', async () => {
    const plugin = pluginFor(ec2);
    const pv = pvFor('aws://us-east-1a/vol-1');
    assert.equal(plugin.handles(pv), true);
    assert.equal(plugin.handles({ metadata: {}, spec: { gcePersistentDisk: { pdName: 'x' } } }), false);
    assert.equal(canRecycle(plugin), false);
    await assert.rejects(plugin.metricsFor(pv).getMetrics(), MetricsNotSupportedError);
  });
});
