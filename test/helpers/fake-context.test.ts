import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { isAlreadyExists, isConflict, isNotFound } from '@pv-controller/kube/errors.js';
import { FakeCluster } from './fake-context.js';
import type { EventReason } from '../../src/controller/runtime/event-reasons.js';

function volume(name: string, extra: Partial<PersistentVolume> = {}): PersistentVolume {
  return {
    metadata: { name },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'] },
    status: { phase: 'Available' },
    ...extra,
  };
}

test('a write carrying an old resourceVersion is refused with 409 and changes nothing', async () => {
  const fake = new FakeCluster();
  const seeded = fake.addVolume(volume('v'));
  const first = await fake.ctx.api.updateVolume({ ...structuredClone(seeded), spec: { ...structuredClone(seeded.spec), storageClassName: 'a' } });
  assert.notEqual(first.metadata.resourceVersion, seeded.metadata.resourceVersion);
  await assert.rejects(fake.ctx.api.updateVolume({ ...structuredClone(seeded), spec: { ...structuredClone(seeded.spec), storageClassName: 'b' } }), isConflict);
  assert.equal(fake.volume('v')!.spec.storageClassName, 'a');
  assert.deepEqual(fake.writes.map((w) => w.outcome), ['ok', 'conflict']);
});

test('update ignores status, updateStatus ignores spec, and an unchanged write keeps the resourceVersion', async () => {
  const fake = new FakeCluster();
  const v = fake.addVolume(volume('v'));
  const a = await fake.ctx.api.updateVolume({ ...structuredClone(v), status: { phase: 'Bound' } });
  assert.equal(a.status?.phase, 'Available');
  assert.equal(a.metadata.resourceVersion, v.metadata.resourceVersion);
  const b = await fake.ctx.api.updateVolumeStatus({ ...structuredClone(a), spec: {}, status: { phase: 'Bound' } });
  assert.equal(b.status?.phase, 'Bound');
  assert.deepEqual(b.spec.capacity, { storage: '1Gi' });
  assert.deepEqual(fake.writes.map((w) => w.outcome), ['noop', 'ok']);
  assert.equal(fake.successfulWrites().length, 1);
});

test('create resets the status, refuses an existing name, and delete waits for finalizers', async () => {
  const fake = new FakeCluster();
  const created = await fake.ctx.api.createVolume(volume('v', { metadata: { name: 'v', finalizers: ['f'] }, status: { phase: 'Bound' } }));
  assert.equal(created.status?.phase, 'Pending');
  assert.ok(created.metadata.uid);
  await assert.rejects(fake.ctx.api.createVolume(volume('v')), isAlreadyExists);
  await assert.rejects(fake.ctx.api.deleteVolume('v', 'another-uid'), isConflict);
  await fake.ctx.api.deleteVolume('v', created.metadata.uid);
  const marked = fake.volume('v')!;
  assert.ok(marked.metadata.deletionTimestamp);
  await fake.ctx.api.updateVolume({ ...structuredClone(marked), metadata: { ...structuredClone(marked.metadata), finalizers: [] } });
  assert.equal(fake.volume('v'), undefined);
  assert.equal(fake.ctx.volumes.get('v'), undefined);
  await assert.rejects(fake.ctx.api.deleteVolume('v'), isNotFound);
});

test('the cache follows the server unless paused, and can be made to hold an older copy', async () => {
  const fake = new FakeCluster();
  const changes: string[] = [];
  fake.onCacheChange((kind, key, obj) => changes.push(`${key}:${obj?.metadata.resourceVersion ?? 'gone'}`));
  const v = fake.addVolume(volume('v'));
  fake.pauseCache('PersistentVolume');
  const moved = await fake.ctx.api.updateVolumeStatus({ ...structuredClone(v), status: { phase: 'Released' } });
  assert.equal(fake.ctx.volumes.get('v')!.status?.phase, 'Available');
  fake.resumeCache();
  assert.equal(fake.ctx.volumes.get('v')!.metadata.resourceVersion, moved.metadata.resourceVersion);
  fake.setCached('PersistentVolume', v);
  assert.equal(fake.ctx.volumes.get('v')!.status?.phase, 'Available');
  assert.equal(fake.volume('v')!.status?.phase, 'Released');
  assert.equal(changes.length, 3);
});

test('objects handed out are frozen, so decision code cannot mutate the cache', () => {
  const fake = new FakeCluster();
  fake.addVolume(volume('v'));
  const cached = fake.ctx.volumes.get('v')!;
  assert.throws(() => {
    (cached.spec as { storageClassName?: string }).storageClassName = 'x';
  }, TypeError);
});

test('injected failures hit only matching writes, and a held write waits for its release', async () => {
  const fake = new FakeCluster();
  const v = fake.addVolume(volume('v'));
  fake.failNextWrites({ kind: 'PersistentVolume', verb: 'updateStatus' }, 2);
  await assert.rejects(fake.ctx.api.updateVolumeStatus({ ...structuredClone(v), status: { phase: 'Bound' } }), /injected failure/);
  await assert.rejects(fake.ctx.api.updateVolumeStatus({ ...structuredClone(v), status: { phase: 'Bound' } }), /injected failure/);
  const ok = await fake.ctx.api.updateVolumeStatus({ ...structuredClone(v), status: { phase: 'Bound' } });
  assert.equal(ok.status?.phase, 'Bound');

  const hold = fake.holdNextWrite({ verb: 'update' });
  let settled = false;
  const pending = fake.ctx.api.updateVolume({ ...structuredClone(ok), spec: { ...structuredClone(ok.spec), storageClassName: 'x' } }).then(() => (settled = true));
  const record = await hold.reached;
  assert.equal(record.key, 'v');
  assert.equal(settled, false);
  assert.equal(fake.volume('v')!.spec.storageClassName, undefined);
  hold.release();
  await pending;
  assert.equal(fake.volume('v')!.spec.storageClassName, 'x');
});

test('events, enqueues, live reads and the clock are recorded for assertions', async () => {
  const fake = new FakeCluster();
  const v = fake.addVolume(volume('v'));
  // Any reason string is recorded as given (the type admits only the catalogue's).
  fake.ctx.events.event(v, 'Warning', 'Reason' as EventReason, 'message');
  fake.ctx.enqueueClaim('ns/c');
  await fake.ctx.api.getClaim('ns', 'c');
  fake.clock.advance(1500);
  assert.deepEqual(fake.eventReasons('v'), ['Reason']);
  assert.equal(fake.events[0].kind, 'PersistentVolume');
  assert.deepEqual(fake.enqueuedClaims, ['ns/c']);
  assert.deepEqual(fake.reads, [{ kind: 'PersistentVolumeClaim', key: 'ns/c' }]);
  assert.equal(fake.ctx.now().toISOString(), '2024-01-01T00:00:01.500Z');
});
