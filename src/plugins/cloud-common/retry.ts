/**
 * Bounded retry with exponential backoff and full jitter, and a timeout on every call. Shared by
 * the cloud plugins: each classifies its own backend's errors (throttling, 5xx, lost connections)
 * as worth retrying; this module only counts, waits and gives up.
 */
import type { Logger } from 'pino';
import { backoffDelay as exponentialDelay } from '../../backoff.js';
import { PluginError } from '../api/errors.js';

export interface RetryPolicy {
  /** Attempts in total (1 = no retry). */
  maxAttempts: number;
  /** First backoff ceiling; doubles with each attempt up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Each single call is aborted after this long and counts as a retryable failure. */
  callTimeoutMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  callTimeoutMs: 30_000,
};

/** How a failed call is treated: tried again, or given up on at once. */
export type ErrorVerdict = 'retry' | 'fatal';

export interface RetryOptions {
  /** What the call does, for messages and logs ("DescribeVolumes"). */
  what: string;
  policy: RetryPolicy;
  classify: (err: unknown) => ErrorVerdict;
  /** The caller's cancellation (controller shutdown, claim deleted). */
  signal?: AbortSignal;
  logger?: Logger;
  /** A uniform random number in [0, 1); injectable so tests can pin the jitter. */
  random?: () => number;
}

/** Thrown by a call that ran past RetryPolicy.callTimeoutMs. */
export class CallTimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`${what} timed out after ${ms} ms`);
    this.name = 'CallTimeoutError';
  }
}

/** The backoff before attempt `attempt + 1` (attempt counts from 1): full jitter. */
export function backoffDelay(policy: RetryPolicy, attempt: number, random: () => number): number {
  return exponentialDelay({ initialMs: policy.baseDelayMs, maxMs: policy.maxDelayMs, jitter: 'full' }, attempt - 1, random);
}

/** Sleeps `ms`, rejecting at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortedError(signal));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortedError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function abortedError(signal: AbortSignal | undefined): PluginError {
  return new PluginError('Transient', 'the operation was cancelled', true, { cause: signal?.reason });
}

/** Runs one attempt with its own deadline, folded into the caller's signal. */
async function attemptOnce<T>(
  op: (signal: AbortSignal) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new CallTimeoutError(options.what, options.policy.callTimeoutMs)),
    options.policy.callTimeoutMs,
  );
  const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
  try {
    return await op(signal);
  } catch (err) {
    if (options.signal?.aborted) throw abortedError(options.signal);
    if (deadline.signal.aborted) throw deadline.signal.reason as CallTimeoutError;
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Calls `op` until it succeeds, fails in a way classified fatal (PluginError 'Backend', not
 * retryable), or runs out of attempts (PluginError 'Transient', retryable). The original failure
 * is the cause either way; a PluginError thrown by `op` passes through unchanged.
 */
export async function withRetry<T>(
  op: (signal: AbortSignal) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const random = options.random ?? Math.random;
  let last: unknown;
  for (let attempt = 1; attempt <= options.policy.maxAttempts; attempt++) {
    try {
      return await attemptOnce(op, options);
    } catch (err) {
      if (err instanceof PluginError) throw err;
      const verdict = err instanceof CallTimeoutError ? 'retry' : options.classify(err);
      if (verdict === 'fatal') {
        throw new PluginError('Backend', `${options.what} failed: ${describeError(err)}`, false, { cause: err });
      }
      last = err;
      if (attempt === options.policy.maxAttempts) break;
      const delayMs = Math.max(backoffDelay(options.policy, attempt, random), retryAfterMs(err, options.policy));
      options.logger?.debug(
        { call: options.what, attempt, delayMs, err: describeError(err) },
        'cloud call failed, retrying',
      );
      await sleep(delayMs, options.signal);
    }
  }
  throw new PluginError(
    'Transient',
    `${options.what} failed after ${options.policy.maxAttempts} attempts: ${describeError(last)}`,
    true,
    { cause: last },
  );
}

/** A server's Retry-After (an error's `retryAfterSeconds`), capped at the policy's longest delay. */
function retryAfterMs(err: unknown, policy: RetryPolicy): number {
  const seconds = (err as { retryAfterSeconds?: unknown } | null)?.retryAfterSeconds;
  return typeof seconds === 'number' && seconds > 0 ? Math.min(policy.maxDelayMs, seconds * 1000) : 0;
}

/** A one-line description of any thrown value (never its stack, never request bodies). */
export function describeError(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return String(err);
}
