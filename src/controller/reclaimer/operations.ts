/**
 * Slow plugin calls run here, outside the queue worker (upstream's goroutinemap): at most one
 * operation per key (`delete-<pv>[<uid>]`, `recycle-<pv>[<uid>]`) and at most `concurrency` at a
 * time. An operation never throws to its caller; it reports through its own writes and events.
 */

export class OperationRunner {
  private readonly running = new Map<string, Promise<void>>();
  private readonly waiting: Array<() => void> = [];
  private active = 0;
  private readonly abort = new AbortController();

  constructor(private readonly concurrency: number) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be ≥ 1, got ${concurrency}`);
  }

  /** Aborted by `close()`: handed to plugin calls so shutdown interrupts them. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  isRunning(key: string): boolean {
    return this.running.has(key);
  }

  /** Starts `body` under `key` unless one is already running; false when it was not started. */
  start(key: string, body: (signal: AbortSignal) => Promise<void>): boolean {
    if (this.running.has(key) || this.abort.signal.aborted) return false;
    const run = this.slot()
      // Queued behind the limit when close() came: never start it (its attempt stays counted).
      .then(() => (this.abort.signal.aborted ? undefined : body(this.abort.signal)))
      .catch(() => undefined)
      .finally(() => {
        this.running.delete(key);
        this.release();
      });
    this.running.set(key, run);
    return true;
  }

  /** Resolves when no operation is running (including ones started while waiting). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running.values()]);
  }

  /** Aborts running operations and waits for them to finish. */
  async close(): Promise<void> {
    this.abort.abort(new Error('reclaimer stopped'));
    for (const wake of this.waiting.splice(0)) wake();
    await this.settled();
  }

  private slot(): Promise<void> {
    if (this.active < this.concurrency) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve) =>
      this.waiting.push(() => {
        this.active++;
        resolve();
      }),
    );
  }

  private release(): void {
    this.active--;
    const next = this.waiting.shift();
    if (next) next();
  }
}
