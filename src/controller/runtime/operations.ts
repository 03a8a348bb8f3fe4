/**
 * Runs slow operations (plugin calls: provision, delete, recycle) outside the queue workers, as
 * upstream's one `runningOperations` goroutinemap does: at most `concurrency` at a time, never two
 * for one key, and, with `backoff`, none for a key after a failure until its backoff has passed
 * (upstream: 500 ms doubling to about 2 min). When a backoff ends the key is handed to
 * `backoff.onExpired` (the provisioner re-enqueues the claim), so a failing key is retried on its
 * own schedule instead of on every sync. Without `backoff` a failure is only the operation's own
 * business (the reclaimer counts attempts on the PV itself).
 */
import { KeyedBackoff } from '../../backoff.js';

/** How an operation ended: failures start (or lengthen) the key's backoff. */
export type OperationOutcome = 'succeeded' | 'failed' | 'stopped';

/** Why `start` did or did not start the operation. */
export type StartResult = 'started' | 'running' | 'backoff' | 'stopped';

export interface OperationRunnerOptions {
  /** Who runs it, for the abort reason on stop ("provisioner stopped"). */
  name: string;
  concurrency: number;
  backoff?: {
    initialMs: number;
    maxMs: number;
    onExpired(key: string): void;
  };
  /**
   * Called once a key's operation succeeded and the key no longer counts as running (so whoever
   * is woken by it sees `isRunning(key) === false`); not called after a stop.
   */
  onSucceeded?(key: string): void;
}

export interface OperationHandle {
  /** Aborted when the runner stops. */
  readonly stopSignal: AbortSignal;
  /** Aborted when the runner stops or `interrupt(key)` is called (e.g. the claim is being deleted). */
  readonly signal: AbortSignal;
}

interface Running {
  interrupt: AbortController;
  done: Promise<void>;
}

export class OperationRunner {
  private readonly running = new Map<string, Running>();
  /** Consecutive failures per key, and the timer of each key waiting out its backoff. */
  private readonly failureCounts: KeyedBackoff<string>;
  private readonly backoffTimers = new Map<string, NodeJS.Timeout>();
  private readonly slotWaiters: (() => void)[] = [];
  private readonly stopping = new AbortController();
  private active = 0;

  constructor(private readonly options: OperationRunnerOptions) {
    const { concurrency } = options;
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be ≥ 1, got ${concurrency}`);
    this.failureCounts = new KeyedBackoff({ initialMs: options.backoff?.initialMs ?? 0, maxMs: options.backoff?.maxMs ?? 0 });
  }

  isRunning(key: string): boolean {
    return this.running.has(key);
  }

  /** True while the key waits out the backoff of its last failure. */
  inBackoff(key: string): boolean {
    return this.backoffTimers.has(key);
  }

  /** Consecutive failures of the key (0 after a success). */
  failures(key: string): number {
    return this.failureCounts.failures(key);
  }

  /** Starts `operation` for `key` unless one is running, the key is backing off, or we stopped. */
  start(key: string, operation: (handle: OperationHandle) => Promise<OperationOutcome | void>): StartResult {
    if (this.stopping.signal.aborted) return 'stopped';
    if (this.running.has(key)) return 'running';
    if (this.inBackoff(key)) return 'backoff';
    const interrupt = new AbortController();
    const handle: OperationHandle = {
      stopSignal: this.stopping.signal,
      signal: AbortSignal.any([this.stopping.signal, interrupt.signal]),
    };
    const done = this.run(key, () => operation(handle));
    this.running.set(key, { interrupt, done });
    return 'started';
  }

  /** Aborts the signal of the key's running operation (it decides what that means). */
  interrupt(key: string, reason: string): void {
    this.running.get(key)?.interrupt.abort(new Error(reason));
  }

  /** Forgets the key's failure count (its object is gone). */
  forget(key: string): void {
    clearTimeout(this.backoffTimers.get(key));
    this.backoffTimers.delete(key);
    this.failureCounts.forget(key);
  }

  /** Resolves once no operation is running (or waiting for a slot). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running.values()].map((r) => r.done));
  }

  /** Stops (see `stop`) and waits for the operations that were running to end. */
  async close(): Promise<void> {
    this.stop();
    await this.idle();
  }

  /**
   * Stops: aborts every operation's signal, drops pending backoff wake-ups and refuses new work.
   * Does not wait for plugin calls that ignore their signal; operations make no API writes after
   * this (see OperationHandle.stopSignal), so a stop behaves like a crash at that instant.
   */
  stop(): void {
    this.stopping.abort(new Error(`${this.options.name} stopped`));
    for (const timer of this.backoffTimers.values()) clearTimeout(timer);
    this.backoffTimers.clear();
    this.failureCounts.clear();
    for (const wake of this.slotWaiters.splice(0)) wake();
  }

  private async run(key: string, operation: () => Promise<OperationOutcome | void>): Promise<void> {
    let outcome: OperationOutcome = 'failed';
    try {
      await this.acquireSlot();
      // Queued behind the limit when the stop came: never started.
      outcome = this.stopping.signal.aborted ? 'stopped' : ((await operation()) ?? 'succeeded');
    } catch {
      outcome = this.stopping.signal.aborted ? 'stopped' : 'failed';
    } finally {
      this.active--;
      this.slotWaiters.shift()?.();
      this.running.delete(key);
      this.settle(key, outcome);
    }
  }

  private async acquireSlot(): Promise<void> {
    while (this.active >= this.options.concurrency && !this.stopping.signal.aborted) {
      await new Promise<void>((resolve) => this.slotWaiters.push(resolve));
    }
    this.active++;
  }

  private settle(key: string, outcome: OperationOutcome): void {
    if (outcome === 'stopped' || this.stopping.signal.aborted) return;
    if (outcome === 'succeeded') {
      this.failureCounts.forget(key);
      this.options.onSucceeded?.(key);
      return;
    }
    const policy = this.options.backoff;
    if (!policy) return;
    const timer = setTimeout(() => {
      this.backoffTimers.delete(key);
      policy.onExpired(key);
    }, this.failureCounts.fail(key));
    timer.unref();
    this.backoffTimers.set(key, timer);
  }
}

/** How a claim operation runner is sized; the defaults are upstream's (16 at a time, 500 ms doubling to 2 min). */
export interface ClaimRunnerLimits {
  concurrency?: number;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
}

/**
 * A runner of operations keyed by claim: a claim whose operation failed is synced again when its
 * backoff ends, and one whose operation succeeded once the key no longer counts as running (so
 * whoever is woken sees `isRunning(key) === false`).
 */
export function claimOperationRunner(name: string, enqueueClaim: (key: string) => void, limits: ClaimRunnerLimits = {}): OperationRunner {
  return new OperationRunner({
    name,
    concurrency: limits.concurrency ?? 16,
    backoff: { initialMs: limits.initialBackoffMs ?? 500, maxMs: limits.maxBackoffMs ?? 120_000, onExpired: enqueueClaim },
    onSucceeded: enqueueClaim,
  });
}
