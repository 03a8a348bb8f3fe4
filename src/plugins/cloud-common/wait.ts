/** Bounded polling: wait until a freshly created disk reaches its ready state. */
import { PluginError } from '../api/errors.js';
import { sleep } from './retry.js';

export interface WaitOptions {
  /** What is awaited, for the timeout message ("volume vol-123 to become available"). */
  what: string;
  timeoutMs: number;
  /** First pause between polls; grows by half each time up to maxIntervalMs. */
  intervalMs: number;
  maxIntervalMs: number;
  signal?: AbortSignal;
}

export const DEFAULT_WAIT = { timeoutMs: 120_000, intervalMs: 250, maxIntervalMs: 5_000 };

/**
 * Calls `poll` until it returns a value (not undefined). Throws PluginError 'Transient'
 * (retryable) when the deadline passes: the disk may still become ready, and the next attempt
 * finds it again by its name and tags.
 */
export async function waitFor<T>(
  poll: () => Promise<T | undefined>,
  options: WaitOptions,
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let interval = options.intervalMs;
  while (true) {
    const value = await poll();
    if (value !== undefined) return value;
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new PluginError(
        'Transient',
        `timed out after ${options.timeoutMs} ms waiting for ${options.what}`,
        true,
      );
    }
    await sleep(Math.min(interval, left), options.signal);
    interval = Math.min(options.maxIntervalMs, Math.ceil(interval * 1.5));
  }
}
