/**
 * OpenStack Cinder end to end: the controller on the embedded API server, the cinder plugin
 * (Keystone v3 + Cinder v3 over fetch, credentials from OS_*) against the loopback emulator.
 */
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { CINDER_PLUGIN_NAME } from '../../src/plugins/cinder/parameters.js';
import { OpenStackEmulator } from '../emulators/openstack.js';
import {
  boundClaim,
  cinderPlugin,
  cloudClaim,
  cloudClass,
  type CloudSetup,
  expectedBackingName,
  startCloudCluster,
  volumeGone,
  volumeOf,
} from './cloud-helpers.js';

interface CinderSetup extends CloudSetup {
  os: OpenStackEmulator;
}

const running: CinderSetup[] = [];

afterEach(async () => {
  for (const s of running.splice(0)) {
    await s.stop();
    await s.os.stop();
  }
});

async function setup(): Promise<CinderSetup> {
  const os = new OpenStackEmulator();
  await os.start();
  const s = { ...(await startCloudCluster((topology) => cinderPlugin(os, topology))), os };
  running.push(s);
  await s.api.createClass(cloudClass('cinder', CINDER_PLUGIN_NAME, { parameters: { availability: os.zones[0] } }));
  return s;
}

const volumesOf = (s: CinderSetup, claim: PersistentVolumeClaim) => s.os.volumes().filter((v) => v.name === expectedBackingName(claim));

test('cinder: a claim gets one volume named <cluster>-dynamic-pvc-<uid> with the claim, PV and cluster metadata, and is bound to it', async () => {
  const s = await setup();
  const created = await s.api.createClaim(cloudClaim('db', 'cinder', '2Gi'));
  const claim = await boundClaim(s, 'db');
  const pvName = `pvc-${created.metadata.uid}`;
  const [volume, ...others] = volumesOf(s, created);
  assert.equal(others.length, 0);
  assert.deepEqual(volume?.metadata, {
    'kubernetes.io/created-for/pvc/name': 'db',
    'kubernetes.io/created-for/pvc/namespace': 'default',
    'kubernetes.io/created-for/pv/name': pvName,
    'kubernetes.io/cluster/kubernetes': 'owned',
  });
  assert.equal(volume.size, 2);
  assert.equal(volume.availabilityZone, s.os.zones[0]);
  assert.equal((await volumeOf(s, claim)).spec.cinder?.volumeID, volume.id);
});

test('cinder: throttling and 5xx are retried and nothing is leaked; "in use" on delete is retried with a Normal event until the volume is gone', async () => {
  const s = await setup();
  s.os.faults.inject('volumes.create', 'throttle', 2);
  s.os.faults.inject('volumes.create', 'serverError', 1);
  const created = await s.api.createClaim(cloudClaim('flaky', 'cinder'));
  const claim = await boundClaim(s, 'flaky');
  assert.equal(s.os.faults.pending('volumes.create'), 0);
  assert.equal(s.os.volumes().length, 1);
  const pvName = claim.spec.volumeName ?? '';
  s.os.faults.inject('volumes.delete', 'inUse', 1);
  await s.api.deleteClaim('default', 'flaky');
  await volumeGone(s, pvName);
  assert.deepEqual(volumesOf(s, created), []);
  const events = await s.api.eventsFor('default', pvName);
  assert.ok(events.some((e) => e.type === 'Normal' && e.reason === 'VolumeDelete'), 'the in-use answer was reported as Normal');
  assert.deepEqual(events.filter((e) => e.type === 'Warning').map((e) => e.reason), []);
});
