import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TokenBucket } from '../../src/kube-client/rate-limiter.js';

test('the bucket allows a burst, then one request per 1/qps seconds', () => {
  let now = 0;
  const bucket = new TokenBucket(10, 3, () => now);
  assert.deepEqual([bucket.tryAcquire(), bucket.tryAcquire(), bucket.tryAcquire()], [true, true, true]);
  assert.equal(bucket.tryAcquire(), false);
  now += 100;
  assert.equal(bucket.tryAcquire(), true);
  assert.equal(bucket.tryAcquire(), false);
  now += 10_000;
  assert.equal([1, 2, 3, 4].filter(() => bucket.tryAcquire()).length, 3, 'never saves more than the burst');
});

test('a waiting acquire resolves once a token is refilled, in arrival order', async () => {
  // The clock moves only when the test says: a loaded machine must not refill between calls.
  let now = 0;
  const bucket = new TokenBucket(1000, 1, () => now);
  assert.equal(bucket.acquire(), undefined, 'first token at once');
  const order: number[] = [];
  const a = bucket.acquire()?.then(() => order.push(1));
  const b = bucket.acquire()?.then(() => order.push(2));
  assert.equal(bucket.waiting(), 2);
  now += 1;
  await a;
  assert.deepEqual(order, [1], 'one token, one waiter');
  now += 1;
  await b;
  assert.deepEqual(order, [1, 2]);
});

test('qps 0 disables limiting', () => {
  const bucket = new TokenBucket(0, 0);
  for (let i = 0; i < 100; i++) assert.equal(bucket.tryAcquire(), true);
});
