/**
 * One volume's measurement with a deadline. The provider gets an AbortSignal that fires at the
 * deadline or on stop; the caller stops waiting then even when the provider ignores the signal,
 * and the volume counts as busy until that call really ends, so a stuck measurement never piles
 * up more of itself.
 */
import type { UsageErrorReason } from './usage.js';
import type { MetricsProvider, VolumeMetrics } from './provider.js';

/** A measurement that did not happen, with the reason the metrics report. */
export class UsageFailure extends Error {
  constructor(
    readonly reason: UsageErrorReason,
    message: string,
  ) {
    super(message);
    this.name = 'UsageFailure';
  }
}

/** The provider calls of one collector: at most one per volume, each with a deadline. */
export class DeadlineMeasurements {
  /** Provider calls still running (past their deadline when a pass finds them here). */
  private readonly inFlight = new Map<string, Promise<unknown>>();
  private readonly stopper = new AbortController();

  constructor(private readonly timeoutMs: number) {}

  /** Aborts every measurement in progress; later calls fail at once. */
  stop(): void {
    this.stopper.abort(new Error('usage collector stopped'));
  }

  /** Runs the provider with a deadline; the waiting ends at the deadline even if the call does not. */
  call(pvName: string, provider: MetricsProvider): Promise<VolumeMetrics> {
    if (this.inFlight.has(pvName)) {
      return Promise.reject(new UsageFailure('busy', 'the previous measurement of this volume has not finished yet'));
    }
    const deadline = new AbortController();
    const signal = AbortSignal.any([deadline.signal, this.stopper.signal]);
    const call = Promise.resolve().then(() => provider.getMetrics(signal));
    const tracked = call.catch(() => undefined).finally(() => this.inFlight.delete(pvName));
    this.inFlight.set(pvName, tracked);
    let timer: NodeJS.Timeout | undefined;
    const stopSignal = this.stopper.signal;
    let onStop = (): void => undefined;
    const ended = new Promise<never>((_, reject) => {
      const fail = (failure: UsageFailure): void => {
        deadline.abort(failure);
        reject(failure);
      };
      timer = setTimeout(() => fail(new UsageFailure('timeout', `measuring took longer than ${this.timeoutMs} ms`)), this.timeoutMs);
      onStop = () => fail(new UsageFailure('failed', 'the usage collector is stopping'));
      if (stopSignal.aborted) onStop();
      else stopSignal.addEventListener('abort', onStop, { once: true });
    });
    return Promise.race([call, ended]).finally(() => {
      clearTimeout(timer);
      stopSignal.removeEventListener('abort', onStop);
    });
  }
}
