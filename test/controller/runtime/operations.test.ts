import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OperationRunner, type OperationOutcome } from '../../../src/controller/runtime/operations.js';
import { waitFor } from '../../helpers/wait.js';

function runner(overrides: { concurrency?: number; initialBackoffMs?: number; maxBackoffMs?: number } = {}) {
  const expired: string[] = [];
  const r = new OperationRunner({
    name: 'test',
    concurrency: overrides.concurrency ?? 4,
    backoff: {
      initialMs: overrides.initialBackoffMs ?? 60_000,
      maxMs: overrides.maxBackoffMs ?? 120_000,
      onExpired: (key) => expired.push(key),
    },
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

function gate(): { wait: Promise<void>; open(): void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

test('at most `concurrency` operations run at once, one per key; the rest wait their turn', async () => {
  const runner = new OperationRunner({ name: 'test', concurrency: 2 });
  const g = gate();
  let running = 0;
  let peak = 0;
  const body = async (): Promise<void> => {
    peak = Math.max(peak, ++running);
    await g.wait;
    running--;
  };
  assert.equal(runner.start('a', body), 'started');
  assert.equal(runner.start('a', body), 'running', 'the same key is not started twice');
  assert.equal(runner.start('b', body), 'started');
  assert.equal(runner.start('c', body), 'started');
  assert.equal(runner.isRunning('c'), true);
  g.open();
  await runner.idle();
  assert.equal(peak, 2);
  assert.equal(runner.isRunning('a'), false);
});

test('close aborts running operations and never starts the queued ones', async () => {
  const runner = new OperationRunner({ name: 'test', concurrency: 1 });
  const started: string[] = [];
  const began = gate();
  runner.start('running', ({ signal }) => {
    started.push('running');
    began.open();
    return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
  });
  runner.start('queued', async () => void started.push('queued'));
  await began.wait;
  await runner.close();
  assert.deepEqual(started, ['running']);
  assert.equal(runner.start('late', async () => undefined), 'stopped');
});

test('a failing operation does not break the runner', async () => {
  const runner = new OperationRunner({ name: 'test', concurrency: 1 });
  runner.start('bad', () => Promise.reject(new Error('boom')));
  await runner.idle();
  let ran = false;
  runner.start('good', async () => void (ran = true));
  await runner.idle();
  assert.equal(ran, true);
});

test('without a backoff policy a key whose operation failed may start again at once', async () => {
  const runner = new OperationRunner({ name: 'test', concurrency: 1 });
  runner.start('k', () => Promise.reject(new Error('boom')));
  await runner.idle();
  assert.equal(runner.inBackoff('k'), false);
  assert.equal(runner.start('k', async () => 'failed'), 'started');
  await runner.idle();
  assert.equal(runner.start('k', async () => undefined), 'started');
  await runner.idle();
});
