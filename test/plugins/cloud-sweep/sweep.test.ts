/**
 * The cloud sweep against the EBS, GCE and Cinder emulators holding two clusters' volumes and
 * snapshots mixed with untagged and forged ones: the plan of prod-a's sweep finds exactly prod-a's
 * leftovers, lists the young, attached and unproven ones as skipped and never lists prod-b's or the
 * untagged; a plan changes nothing; executing it deletes exactly the orphans; throttled and paged
 * lists are followed to the end.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { executeSweep } from '../../../src/controller/cloud-sweep/execute.js';
import { planSweep, type SweepItem, type SweepPlan } from '../../../src/controller/cloud-sweep/plan.js';
import { CLOUDS, HOUR, type MixedCloud, populate, snapshotTagsOf, volumeTagsOf } from './mixed-clouds.js';

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

async function start(name: keyof typeof CLOUDS): Promise<MixedCloud> {
  const cloud = await CLOUDS[name]();
  stops.push(() => cloud.stop());
  return cloud;
}

const ids = (items: SweepItem[], status?: string): string[] => items.filter((i) => status === undefined || i.status === status).map((i) => i.id).sort();
const all = (plan: SweepPlan): SweepItem[] => [...plan.volumes, ...plan.snapshots];
const sorted = (list: string[]): string[] => [...list].sort();

for (const name of Object.keys(CLOUDS) as Array<keyof typeof CLOUDS>) {
  describe(`cloud sweep on ${name}`, () => {
    test('finds exactly the gone cluster\'s leftovers, skips the young, attached and unproven, and lists nothing else', async () => {
      const cloud = await start(name);
      const p = populate(cloud);
      const before = { volumes: sorted(cloud.volumeIds()), snapshots: sorted(cloud.snapshotIds()) };
      const plan = await planSweep(cloud.sweeper, { clusterName: 'prod-a', olderThanMs: 24 * HOUR });
      assert.deepEqual(plan.failures, []);
      assert.deepEqual(ids(plan.volumes, 'orphan'), sorted(p.orphanVolumes));
      assert.deepEqual(ids(plan.snapshots, 'orphan'), sorted(p.orphanSnapshots));
      assert.deepEqual(ids(all(plan), 'too-young'), sorted(p.tooYoung));
      assert.deepEqual(ids(all(plan), 'in-use'), sorted(p.inUse));
      assert.deepEqual(ids(all(plan), 'not-proven'), sorted(p.notProven));
      for (const foreign of p.foreign) assert.ok(!all(plan).some((i) => i.id === foreign), `${foreign} is not prod-a's and is not listed`);
      const orphan = plan.volumes.find((v) => v.status === 'orphan');
      assert.deepEqual(orphan?.claim, { namespace: 'shop', name: 'data' });
      assert.equal(orphan?.sizeGiB, 5);
      assert.ok(orphan?.pvName?.startsWith('pvc-'));
      assert.equal(orphan?.tags['kubernetes.io/cluster/prod-a'], 'owned');
      const shared = plan.volumes.find((v) => v.reason.includes('another cluster'));
      assert.ok(shared, 'the volume tagged for both clusters is named as such');
      assert.deepEqual({ volumes: sorted(cloud.volumeIds()), snapshots: sorted(cloud.snapshotIds()) }, before, 'planning deletes nothing');
    });

    test('executing the plan deletes exactly the orphans, snapshots before volumes, and leaves the rest', async () => {
      const cloud = await start(name);
      const p = populate(cloud);
      const before = { volumes: cloud.volumeIds(), snapshots: cloud.snapshotIds() };
      const plan = await planSweep(cloud.sweeper, { clusterName: 'prod-a', olderThanMs: 24 * HOUR });
      const results = await executeSweep(cloud.sweeper, plan);
      assert.deepEqual(results.map((r) => [r.item.kind, r.outcome]), [['snapshot', 'deleted'], ['volume', 'deleted'], ['volume', 'deleted']]);
      assert.deepEqual(sorted(cloud.volumeIds()), sorted(before.volumes.filter((id) => !p.orphanVolumes.includes(id))));
      assert.deepEqual(sorted(cloud.snapshotIds()), sorted(before.snapshots.filter((id) => !p.orphanSnapshots.includes(id))));
    });

    test('the age guard: with --older-than 72h nothing of a 48h-old cluster is deleted; with 0 the young ones are orphans too', async () => {
      const cloud = await start(name);
      const p = populate(cloud);
      const strict = await planSweep(cloud.sweeper, { clusterName: 'prod-a', olderThanMs: 72 * HOUR });
      assert.deepEqual(ids(all(strict), 'orphan'), []);
      assert.deepEqual(ids(all(strict), 'too-young'), sorted([...p.orphanVolumes, ...p.orphanSnapshots, ...p.tooYoung]));
      const any = await planSweep(cloud.sweeper, { clusterName: 'prod-a', olderThanMs: 0 });
      assert.deepEqual(ids(all(any), 'orphan'), sorted([...p.orphanVolumes, ...p.orphanSnapshots, ...p.tooYoung]));
    });

    test('a volume attached after the plan was made is kept, not deleted', async () => {
      const cloud = await start(name);
      const pvName = 'pvc-3a1c8e52-1f0e-4b8e-a7a1-2f1f7d0c9b11';
      const id = cloud.addVolume(`prod-a-dynamic-${pvName}`, volumeTagsOf('prod-a', pvName), 48 * HOUR);
      const plan = await planSweep(cloud.sweeper, { clusterName: 'prod-a', olderThanMs: HOUR });
      assert.deepEqual(ids(plan.volumes, 'orphan'), [id]);
      // Attached between the plan and the delete, as by a person restoring service.
      cloud.attach(id);
      const results = await executeSweep(cloud.sweeper, plan);
      assert.equal(results[0]?.outcome, 'kept', results[0]?.detail);
      assert.match(results[0]?.detail ?? '', /in-use|in use|attached/);
      assert.ok(cloud.volumeIds().includes(id));
    });

    test('throttled and paged volume lists are followed to the last page', async () => {
      const cloud = await start(name);
      const made: string[] = [];
      for (let i = 0; i < 7; i++) {
        const pvName = `pvc-0000000${i}-1f0e-4b8e-a7a1-2f1f7d0c9b11`;
        made.push(cloud.addVolume(`prod-a-dynamic-${pvName}`, volumeTagsOf('prod-a', pvName), 48 * HOUR));
      }
      cloud.smallPages(2);
      cloud.throttleVolumeLists(2);
      const plan = await planSweep(cloud.sweeper, { clusterName: 'prod-a', olderThanMs: 24 * HOUR });
      assert.deepEqual(plan.failures, []);
      assert.deepEqual(ids(plan.volumes, 'orphan'), sorted(made));
    });
  });
}

test('cinder: an old orphan volume whose snapshot is too young to delete is kept, with the reason', async () => {
  const cloud = await start('cinder');
  const pvName = 'pvc-6c7d2a0e-5b43-4a57-9f59-0f9f2b6f3d21';
  const volume = cloud.addVolume(`prod-a-dynamic-${pvName}`, volumeTagsOf('prod-a', pvName), 48 * HOUR);
  cloud.addSnapshot('prod-a-snapshot-7f0b8a4c-2d1e-4c3b-9a8f-6e5d4c3b2a10', snapshotTagsOf('prod-a'), HOUR, volume);
  const plan = await planSweep(cloud.sweeper, { clusterName: 'prod-a', olderThanMs: 24 * HOUR });
  const results = await executeSweep(cloud.sweeper, plan);
  assert.equal(results.length, 1);
  assert.equal(results[0].outcome, 'kept');
  assert.match(results[0].detail, /snapshot .* is not deleted/);
  assert.ok(cloud.volumeIds().includes(volume));
});

test('a failed list deletes nothing and is reported', async () => {
  const cloud = await start('aws');
  const p = populate(cloud);
  cloud.throttleVolumeLists(50);
  const plan = await planSweep(cloud.sweeper, { clusterName: 'prod-a', olderThanMs: 24 * HOUR });
  assert.equal(plan.failures.length, 1);
  assert.match(plan.failures[0], /cannot list volumes/);
  assert.deepEqual(await executeSweep(cloud.sweeper, plan), []);
  assert.ok(p.orphanSnapshots.every((id) => cloud.snapshotIds().includes(id)), 'not even the snapshots');
});
