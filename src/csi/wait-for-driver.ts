/**
 * Waiting for a CSI driver to come up, as the sidecars do at start (csi-lib-utils' connect and
 * ProbeForever): Probe until the driver says it is ready, then GetPluginInfo for its name.
 *
 * A Probe that fails with an in-progress code (UNAVAILABLE while the socket does not exist yet
 * or the driver is starting, DEADLINE_EXCEEDED from a slow driver, ...) or answers ready=false is
 * tried again, 100 ms after the first and doubling to 5 s; a final error (the driver answered
 * and refuses, e.g. UNIMPLEMENTED) ends the wait at once. Past the deadline the error names the
 * socket and the last thing the driver said.
 */
import type { Logger } from 'pino';
import { Backoff, delay } from '../backoff.js';
import type { CsiConnection, PluginInfo } from './types.js';
import { CsiCallError } from './types.js';

export interface WaitForDriverOptions {
  /** How long to wait in all, from the call (ms). */
  deadlineMs: number;
  signal?: AbortSignal;
  logger?: Logger;
}

const PROBE_BACKOFF = { initialMs: 100, maxMs: 5_000 };
/** One Probe never waits longer than this (the sidecars' single-probe timeout is their --timeout). */
const PROBE_TIMEOUT_MS = 10_000;

export class DriverNotReadyError extends Error {
  override name = 'DriverNotReadyError';
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Resolves with the driver's identity once it is ready; rejects at the deadline, on a final error or on abort. */
export async function waitForDriver(conn: CsiConnection, o: WaitForDriverOptions): Promise<PluginInfo> {
  const deadline = Date.now() + o.deadlineMs;
  const backoff = new Backoff(PROBE_BACKOFF);
  const remaining = (): number => deadline - Date.now();
  let last = 'no answer yet';
  for (let attempt = 1; ; attempt++) {
    if (o.signal?.aborted) throw new DriverNotReadyError(`waiting for the CSI driver at ${conn.address} was aborted (${last})`);
    const callOptions = { timeoutMs: Math.max(1, Math.min(PROBE_TIMEOUT_MS, remaining())), ...(o.signal ? { signal: o.signal } : {}) };
    try {
      const ready = await conn.identity.probe(callOptions);
      if (ready !== false) return await conn.identity.getPluginInfo(callOptions);
      last = 'Probe answered ready=false';
    } catch (err) {
      if (err instanceof CsiCallError && err.kind === 'final') {
        throw new DriverNotReadyError(`the CSI driver at ${conn.address} failed: ${err.message}`, { cause: err });
      }
      // A Probe cut short by our own deadline (its timeout clipped to what was left) tells
      // nothing about the driver: keep what the driver said before, if anything.
      const clipped = callOptions.timeoutMs < PROBE_TIMEOUT_MS && err instanceof CsiCallError && err.codeName === 'DEADLINE_EXCEEDED';
      if (!clipped || last === 'no answer yet') last = describe(err);
    }
    const wait = Math.min(backoff.next(), remaining());
    if (wait <= 0) {
      throw new DriverNotReadyError(`the CSI driver at ${conn.address} was not ready within ${o.deadlineMs} ms (${attempt} probes; last: ${last})`);
    }
    o.logger?.info({ csiSocket: conn.address, attempt, retryInMs: wait, last }, 'waiting for the CSI driver');
    await delay(wait, o.signal);
  }
}
