import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '@pv-controller/kube/types.js';
import { ANN_BOUND_BY_CONTROLLER, ANN_RECLAIM_FAILED_ATTEMPTS, ANN_RECLAIM_LAST_ATTEMPT } from '@pv-controller/kube/annotations.js';
import { PluginError } from '../../../src/plugins/api/errors.js';
import { claim, INTERVAL, rig, volume } from './fixtures.js';

function pod(name: string, claimName: string, phase = 'Running'): Pod {
  return {
    metadata: { name, namespace: 'default' },
    spec: { nodeName: 'node-1', volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }] },
    status: { phase },
  };
}

test('Recycle of a controller-bound PV: contents scrubbed, claimRef and retry marks removed, Available, VolumeRecycled', async () => {
  const r = rig();
  r.fake.addVolume(volume('v', { policy: 'Recycle' }));
  await r.reclaim();
  assert.deepEqual(r.plugin.calls, [{ op: 'recycle', pv: 'v', attemptsOnServer: '1' }]);
  const pv = r.fake.volume('v')!;
  assert.equal(pv.status?.phase, 'Available');
  assert.equal(pv.status?.message, '');
  assert.equal(pv.spec.claimRef, undefined);
  for (const key of [ANN_BOUND_BY_CONTROLLER, ANN_RECLAIM_FAILED_ATTEMPTS, ANN_RECLAIM_LAST_ATTEMPT]) {
    assert.equal(pv.metadata.annotations?.[key], undefined, key);
  }
  assert.deepEqual(r.fake.eventReasons('v'), ['VolumeRecycled']);
});

test('Recycle of a user-pre-bound PV keeps the claim name (uid cleared): Available but reserved', async () => {
  const r = rig();
  r.fake.addVolume(volume('v', { policy: 'Recycle', byController: false }));
  await r.reclaim();
  const pv = r.fake.volume('v')!;
  assert.equal(pv.status?.phase, 'Available');
  assert.equal(pv.spec.claimRef?.name, 'c');
  assert.equal(pv.spec.claimRef?.namespace, 'default');
  assert.equal(pv.spec.claimRef?.uid, '');
});

test('Recycle waits while a running pod still uses the old claim, without counting an attempt', async () => {
  const r = rig();
  r.fake.addVolume(volume('v', { policy: 'Recycle' }));
  r.fake.addPod(pod('app', 'c'));
  r.fake.addPod(pod('done', 'c', 'Succeeded'));
  assert.deepEqual(await r.reclaim(), { kind: 'requeueAfter', ms: INTERVAL });
  assert.deepEqual(r.plugin.calls, []);
  assert.equal(r.fake.successfulWrites().length, 0);
  const [event] = r.fake.eventsFor('v');
  assert.equal(event.type, 'Normal');
  assert.equal(event.reason, 'VolumeFailedRecycle');
  assert.equal(event.message, 'Volume is used by pods: default/app');
  const running = r.fake.serverList<Pod>('Pod').find((p) => p.metadata.name === 'app')!;
  r.fake.seed('Pod', { ...structuredClone(running), status: { phase: 'Succeeded' } });
  await r.reclaim();
  assert.equal(r.fake.volume('v')!.status?.phase, 'Available');
});

test('pods are assumed to use a new claim of the same name: recycle goes ahead', async () => {
  const r = rig();
  r.fake.addClaim(claim('c', 'new-uid'));
  r.fake.addVolume(volume('v', { policy: 'Recycle', claim: claim('c', 'old-uid') }));
  r.fake.addPod(pod('app', 'c'));
  await r.reclaim();
  assert.equal(r.plugin.calls.length, 1);
});

test('a plugin without recycle: VolumeFailedRecycle warning and Failed', async () => {
  const r = rig({ recycle: false });
  r.fake.addVolume(volume('v', { policy: 'Recycle' }));
  await r.reclaim();
  const pv = r.fake.volume('v')!;
  assert.equal(pv.status?.phase, 'Failed');
  assert.equal(pv.status?.message, 'No recycler plugin found for the volume!');
  const [event] = r.fake.eventsFor('v');
  assert.equal(event.type, 'Warning');
  assert.equal(event.reason, 'VolumeFailedRecycle');
});

test('a failing recycle is retried up to the limit, then Failed with "Recycle failed: …"', async () => {
  const r = rig({ maxAttempts: 2 });
  r.plugin.outcomes.push(new PluginError('Backend', 'EIO', true), new PluginError('Backend', 'EIO again', true));
  r.fake.addVolume(volume('v', { policy: 'Recycle' }));
  await r.reclaim();
  assert.equal(r.fake.volume('v')!.status?.phase, 'Released');
  r.fake.clock.advance(INTERVAL);
  await r.reclaim();
  const pv = r.fake.volume('v')!;
  assert.equal(pv.status?.phase, 'Failed');
  assert.equal(pv.status?.message, 'Recycle failed: EIO again');
  assert.deepEqual(r.fake.eventReasons('v'), ['VolumeFailedRecycle', 'VolumeFailedRecycle']);
  assert.equal(pv.spec.claimRef?.name, 'c', 'a Failed PV keeps its claimRef');
});
