/**
 * The one exponential backoff of this program: the work queues' per-key rate limiting, the
 * module set's per-module retries, the operation runners' per-key backoff, the reflectors'
 * reconnects, the provisioner's PV create retries and the cloud plugins' call retries all take
 * their delays from `backoffDelay`. A leaf utility like log.ts: it imports nothing from src/, so
 * every part may use it. Randomness is injectable so tests can pin the jitter.
 */

export interface BackoffPolicy {
  /** The delay before the first retry. */
  initialMs: number;
  /** No delay is longer than this before jitter (Infinity: no cap). */
  maxMs: number;
  /**
   * Absent: none. A number j: the delay times (1 + j × random), rounded (client-go's jitter).
   * 'full': uniform in [0, delay), floored (the cloud SDKs' "full jitter").
   */
  jitter?: number | 'full';
}

/** Doublings beyond this change no delay a finite cap allows, and keep 0 × 2^n a number. */
const MAX_DOUBLINGS = 64;

/** The delay before retry `retry` (0 for the first): initialMs doubled `retry` times, capped, jittered. */
export function backoffDelay(policy: BackoffPolicy, retry: number, random: () => number = Math.random): number {
  const base = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(Math.max(retry, 0), MAX_DOUBLINGS));
  if (policy.jitter === 'full') return Math.floor(random() * base);
  if (policy.jitter) return Math.round(base * (1 + policy.jitter * random()));
  return base;
}

/** The successive delays of one thing retried until it succeeds (a reflector's reconnects). */
export class Backoff {
  private retries = 0;

  constructor(
    readonly policy: BackoffPolicy,
    private readonly random: () => number = Math.random,
  ) {}

  /** The delay before the next retry; each call lengthens the one after. */
  next(): number {
    const ms = backoffDelay(this.policy, this.retries, this.random);
    this.retries = Math.min(this.retries + 1, MAX_DOUBLINGS);
    return ms;
  }

  /** It succeeded: the next failure waits `initialMs` again. */
  reset(): void {
    this.retries = 0;
  }
}

/** Consecutive failures per key, each answered with the delay before that key's retry. */
export class KeyedBackoff<K> {
  private readonly counts = new Map<K, number>();

  constructor(
    readonly policy: BackoffPolicy,
    private readonly random: () => number = Math.random,
  ) {}

  /** Counts a failure of `key` and returns how long it waits before its retry. */
  fail(key: K): number {
    const before = this.counts.get(key) ?? 0;
    this.counts.set(key, before + 1);
    return backoffDelay(this.policy, before, this.random);
  }

  /** Consecutive failures of `key` (0 once forgotten). */
  failures(key: K): number {
    return this.counts.get(key) ?? 0;
  }

  /** The key succeeded (or is gone): its next failure starts from `initialMs`. */
  forget(key: K): void {
    this.counts.delete(key);
  }

  clear(): void {
    this.counts.clear();
  }
}

/** Resolves after `ms`, or at once when `signal` aborts (a retry wait that a stop cuts short). */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
