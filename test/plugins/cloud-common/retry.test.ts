import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffDelay, withRetry, type RetryPolicy } from '../../../src/plugins/cloud-common/retry.js';
import { waitFor } from '../../../src/plugins/cloud-common/wait.js';
import { roundUpToGiB, gibCapacity } from '../../../src/plugins/cloud-common/size.js';
import { PluginError } from '../../../src/plugins/api/errors.js';
import { captureLogger } from '../../emulators/fixtures.js';

const policy: RetryPolicy = { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 4, callTimeoutMs: 1_000 };
class Retryable extends Error {}

describe('bounded retry', () => {
  it('retries what the classifier calls retryable until the call succeeds', async () => {
    let calls = 0;
    const value = await withRetry(
      () => (++calls < 3 ? Promise.reject(new Retryable('busy')) : Promise.resolve('ok')),
      { what: 'op', policy, classify: (err) => (err instanceof Retryable ? 'retry' : 'fatal') },
    );
    assert.equal(value, 'ok');
    assert.equal(calls, 3);
  });

  it('gives up on a fatal error after one call with a non-retryable Backend error carrying it', async () => {
    let calls = 0;
    const fatal = new Error('bad request');
    await assert.rejects(
      withRetry(() => (calls++, Promise.reject(fatal)), { what: 'op', policy, classify: () => 'fatal' }),
      (err: unknown) => err instanceof PluginError && err.code === 'Backend' && !err.retryable && err.cause === fatal,
    );
    assert.equal(calls, 1);
  });

  it('passes a PluginError thrown by the call through unchanged', async () => {
    const inUse = new PluginError('InUse', 'attached', true);
    await assert.rejects(withRetry(() => Promise.reject(inUse), { what: 'op', policy, classify: () => 'retry' }), (err: unknown) => err === inUse);
  });

  it('gives up after maxAttempts with a retryable Transient PluginError carrying the cause', async () => {
    let calls = 0;
    await assert.rejects(
      withRetry(() => (calls++, Promise.reject(new Retryable('throttled'))), { what: 'CreateDisk', policy, classify: () => 'retry' }),
      (err: unknown) => {
        assert.ok(err instanceof PluginError);
        assert.equal(err.code, 'Transient');
        assert.equal(err.retryable, true);
        assert.match(err.message, /CreateDisk failed after 4 attempts: .*throttled/);
        assert.ok(err.cause instanceof Retryable);
        return true;
      },
    );
    assert.equal(calls, 4);
  });

  it('aborts a call that runs past its timeout and tries again', async () => {
    let calls = 0;
    const value = await withRetry(
      (signal) => {
        calls++;
        if (calls > 1) return Promise.resolve('second');
        return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      },
      { what: 'op', policy: { ...policy, callTimeoutMs: 20 }, classify: () => 'fatal' },
    );
    assert.equal(value, 'second');
  });

  it('stops at once when the caller cancels', async () => {
    const cancel = new AbortController();
    const pending = withRetry(
      (signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))),
      { what: 'op', policy, classify: () => 'retry', signal: cancel.signal },
    );
    cancel.abort();
    await assert.rejects(pending, (err: unknown) => err instanceof PluginError && /cancelled/.test(err.message));
  });

  it('waits at least a server\'s Retry-After, capped at the longest delay', async () => {
    const throttled = Object.assign(new Error('slow down'), { retryAfterSeconds: 0.05 });
    const log = captureLogger();
    let calls = 0;
    const call = () => (++calls % 2 === 1 ? Promise.reject(throttled) : Promise.resolve());
    const options = { what: 'op', classify: () => 'retry' as const, random: () => 0, logger: log.logger };
    await withRetry(call, { ...options, policy: { ...policy, maxDelayMs: 60_000 } });
    await withRetry(call, { ...options, policy: { ...policy, maxDelayMs: 10 } });
    const delays = log.text().trim().split('\n').map((line) => (JSON.parse(line) as { delayMs: number }).delayMs);
    assert.deepEqual(delays, [50, 10]);
  });

  it('draws each backoff from [0, min(max, base·2^(n-1)))', () => {
    const p = { ...policy, baseDelayMs: 100, maxDelayMs: 1_000 };
    assert.equal(backoffDelay(p, 1, () => 0.999), 99);
    assert.equal(backoffDelay(p, 3, () => 0.5), 200);
    assert.equal(backoffDelay(p, 10, () => 0.999), 999);
    assert.equal(backoffDelay(p, 10, () => 0), 0);
  });
});

describe('waiting for readiness', () => {
  it('returns the first value a poll yields', async () => {
    let polls = 0;
    const value = await waitFor(() => Promise.resolve(++polls === 3 ? 'ready' : undefined), {
      what: 'disk',
      timeoutMs: 5_000,
      intervalMs: 1,
      maxIntervalMs: 2,
    });
    assert.equal(value, 'ready');
    assert.equal(polls, 3);
  });

  it('gives up with a retryable error naming what it waited for', async () => {
    await assert.rejects(
      waitFor(() => Promise.resolve(undefined), { what: 'disk d to be READY', timeoutMs: 20, intervalMs: 1, maxIntervalMs: 5 }),
      (err: unknown) => err instanceof PluginError && err.retryable && /disk d to be READY/.test(err.message),
    );
  });
});

describe('sizes', () => {
  it('rounds up to whole GiB, at least one', () => {
    assert.equal(roundUpToGiB(0n), 1);
    assert.equal(roundUpToGiB(1n), 1);
    assert.equal(roundUpToGiB(1024n ** 3n), 1);
    assert.equal(roundUpToGiB(1024n ** 3n + 1n), 2);
    assert.equal(gibCapacity(2), '2Gi');
    assert.equal(gibCapacity(1024), '1Ti');
  });
});
