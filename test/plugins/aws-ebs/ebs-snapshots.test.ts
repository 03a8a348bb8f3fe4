/** EBS snapshots, restore and the refused clone, against the EC2 emulator (pending → completed, faults, foreign snapshots). */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { AwsEbsPlugin } from '../../../src/plugins/aws-ebs/aws-ebs-plugin.js';
import { canSnapshot, type SnapshotRequest } from '../../../src/plugins/api/capabilities/snapshot.js';
import { PluginError } from '../../../src/plugins/api/errors.js';
import { Ec2Emulator } from '../../emulators/ec2.js';
import { fastCloudOptions, GIB, provisionRequest } from '../../emulators/fixtures.js';

const credentials = { accessKeyId: 'AKIDEMULATOR', secretAccessKey: 'emulator-secret-key' };
const CLUSTER_TAG = 'kubernetes.io/cluster/kubernetes';

describe('aws-ebs snapshots against the EC2 emulator', () => {
  // pendingPolls 0: CreateSnapshot answers pending, the next DescribeSnapshots sees it completed.
  const ec2 = new Ec2Emulator({ pendingPolls: 0 });
  const plugin = (): AwsEbsPlugin => new AwsEbsPlugin({ region: ec2.region, endpoint: ec2.url, credentials, ...fastCloudOptions() });
  before(() => ec2.start());
  after(() => ec2.stop());
  beforeEach(() => {
    ec2.faults.clear();
    ec2.snapshots.stateAfterCreate = 'completed';
  });

  async function sourcePv(pvName: string): Promise<PersistentVolume> {
    const made = await plugin().provision(provisionRequest({ pvName }));
    return { metadata: { name: pvName }, spec: { ...made.source } };
  }

  function volumeIdOf(pv: PersistentVolume): string {
    return (pv.spec.awsElasticBlockStore?.volumeID ?? '').split('/').pop() ?? '';
  }

  function snapshotRequest(pv: PersistentVolume, name: string): SnapshotRequest {
    return { snapshotName: name, clusterName: 'kubernetes', pv, parameters: {}, snapshot: { name: 'nightly', namespace: 'shop', contentName: `snapcontent-${name}` } };
  }

  it('claims the snapshot capability without clone, and owns only snap- handles', () => {
    const p = plugin();
    assert.ok(canSnapshot(p));
    assert.equal(p.supportsClone, false);
    assert.equal(p.ownsSnapshot('snap-0123456789abcdef0'), true);
    assert.equal(p.ownsSnapshot('snap-01234567'), true);
    for (const bad of ['vol-0123456789abcdef0', 'snap-xyz', 'projects/p/global/snapshots/s', '', 'snap-0123456789abcdef0/../x']) assert.equal(p.ownsSnapshot(bad), false, bad);
  });

  it('CreateSnapshot of the volume with the snapshot tags; pending is not ready, completed is', async () => {
    const pv = await sourcePv('pvc-snap-a');
    const first = await plugin().createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-a'));
    const create = ec2.requests.filter((r) => r.action === 'CreateSnapshot');
    assert.equal(create.length, 1);
    assert.equal(create[0].params.VolumeId, volumeIdOf(pv));
    assert.equal(create[0].params['TagSpecification.1.ResourceType'], 'snapshot');
    const [snapshot] = ec2.snapshots.all();
    assert.deepEqual(snapshot.tags, {
      Name: 'kubernetes-snapshot-a',
      'kubernetes.io/created-for/volumesnapshot/name': 'nightly',
      'kubernetes.io/created-for/volumesnapshot/namespace': 'shop',
      'kubernetes.io/created-for/volumesnapshotcontent/name': 'snapcontent-kubernetes-snapshot-a',
      [CLUSTER_TAG]: 'owned',
    });
    assert.deepEqual({ ...first, createdAt: undefined }, {
      snapshotName: 'kubernetes-snapshot-a',
      snapshotId: snapshot.id,
      sourceVolumeId: volumeIdOf(pv),
      sizeBytes: 10n * GIB,
      createdAt: undefined,
      readyToUse: false,
    });
    const later = await plugin().createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-a'));
    assert.equal(later.snapshotId, first.snapshotId);
    assert.equal(later.readyToUse, true);
    assert.equal(ec2.requests.filter((r) => r.action === 'CreateSnapshot').length, 1, 'the second call found the snapshot by its tags');
  });

  it('a lost CreateSnapshot answer: the retry finds the snapshot the first attempt made, never a second', async () => {
    const pv = await sourcePv('pvc-snap-lost');
    ec2.faults.inject('CreateSnapshot', 'lostResponse');
    const info = await plugin().createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-lost'));
    const mine = ec2.snapshots.all().filter((s) => s.tags.Name === 'kubernetes-snapshot-lost');
    assert.deepEqual(mine.map((s) => s.id), [info.snapshotId]);
  });

  it('a snapshot EBS failed to cut is deleted and the create fails retryably; the next one cuts it again', async () => {
    const pv = await sourcePv('pvc-snap-err');
    ec2.snapshots.stateAfterCreate = 'error';
    const p = plugin();
    await p.createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-err'));
    await assert.rejects(p.createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-err')), (e: unknown) => e instanceof PluginError && e.retryable);
    assert.equal(ec2.snapshots.all().filter((s) => s.tags.Name === 'kubernetes-snapshot-err').length, 0);
    ec2.snapshots.stateAfterCreate = 'completed';
    assert.ok((await p.createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-err'))).snapshotId.startsWith('snap-'));
  });

  it('throttled and failing snapshot calls are retried: one snapshot, one delete', async () => {
    const pv = await sourcePv('pvc-snap-throttle');
    ec2.faults.inject('CreateSnapshot', 'throttle', 2);
    ec2.faults.inject('DescribeSnapshots', 'serverError');
    const { snapshotId } = await plugin().createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-throttle'));
    assert.equal(ec2.snapshots.all().filter((s) => s.tags.Name === 'kubernetes-snapshot-throttle').length, 1);
    ec2.faults.inject('DeleteSnapshot', 'throttle');
    await plugin().deleteSnapshot({ snapshotId, clusterName: 'kubernetes' });
    assert.equal(ec2.snapshots.all().some((s) => s.id === snapshotId), false);
  });

  it('the snapshot name taken by a snapshot of another volume is refused for good', async () => {
    const a = await sourcePv('pvc-snap-x1');
    const b = await sourcePv('pvc-snap-x2');
    await plugin().createSnapshot(snapshotRequest(a, 'kubernetes-snapshot-x'));
    await assert.rejects(plugin().createSnapshot(snapshotRequest(b, 'kubernetes-snapshot-x')), (e: unknown) => e instanceof PluginError && !e.retryable);
  });

  it('listSnapshots lists the snapshots with this cluster tag only', async () => {
    const pv = await sourcePv('pvc-snap-list');
    const mine = await plugin().createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-list'));
    const foreign = ec2.snapshots.add({ volumeId: volumeIdOf(pv), tags: { Name: 'kubernetes-snapshot-list', 'kubernetes.io/cluster/other': 'owned' } });
    const listed = await plugin().listSnapshots('kubernetes');
    assert.ok(listed.some((s) => s.snapshotId === mine.snapshotId && s.snapshotName === 'kubernetes-snapshot-list'));
    assert.ok(!listed.some((s) => s.snapshotId === foreign.id));
  });

  it("deletes this cluster's snapshot, and again is success", async () => {
    const pv = await sourcePv('pvc-snap-del');
    const { snapshotId } = await plugin().createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-del'));
    await plugin().deleteSnapshot({ snapshotId, clusterName: 'kubernetes' });
    await plugin().deleteSnapshot({ snapshotId, clusterName: 'kubernetes' });
    assert.equal(ec2.snapshots.all().some((s) => s.id === snapshotId), false);
  });

  it("refuses to delete a snapshot without this cluster's tag, a handle of another format, or without a cluster: nothing deleted", async () => {
    const before = ec2.requests.length;
    const decoy = ec2.snapshots.add({ volumeId: 'vol-0000000000000000a', tags: { Name: 'decoy', 'kubernetes.io/cluster/other': 'owned' } });
    const unsafe = (e: unknown) => e instanceof PluginError && e.code === 'Unsafe' && !e.retryable;
    await assert.rejects(plugin().deleteSnapshot({ snapshotId: decoy.id, clusterName: 'kubernetes' }), unsafe);
    await assert.rejects(plugin().deleteSnapshot({ snapshotId: decoy.id }), unsafe);
    await assert.rejects(plugin().deleteSnapshot({ snapshotId: `../${decoy.id}`, clusterName: 'kubernetes' }), unsafe);
    assert.ok(ec2.snapshots.all().some((s) => s.id === decoy.id));
    assert.equal(ec2.requests.slice(before).filter((r) => r.action === 'DeleteSnapshot').length, 0);
  });

  it('deletes an untagged snapshot when it is a pre-provisioned handle under a Delete policy', async () => {
    const user = ec2.snapshots.add({ volumeId: 'vol-0000000000000000b', tags: {} });
    await plugin().deleteSnapshot({ snapshotId: user.id, preProvisioned: true });
    assert.equal(ec2.snapshots.all().some((s) => s.id === user.id), false);
  });

  it('a snapshot in use by an AMI is InUse (retryable) and stays', async () => {
    const pv = await sourcePv('pvc-snap-ami');
    const { snapshotId } = await plugin().createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-ami'));
    ec2.faults.inject('DeleteSnapshot', 'inUse');
    await assert.rejects(plugin().deleteSnapshot({ snapshotId, clusterName: 'kubernetes' }), (e: unknown) => e instanceof PluginError && e.code === 'InUse' && e.retryable);
    assert.ok(ec2.snapshots.all().some((s) => s.id === snapshotId));
  });

  it('restore is CreateVolume with the SnapshotId, at least the snapshot size; a lost answer makes no second volume', async () => {
    const pv = await sourcePv('pvc-snap-src');
    const p = plugin();
    await p.createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-r'));
    const { snapshotId } = await p.createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-r'));
    ec2.faults.inject('CreateVolume', 'lostResponse');
    const restored = await p.provisionFromSnapshot(provisionRequest({ pvName: 'pvc-restored', requestBytes: 2n * GIB }), { snapshotId, restoreSize: 10n * GIB });
    const made = ec2.volumes().filter((v) => v.tags['kubernetes.io/created-for/pv/name'] === 'pvc-restored');
    assert.equal(made.length, 1);
    assert.equal(made[0].snapshotId, snapshotId);
    assert.equal(made[0].sizeGiB, 10);
    assert.equal(restored.capacity, '10Gi');
    assert.equal(ec2.requests.filter((r) => r.action === 'CreateVolume').at(-1)?.params.SnapshotId, snapshotId);
  });

  it('restore from a handle of another format is refused before any call; clone is NotSupported', async () => {
    const before = ec2.requests.length;
    await assert.rejects(plugin().provisionFromSnapshot(provisionRequest({ pvName: 'pvc-bad' }), { snapshotId: 'vol-0123' }), (e: unknown) => e instanceof PluginError && e.code === 'Unsafe');
    const pv = await sourcePv('pvc-clone-src');
    await assert.rejects(plugin().provisionClone(provisionRequest({ pvName: 'pvc-clone' }), pv), (e: unknown) => e instanceof PluginError && e.code === 'NotSupported');
    assert.equal(ec2.requests.slice(before).filter((r) => r.action === 'CreateVolume').length, 1, 'only the clone source was created');
  });
});
