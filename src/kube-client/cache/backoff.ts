/** Exponential backoff with jitter, for reconnects (client-go's reflector: 800 ms … 30 s). */
export class Backoff {
  private attempt = 0;

  constructor(
    private readonly initialMs = 800,
    private readonly maxMs = 30_000,
    private readonly jitter = 0.2,
  ) {}

  next(): number {
    const base = Math.min(this.maxMs, this.initialMs * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 30);
    return Math.round(base * (1 + this.jitter * Math.random()));
  }

  reset(): void {
    this.attempt = 0;
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
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
