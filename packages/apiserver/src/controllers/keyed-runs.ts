/**
 * The scheduling the embedded controllers share: a key is reconciled on the next turn of the
 * event loop after it was scheduled (never inside the storage callback that noticed the change),
 * one reconcile per key at a time, and a change during one asks for one more after it. A failed
 * reconcile is reported and waits for the next change.
 */
export class KeyedRuns {
  private readonly scheduled = new Set<string>();
  private readonly running = new Set<string>();
  private readonly rerun = new Set<string>();
  private stopped = false;

  constructor(
    private readonly reconcile: (key: string) => Promise<void>,
    private readonly onError: (err: unknown, key: string) => void,
  ) {}

  schedule(key: string): void {
    if (this.stopped || this.scheduled.has(key)) return;
    this.scheduled.add(key);
    setImmediate(() => {
      this.scheduled.delete(key);
      void this.run(key);
    });
  }

  /** Reconciles `key` now (or once the reconcile under way is done). */
  async run(key: string): Promise<void> {
    if (this.running.has(key)) {
      this.rerun.add(key);
      return;
    }
    this.running.add(key);
    try {
      await this.reconcile(key);
    } catch (err) {
      this.onError(err, key);
    } finally {
      this.running.delete(key);
      if (this.rerun.delete(key)) this.schedule(key);
    }
  }

  stop(): void {
    this.stopped = true;
  }
}
