/**
 * Bounded reclaim retries through the embedded API server and a real controller, with a short
 * sync period: counts in the PV's annotations, exactly the configured number of attempts, and
 * the count surviving a controller restart.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANN_RECLAIM_FAILED_ATTEMPTS } from '@pv-controller/kube/annotations.js';
import type { TestCluster } from '../helpers/cluster.js';
import { ReclaimApi, ScriptedDeleter, staticVolume, volumeSyncsPass, waitFor, withReclaimCluster } from './reclaim-helpers.js';

const FAST = { syncPeriodMs: 300, recyclerMaximumRetry: 3 };

function withCluster(
  deleter: ScriptedDeleter,
  body: (c: TestCluster, api: ReclaimApi) => Promise<void>,
  syncPeriodMs = FAST.syncPeriodMs,
): Promise<void> {
  return withReclaimCluster({ plugins: [deleter], controllerOptions: { ...FAST, syncPeriodMs } }, body);
}

const attempts = async (api: ReclaimApi, name: string) => (await api.volume(name))?.metadata.annotations?.[ANN_RECLAIM_FAILED_ATTEMPTS];

test('a deleter that fails twice then succeeds: the attempts are counted on the PV, then it is deleted', async () => {
  const deleter = new ScriptedDeleter(2);
  await withCluster(deleter, async (_cluster, api) => {
    const seen = new Set<string>();
    await api.createVolume(staticVolume('flaky', '/scripted/flaky', 'Delete', { releasedFrom: 'gone' }));
    await waitFor(async () => {
      const pv = await api.volume('flaky');
      const count = pv?.metadata.annotations?.[ANN_RECLAIM_FAILED_ATTEMPTS];
      if (count) seen.add(count);
      return pv === undefined;
    }, 'the PV to be deleted');
    assert.equal(deleter.calls, 3);
    assert.ok(seen.has('2'), `the count reached 2 before success (saw ${[...seen].join(',')})`);
    await waitFor(async () => (await api.events('flaky')).some((e) => e.reason === 'VolumeFailedDelete'), 'a VolumeFailedDelete event');
  });
});

test('a deleter that always fails gets exactly the configured attempts, then the PV is Failed with a Warning', async () => {
  const deleter = new ScriptedDeleter(Infinity);
  await withCluster(deleter, async (cluster, api) => {
    await api.createVolume(staticVolume('broken', '/scripted/broken', 'Delete', { releasedFrom: 'gone' }));
    const failed = await waitFor(async () => {
      const pv = await api.volume('broken');
      return pv?.status?.phase === 'Failed' ? pv : undefined;
    }, 'the PV to be Failed');
    assert.equal(failed.status?.message, 'backend error #3');
    assert.equal(failed.metadata.annotations?.[ANN_RECLAIM_FAILED_ATTEMPTS], '3');
    await volumeSyncsPass(cluster.controller!, 10);
    assert.equal(deleter.calls, 3, 'no attempt after the last one');
    await waitFor(
      async () => (await api.events('broken')).some((e) => e.type === 'Warning' && e.reason === 'VolumeFailedDelete'),
      'a VolumeFailedDelete Warning',
    );
  });
});

test('the attempt count survives a controller restart: never more than the maximum in total', async () => {
  const deleter = new ScriptedDeleter(Infinity);
  await withCluster(deleter, async (cluster, api) => {
    await api.createVolume(staticVolume('restart', '/scripted/restart', 'Delete', { releasedFrom: 'gone' }));
    await waitFor(async () => deleter.calls === 2 && (await attempts(api, 'restart')) === '2', 'two counted attempts');
    await cluster.stopController();
    assert.equal(deleter.calls, 2, 'stopped while the third attempt was not yet due');
    // A new controller: a new Reclaimer with nothing in memory; the count is read from the PV.
    await cluster.startController();
    await waitFor(async () => (await api.volume('restart'))?.status?.phase === 'Failed', 'the PV to be Failed');
    await volumeSyncsPass(cluster.controller!, 3);
    assert.equal(deleter.calls, 3, 'three attempts across both controllers');
    assert.equal(await attempts(api, 'restart'), '3');
  }, 1500);
});
