/** What proves a cloud volume or snapshot is a gone cluster's leftover: every part required, none alone enough. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { proveSnapshot, proveVolume } from '../../../src/plugins/cloud-common/proof.js';
import { backingName } from '../../../src/plugins/naming.js';

const PV = 'pvc-0b7c5b1e-6f0e-4c55-9d2c-3c2b7c1f9a01';
const UID = '7f0b8a4c-2d1e-4c3b-9a8f-6e5d4c3b2a10';
const tags = (cluster: string, pv = PV): Record<string, string> => ({
  [`kubernetes.io/cluster/${cluster}`]: 'owned',
  'kubernetes.io/created-for/pv/name': pv,
  'kubernetes.io/created-for/pvc/name': 'data',
  'kubernetes.io/created-for/pvc/namespace': 'shop',
});
const snapTags = (cluster: string): Record<string, string> => ({
  [`kubernetes.io/cluster/${cluster}`]: 'owned',
  'kubernetes.io/created-for/volumesnapshot/name': 'nightly',
  'kubernetes.io/created-for/volumesnapshot/namespace': 'shop',
  'kubernetes.io/created-for/volumesnapshotcontent/name': 'snapcontent-1',
});

test('a volume with the cluster tag, the created-for tags and the exact backing name is ours, with its claim', () => {
  assert.deepEqual(proveVolume({ name: `prod-dynamic-${PV}`, tags: tags('prod') }, 'prod', 255), { ours: true, pvName: PV, claim: { namespace: 'shop', name: 'data' } });
});

test('a volume named with the shortened prefix of a long cluster name (GCE\'s 63 characters) is ours', () => {
  const cluster = 'a-rather-long-cluster-name-for-the-gce-limit';
  const name = backingName(cluster, PV, 63);
  assert.notEqual(name.slice(0, cluster.length), cluster, 'the prefix was shortened');
  assert.equal(proveVolume({ name, tags: tags(cluster) }, cluster, 63).ours, true);
});

test('no part alone is proof: each missing part is named', () => {
  const cases: Array<[{ name: string; tags: Record<string, string> }, RegExp]> = [
    [{ name: `prod-dynamic-${PV}`, tags: {} }, /no tag kubernetes.io\/cluster\/prod=owned/],
    [{ name: `prod-dynamic-${PV}`, tags: { ...tags('prod'), 'kubernetes.io/cluster/prod': 'shared' } }, /no tag/],
    [{ name: `prod-dynamic-${PV}`, tags: { 'kubernetes.io/cluster/prod': 'owned' } }, /tag kubernetes.io\/created-for\/pv\/name missing/],
    [{ name: `prod-dynamic-${PV}`, tags: { ...tags('prod'), 'kubernetes.io/created-for/pvc/name': ' ' } }, /pvc\/name missing/],
    [{ name: `prod-dynamic-pvc-other`, tags: tags('prod') }, /is not the one we give PV/],
    [{ name: `prod-staging-dynamic-${PV}`, tags: tags('prod') }, /is not the one we give PV/],
    [{ name: `prod-dynamic-${PV}`, tags: { ...tags('prod'), 'kubernetes.io/cluster/staging': 'owned' } }, /also tagged for another cluster \(kubernetes.io\/cluster\/staging\)/],
    [{ name: `staging-dynamic-${PV}`, tags: tags('staging') }, /no tag kubernetes.io\/cluster\/prod=owned/],
  ];
  for (const [volume, why] of cases) {
    const proof = proveVolume(volume, 'prod', 255);
    assert.equal(proof.ours, false, JSON.stringify(volume));
    assert.match(proof.ours ? '' : proof.why, why);
  }
});

test('a snapshot needs the cluster tag, its created-for tags and the name <cluster>-snapshot-<uid>', () => {
  assert.deepEqual(proveSnapshot({ name: `prod-snapshot-${UID}`, tags: snapTags('prod') }, 'prod', 255), { ours: true, claim: { namespace: 'shop', name: 'nightly' } });
  assert.equal(proveSnapshot({ name: `prod-snapshot-not-a-uid`, tags: snapTags('prod') }, 'prod', 255).ours, false);
  assert.equal(proveSnapshot({ name: `other-snapshot-${UID}`, tags: snapTags('prod') }, 'prod', 255).ours, false);
  assert.equal(proveSnapshot({ name: `prod-snapshot-${UID}`, tags: { 'kubernetes.io/cluster/prod': 'owned' } }, 'prod', 255).ours, false);
  assert.equal(proveSnapshot({ name: `prod-snapshot-${UID}`, tags: { ...snapTags('prod'), 'kubernetes.io/cluster/x': 'owned' } }, 'prod', 255).ours, false);
});
