/**
 * The one rule "a stopped module set writes nothing": the ApiClient and EventRecorder every
 * module is given refuse writes once the set has stopped (the process is shutting down or lost
 * its lease), so a slow plugin call that ends after the stop behaves like a crash at the stop
 * instant, whichever module started it. Reads pass through; a refused write rejects with
 * StoppedWriteError, a refused event is dropped.
 */
import type { ApiClient, ControllerContext, EventRecorder } from './context.js';

/** A write refused because the module set has stopped. */
export class StoppedWriteError extends Error {
  constructor(
    readonly call: string,
    why: string,
  ) {
    super(`${call} refused: ${why}; nothing is written after a stop`);
    this.name = 'StoppedWriteError';
  }
}

type ApiCall = keyof ApiClient;

const WRITES: readonly ApiCall[] = [
  'createVolume',
  'updateVolume',
  'updateVolumeStatus',
  'deleteVolume',
  'updateClaim',
  'updateClaimStatus',
  'createClaim',
  'deleteClaim',
  'createLease',
  'updateLease',
  'deleteLease',
];

const READS: readonly ApiCall[] = ['getVolume', 'getClaim', 'getStorageClass', 'getVolumeAttributesClass', 'getNode', 'listLeases', 'listPods'];

type AnyCall = (...args: unknown[]) => Promise<unknown>;

/** `api` with every write refused while `refusal()` gives a reason. */
export function stopGuardedApi(api: ApiClient, refusal: () => string | undefined): ApiClient {
  const guarded: Partial<Record<ApiCall, AnyCall>> = {};
  for (const call of READS) {
    const fn = api[call] as AnyCall | undefined;
    if (fn) guarded[call] = (...args) => fn.apply(api, args);
  }
  for (const call of WRITES) {
    const fn = api[call] as AnyCall;
    guarded[call] = (...args) => {
      const why = refusal();
      return why === undefined ? fn.apply(api, args) : Promise.reject(new StoppedWriteError(call, why));
    };
  }
  return guarded as ApiClient;
}

/** `events` dropping every event while `refusal()` gives a reason. */
export function stopGuardedEvents(events: EventRecorder, refusal: () => string | undefined): EventRecorder {
  return {
    event: (obj, type, reason, message) => {
      if (refusal() === undefined) events.event(obj, type, reason, message);
    },
  };
}

/** The context a module is built with: `ctx` whose writes stop with the module set. */
export function stopGuardedContext(ctx: ControllerContext, refusal: () => string | undefined): ControllerContext {
  return { ...ctx, api: stopGuardedApi(ctx.api, refusal), events: stopGuardedEvents(ctx.events, refusal) };
}
