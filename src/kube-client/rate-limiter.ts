/**
 * Client-side request rate limiting: a token bucket like client-go's `flowcontrol`
 * (`--kube-api-qps` tokens per second, at most `--kube-api-burst` saved up). Waiters are served
 * in arrival order. A qps of 0 or less disables limiting.
 */
export class TokenBucket {
  private tokens: number;
  private lastRefill: number;
  private readonly waiters: Array<() => void> = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = Math.max(1, burst);
    this.lastRefill = this.now();
  }

  /** Resolves when a token has been taken. Resolves at once while tokens remain. */
  acquire(): Promise<void> | undefined {
    if (this.qps <= 0) return undefined;
    this.refill();
    if (this.waiters.length === 0 && this.tokens >= 1) {
      this.tokens -= 1;
      return undefined;
    }
    return new Promise<void>((resolve) => {
      this.waiters.push(resolve);
      this.schedule();
    });
  }

  /** Takes a token if one is available right now; never waits. */
  tryAcquire(): boolean {
    if (this.qps <= 0) return true;
    this.refill();
    if (this.waiters.length === 0 && this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    return false;
  }

  /** Requests waiting for a token. */
  waiting(): number {
    return this.waiters.length;
  }

  private refill(): void {
    const now = this.now();
    const elapsed = (now - this.lastRefill) / 1000;
    this.lastRefill = now;
    this.tokens = Math.min(Math.max(1, this.burst), this.tokens + elapsed * this.qps);
  }

  private schedule(): void {
    if (this.timer) return;
    const deficit = Math.max(0, 1 - this.tokens);
    const waitMs = Math.max(1, Math.ceil((deficit / this.qps) * 1000));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.refill();
      while (this.waiters.length > 0 && this.tokens >= 1) {
        this.tokens -= 1;
        this.waiters.shift()?.();
      }
      if (this.waiters.length > 0) this.schedule();
    }, waitMs);
  }
}
