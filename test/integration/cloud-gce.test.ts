/**
 * GCE PD end to end: the controller on the embedded API server, the gce-pd plugin (fetch +
 * google-auth-library) against the loopback Compute emulator; disks asserted on the emulator.
 */
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { LABEL_TOPOLOGY_ZONE } from '@pv-controller/kube/annotations.js';
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { GCE_PD_PLUGIN_NAME } from '../../src/plugins/gce-pd/parameters.js';
import { GceEmulator } from '../emulators/gce.js';
import {
  boundClaim,
  cloudClaim,
  cloudClass,
  type CloudSetup,
  createNode,
  expectedBackingName,
  gcePlugin,
  startCloudCluster,
  volumeGone,
  volumeOf,
} from './cloud-helpers.js';

interface GceSetup extends CloudSetup {
  gce: GceEmulator;
}

const running: GceSetup[] = [];

afterEach(async () => {
  for (const s of running.splice(0)) {
    await s.stop();
    await s.gce.stop();
  }
});

async function setup(): Promise<GceSetup> {
  const gce = new GceEmulator();
  await gce.start();
  const s = { ...(await startCloudCluster((topology) => gcePlugin(gce, topology))), gce };
  running.push(s);
  await s.api.createClass(cloudClass('pd', GCE_PD_PLUGIN_NAME));
  return s;
}

const disksOf = (s: GceSetup, claim: PersistentVolumeClaim) => s.gce.disks().filter((d) => d.name === expectedBackingName(claim));

test('gce: a claim gets one persistent disk named <cluster>-dynamic-pvc-<uid> with the tags in its description and labels, and is bound to it', async () => {
  const s = await setup();
  const created = await s.api.createClaim(cloudClaim('db', 'pd', '10Gi'));
  const claim = await boundClaim(s, 'db');
  const pvName = `pvc-${created.metadata.uid}`;
  const [disk, ...others] = disksOf(s, created);
  assert.equal(others.length, 0);
  assert.ok(disk, 'the disk exists');
  assert.deepEqual(JSON.parse(disk.description ?? '{}'), {
    Name: `kubernetes-dynamic-${pvName}`,
    'kubernetes.io/created-for/pvc/name': 'db',
    'kubernetes.io/created-for/pvc/namespace': 'default',
    'kubernetes.io/created-for/pv/name': pvName,
    'kubernetes.io/cluster/kubernetes': 'owned',
  });
  assert.equal(disk.labels['kubernetes-io-cluster-kubernetes'], 'owned');
  assert.equal(disk.labels['kubernetes-io-created-for-pvc-name'], 'db');
  const pv = await volumeOf(s, claim);
  assert.equal(pv.metadata.name, pvName);
  assert.equal(pv.spec.gcePersistentDisk?.pdName, disk.name);
  assert.equal(pv.metadata.labels?.[LABEL_TOPOLOGY_ZONE], disk.location);
});

test('gce: with no zone in the class the disk goes to a zone that has nodes, read through the API', async () => {
  const s = await setup();
  const zone = s.gce.zones[s.gce.zones.length - 1];
  await createNode(s, 'only-node', { [LABEL_TOPOLOGY_ZONE]: zone });
  const created = await s.api.createClaim(cloudClaim('zoned', 'pd'));
  await boundClaim(s, 'zoned');
  assert.equal(disksOf(s, created)[0]?.location, zone);
});

test('gce: a lost disks.insert answer leaves one disk and a bound claim; deleting the claim deletes the disk', async () => {
  const s = await setup();
  s.gce.faults.inject('disks.insert', 'lostResponse');
  const created = await s.api.createClaim(cloudClaim('lost', 'pd'));
  const claim = await boundClaim(s, 'lost');
  assert.equal(s.gce.faults.pending('disks.insert'), 0);
  assert.equal(disksOf(s, created).length, 1);
  assert.equal(s.gce.disks().length, 1);
  await s.api.deleteClaim('default', 'lost');
  await volumeGone(s, claim.spec.volumeName ?? '');
  assert.deepEqual(disksOf(s, created), []);
});
