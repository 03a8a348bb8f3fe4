import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkQueue } from '../../../src/controller/runtime/queue.js';
import { DONE, type SyncResult } from '../../../src/controller/runtime/sync-result.js';
import { waitFor } from '../../helpers/wait.js';

/** Short polls: some tests look at the queue before a 10-20 ms delay has passed. */
const QUICK_POLL = { timeoutMs: 5000, intervalMs: 2 };

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

test('a key added many times while waiting is processed once', async () => {
  const q = new WorkQueue({ name: 't' });
  for (let i = 0; i < 5; i++) q.add('a');
  q.add('b');
  assert.equal(q.len(), 2);
  const seen: string[] = [];
  q.run(2, async (key) => {
    seen.push(key);
    return DONE;
  });
  await q.whenIdle();
  await q.shutDown();
  assert.deepEqual(seen.sort(), ['a', 'b']);
});

test('a key is never processed by two workers at once, and an add during processing runs it again after', async () => {
  const q = new WorkQueue({ name: 't' });
  const gate = deferred();
  let running = 0;
  let maxRunning = 0;
  let runs = 0;
  q.run(4, async () => {
    running += 1;
    maxRunning = Math.max(maxRunning, running);
    runs += 1;
    if (runs === 1) await gate.promise;
    running -= 1;
    return DONE;
  });
  q.add('k');
  await waitFor(() => runs === 1, 'the first run', QUICK_POLL);
  q.add('k');
  q.add('k');
  assert.equal(q.len(), 0, 'the re-add waits for the running sync instead of entering the queue');
  gate.resolve();
  await waitFor(() => runs === 2, 'the second run', QUICK_POLL);
  await q.whenIdle();
  await q.shutDown();
  assert.equal(maxRunning, 1);
  assert.equal(runs, 2);
});

test('a retry result re-runs the key after a growing backoff, and success forgets it', async () => {
  const q = new WorkQueue({ name: 't', baseDelayMs: 1, maxDelayMs: 50 });
  const results: SyncResult[] = [
    { kind: 'retry', reason: 'conflict' },
    { kind: 'retry', reason: 'conflict' },
    { kind: 'retry', reason: 'conflict' },
    DONE,
  ];
  const requeuesSeen: number[] = [];
  q.run(1, async (key) => {
    requeuesSeen.push(q.numRequeues(key));
    return results.shift() ?? DONE;
  });
  q.add('k');
  await waitFor(() => results.length === 0, 'every scripted result', QUICK_POLL);
  await q.whenIdle();
  assert.deepEqual(requeuesSeen, [0, 1, 2, 3]);
  assert.equal(q.numRequeues('k'), 0, 'forgotten after success');
  assert.equal(q.stats().retries, 3);
  await q.shutDown();
});

test('a thrown sync is retried like a retry result', async () => {
  const q = new WorkQueue({ name: 't', baseDelayMs: 1 });
  let calls = 0;
  q.run(1, async () => {
    calls += 1;
    if (calls === 1) throw new Error('boom');
    return DONE;
  });
  q.add('k');
  await waitFor(() => calls === 2, 'the retry', QUICK_POLL);
  await q.whenIdle();
  assert.equal(q.stats().failures, 1);
  await q.shutDown();
});

test('the per-key backoff doubles from the base delay and stops at the maximum', async () => {
  const q = new WorkQueue({ name: 't', baseDelayMs: 5, maxDelayMs: 1_000_000 });
  const delays: number[] = [];
  const original = q.addAfter.bind(q);
  q.addAfter = (key: string, ms: number) => {
    delays.push(ms);
    original(key, 60_000);
  };
  for (let i = 0; i < 30; i++) q.addRateLimited('k');
  assert.deepEqual(delays.slice(0, 4), [5, 10, 20, 40]);
  assert.equal(delays.at(-1), 1_000_000);
  q.forget('k');
  q.addRateLimited('k');
  assert.equal(delays.at(-1), 5);
  await q.shutDown();
});

test('addAfter adds the key only once the delay has passed, and requeueAfter uses it', async () => {
  const q = new WorkQueue({ name: 't' });
  const seen: string[] = [];
  let first = true;
  q.run(1, async (key) => {
    seen.push(key);
    if (first) {
      first = false;
      return { kind: 'requeueAfter', ms: 20 };
    }
    return DONE;
  });
  q.add('k');
  await waitFor(() => seen.length === 1, 'the first sync', QUICK_POLL);
  assert.equal(q.len(), 0, 'not queued before the delay');
  await waitFor(() => seen.length === 2, 'the delayed sync', QUICK_POLL);
  await q.shutDown();
  assert.deepEqual(seen, ['k', 'k']);
});

test('shutDown waits for in-flight syncs and drops queued and delayed work', async () => {
  const q = new WorkQueue({ name: 't' });
  const gate = deferred();
  const finished: string[] = [];
  q.run(1, async (key) => {
    await gate.promise;
    finished.push(key);
    return DONE;
  });
  q.add('a');
  q.add('b');
  q.addAfter('c', 10);
  await waitFor(() => q.stats().processing === 1, 'one sync in flight', QUICK_POLL);
  const stopping = q.shutDown();
  let stopped = false;
  void stopping.then(() => (stopped = true));
  await new Promise((r) => setImmediate(r));
  assert.equal(stopped, false, 'still waiting for the in-flight sync');
  gate.resolve();
  await stopping;
  assert.deepEqual(finished, ['a']);
  const addsBefore = q.stats().adds;
  q.add('d');
  assert.equal(q.stats().adds, addsBefore, 'adds after shutdown are ignored');
});
