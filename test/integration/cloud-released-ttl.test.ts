/**
 * A Released volume's time to live on a cloud disk, end to end (docs/lifecycle.md): the embedded
 * API server, the shipped controller modules and the aws-ebs plugin against the EC2 emulator. A
 * disk pv-controller made for this cluster is deleted at the deadline, as policy Delete deletes;
 * a PV with a TTL that names another cluster's disk is kept with its disk (the proof is the disk's
 * own tags, cloud-common/proof.ts, never the PV).
 */
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { ANN_RELEASED_DEADLINE, ANN_RELEASED_TTL } from '@pv-controller/kube/annotations.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { AWS_EBS_PLUGIN_NAME } from '../../src/plugins/aws-ebs/parameters.js';
import { EventReason } from '../../src/controller/runtime/event-reasons.js';
import { waitFor } from '../helpers/wait.js';
import { type AwsSetup, boundClaim, cloudClaim, cloudClass, startAwsSetup, volumeGone, volumeOf } from './cloud-helpers.js';

const running: AwsSetup[] = [];

afterEach(async () => {
  for (const s of running.splice(0)) {
    await s.stop();
    await s.ec2.stop();
  }
});

async function setup(): Promise<AwsSetup> {
  const s = await startAwsSetup(running);
  await s.api.createClass(cloudClass('ebs-ttl', AWS_EBS_PLUGIN_NAME, { reclaimPolicy: 'Retain', metadata: { name: 'ebs-ttl', annotations: { [ANN_RELEASED_TTL]: '2s' } } }));
  return s;
}

const live = (s: AwsSetup, id: string): boolean => s.ec2.volumes().some((v) => v.id === id);

test('aws: a Released disk with its class\'s TTL is deleted at the deadline, disk and PV', async () => {
  const s = await setup();
  await s.api.createClaim(cloudClaim('db', 'ebs-ttl'));
  const pv = await volumeOf(s, await boundClaim(s, 'db'));
  assert.equal(pv.metadata.annotations?.[ANN_RELEASED_TTL], '2s', 'the class\'s TTL is on the PV');
  const id = pv.spec.awsElasticBlockStore!.volumeID.split('/').pop()!;
  assert.ok(live(s, id));
  await s.api.deleteClaim('default', 'db');
  await volumeGone(s, pv.metadata.name!);
  assert.equal(live(s, id), false, 'the EBS volume is deleted');
});

test('aws: a TTL on a PV naming another cluster\'s disk deletes nothing: the disk\'s own tags do not prove it ours', async () => {
  const s = await setup();
  const pvName = 'pvc-forged-ttl';
  const theirs = s.ec2.addVolume({
    tags: {
      Name: `prod-b-dynamic-${pvName}`,
      'kubernetes.io/cluster/prod-b': 'owned',
      'kubernetes.io/created-for/pv/name': pvName,
      'kubernetes.io/created-for/pvc/name': 'data',
      'kubernetes.io/created-for/pvc/namespace': 'other',
    },
    sizeGiB: 1,
  });
  const forged: PersistentVolume = {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: pvName, annotations: { [ANN_RELEASED_TTL]: '1s' } },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Retain',
      awsElasticBlockStore: { volumeID: `aws://${theirs.zone}/${theirs.id}` },
      claimRef: { namespace: 'default', name: 'long-gone', uid: '00000000-0000-0000-0000-000000000001' },
    },
  } as PersistentVolume;
  await s.transport.request({ method: 'POST', verb: 'create', path: '/api/v1/persistentvolumes', body: forged });
  await waitFor(async () => (await s.api.volume(pvName))?.metadata.annotations?.[ANN_RELEASED_DEADLINE], `PV ${pvName} to carry a deadline`, { timeoutMs: 30_000 });
  await waitFor(async () => (await s.api.eventReasons('default', pvName)).includes(EventReason.ReleasedTTLRefused), `a ${EventReason.ReleasedTTLRefused} event on ${pvName}`, { timeoutMs: 30_000 });
  assert.ok(live(s, theirs.id), 'the other cluster\'s disk is still there');
  assert.ok(await s.api.volume(pvName), 'the PV is kept');
});
