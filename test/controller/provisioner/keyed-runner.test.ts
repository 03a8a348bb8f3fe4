import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyedRunner, type OperationOutcome } from '../../../src/controller/provisioner/keyed-runner.js';
import { waitFor } from './fixtures.js';

function runner(overrides: { concurrency?: number; initialBackoffMs?: number; maxBackoffMs?: number } = {}) {
  const expired: string[] = [];
  const r = new KeyedRunner({
    concurrency: overrides.concurrency ?? 4,
    initialBackoffMs: overrides.initialBackoffMs ?? 60_000,
    maxBackoffMs: overrides.maxBackoffMs ?? 120_000,
    onBackoffExpired: (key) => expired.push(key),
  });
  return { r, expired };
}

function deferred(): { promise: Promise<OperationOutcome>; resolve: (o: OperationOutcome) => void } {
  let resolve!: (o: OperationOutcome) => void;
  const promise = new Promise<OperationOutcome>((res) => (resolve = res));
  return { promise, resolve };
}

test('a key with a running operation is not started twice', async () => {
  const { r } = runner();
  const d = deferred();
  assert.equal(r.start('a', () => d.promise), 'started');
  assert.equal(r.start('a', () => Promise.resolve('succeeded')), 'running');
  assert.equal(r.start('b', () => Promise.resolve('succeeded')), 'started');
  d.resolve('succeeded');
  await r.idle();
  assert.equal(r.isRunning('a'), false);
  assert.equal(r.start('a', () => Promise.resolve('succeeded')), 'started');
  await r.idle();
});

test('a failure (or a throw) starts a backoff that refuses the key, then re-enqueues it', async () => {
  const { r, expired } = runner({ initialBackoffMs: 5 });
  r.start('a', () => Promise.reject(new Error('boom')));
  await r.idle();
  assert.equal(r.failures('a'), 1);
  assert.equal(r.start('a', () => Promise.resolve('succeeded')), 'backoff');
  await waitFor(() => expired.includes('a'), 'the backoff to expire');
  assert.equal(r.start('a', () => Promise.resolve('failed')), 'started');
  await r.idle();
  assert.equal(r.failures('a'), 2);
  await waitFor(() => !r.inBackoff('a'), 'the second backoff to expire');
  r.start('a', () => Promise.resolve('succeeded'));
  await r.idle();
  assert.equal(r.failures('a'), 0, 'a success resets the count');
  assert.equal(r.inBackoff('a'), false);
});

test('interrupt aborts only that key\'s signal; stop aborts all and refuses new work', async () => {
  const { r } = runner();
  const signals: Record<string, AbortSignal> = {};
  const da = deferred();
  const db = deferred();
  r.start('a', (h) => ((signals.a = h.signal), da.promise));
  r.start('b', (h) => ((signals.b = h.signal), db.promise));
  await waitFor(() => signals.a !== undefined && signals.b !== undefined, 'both to start');
  r.interrupt('a', 'claim deleted');
  assert.equal(signals.a.aborted, true);
  assert.equal(signals.b.aborted, false);
  r.stop();
  assert.equal(signals.b.aborted, true);
  assert.equal(r.start('c', () => Promise.resolve('succeeded')), 'stopped');
  da.resolve('succeeded');
  db.resolve('failed');
  await r.idle();
  assert.equal(r.inBackoff('b'), false, 'no backoff timers survive a stop');
});

test('at most `concurrency` operations run; the rest wait for a slot in order', async () => {
  const { r } = runner({ concurrency: 1 });
  const order: string[] = [];
  const first = deferred();
  r.start('a', async () => (order.push('a'), first.promise));
  r.start('b', async () => (order.push('b'), 'succeeded' as const));
  await waitFor(() => order.length === 1, 'the first to start');
  assert.deepEqual(order, ['a']);
  first.resolve('succeeded');
  await r.idle();
  assert.deepEqual(order, ['a', 'b']);
});
