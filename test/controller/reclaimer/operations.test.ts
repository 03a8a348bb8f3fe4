import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OperationRunner } from '../../../src/controller/reclaimer/operations.js';

function gate(): { wait: Promise<void>; open(): void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

test('at most `concurrency` operations run at once, one per key; the rest wait their turn', async () => {
  const runner = new OperationRunner(2);
  const g = gate();
  let running = 0;
  let peak = 0;
  const body = async (): Promise<void> => {
    peak = Math.max(peak, ++running);
    await g.wait;
    running--;
  };
  assert.equal(runner.start('a', body), true);
  assert.equal(runner.start('a', body), false, 'the same key is not started twice');
  assert.equal(runner.start('b', body), true);
  assert.equal(runner.start('c', body), true);
  assert.equal(runner.isRunning('c'), true);
  g.open();
  await runner.settled();
  assert.equal(peak, 2);
  assert.equal(runner.isRunning('a'), false);
});

test('close aborts running operations and never starts the queued ones', async () => {
  const runner = new OperationRunner(1);
  const started: string[] = [];
  const began = gate();
  runner.start('running', (signal) => {
    started.push('running');
    began.open();
    return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
  });
  runner.start('queued', async () => void started.push('queued'));
  await began.wait;
  await runner.close();
  assert.deepEqual(started, ['running']);
  assert.equal(runner.start('late', async () => undefined), false);
});

test('a failing operation does not break the runner', async () => {
  const runner = new OperationRunner(1);
  runner.start('bad', () => Promise.reject(new Error('boom')));
  await runner.settled();
  let ran = false;
  runner.start('good', async () => void (ran = true));
  await runner.settled();
  assert.equal(ran, true);
});
