/**
 * Keyed work queue with client-go's guarantees: a key waiting in the queue is held once however
 * often it is added; a key is never processed by two workers at once (added while processing ⇒
 * run again after); `addAfter` delays; failures retry with per-key exponential backoff
 * (5 ms doubling to 1000 s, like client-go's default controller rate limiter) until `forget`.
 */
import type { Logger } from 'pino';
import type { ObjectKeyString } from '@pv-controller/kube/object-key.js';
import { KeyedBackoff } from '../../backoff.js';
import type { SyncResult } from './sync-result.js';
import type { QueueLatencyObserver } from '../../metrics/workqueue-metrics.js';

export type SyncHandler = (key: ObjectKeyString) => Promise<SyncResult>;

export interface WorkQueueOptions {
  name: string;
  /** First retry delay (default 5 ms). */
  baseDelayMs?: number;
  /** Longest retry delay (default 1000 s). */
  maxDelayMs?: number;
  log?: Logger;
  /** Told each item's wait and work time (Prometheus' workqueue_*_duration_seconds histograms). */
  latency?: QueueLatencyObserver;
}

export interface QueueStats {
  depth: number;
  processing: number;
  adds: number;
  retries: number;
  syncs: number;
  failures: number;
  /** Sum / count of time from add to start of processing, and of processing time, in ms. */
  queueLatencyMsSum: number;
  workDurationMsSum: number;
}

export class WorkQueue {
  private readonly queue: ObjectKeyString[] = [];
  private head = 0;
  private readonly dirty = new Set<ObjectKeyString>();
  private readonly processing = new Set<ObjectKeyString>();
  private readonly addedAt = new Map<ObjectKeyString, number>();
  private readonly delayed = new Map<ObjectKeyString, { timer: NodeJS.Timeout; at: number }>();
  private readonly failures: KeyedBackoff<ObjectKeyString>;
  private readonly idleWaiters: Array<() => void> = [];
  private readonly workers: Promise<void>[] = [];
  private wakeWorker: Array<() => void> = [];
  private shuttingDown = false;
  private readonly counters = { adds: 0, retries: 0, syncs: 0, failures: 0, queueLatencyMsSum: 0, workDurationMsSum: 0 };

  constructor(private readonly opts: WorkQueueOptions) {
    this.failures = new KeyedBackoff({ initialMs: opts.baseDelayMs ?? 5, maxMs: opts.maxDelayMs ?? 1_000_000 });
  }

  get name(): string {
    return this.opts.name;
  }

  add(key: ObjectKeyString): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.counters.adds += 1;
    this.dirty.add(key);
    this.addedAt.set(key, performance.now());
    if (this.processing.has(key)) return;
    this.queue.push(key);
    this.wakeWorker.shift()?.();
  }

  /** Adds the key after `ms`; an earlier pending addAfter for the key wins. */
  addAfter(key: ObjectKeyString, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) return this.add(key);
    const at = performance.now() + ms;
    const pending = this.delayed.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, ms);
    this.delayed.set(key, { timer, at });
  }

  /** Adds the key after its backoff and bumps the backoff. */
  addRateLimited(key: ObjectKeyString): void {
    this.counters.retries += 1;
    this.addAfter(key, this.failures.fail(key));
  }

  /** The key succeeded: its next failure starts from the base delay again. */
  forget(key: ObjectKeyString): void {
    this.failures.forget(key);
  }

  numRequeues(key: ObjectKeyString): number {
    return this.failures.failures(key);
  }

  len(): number {
    return this.queue.length - this.head;
  }

  /** Starts `n` workers calling `handler` for each key. */
  run(n: number, handler: SyncHandler): void {
    for (let i = 0; i < n; i++) this.workers.push(this.workerLoop(handler));
  }

  /** Resolves once nothing is queued, delayed-due or processing (for tests and draining). */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops taking work; waits for the in-flight syncs to finish. Delayed adds are dropped. */
  async shutDown(): Promise<void> {
    this.shuttingDown = true;
    for (const d of this.delayed.values()) clearTimeout(d.timer);
    this.delayed.clear();
    for (const wake of this.wakeWorker.splice(0)) wake();
    await Promise.all(this.workers);
  }

  stats(): QueueStats {
    return { depth: this.len(), processing: this.processing.size, ...this.counters };
  }

  private async workerLoop(handler: SyncHandler): Promise<void> {
    for (;;) {
      const key = await this.get();
      if (key === undefined) return;
      const started = performance.now();
      const waitedMs = started - (this.addedAt.get(key) ?? started);
      this.counters.queueLatencyMsSum += waitedMs;
      this.opts.latency?.queued(this.opts.name, waitedMs / 1000);
      this.addedAt.delete(key);
      try {
        this.applyResult(key, await handler(key));
      } catch (err) {
        this.counters.failures += 1;
        this.opts.log?.error({ queue: this.opts.name, key, err: err instanceof Error ? err.message : String(err) }, 'sync failed');
        if (!this.shuttingDown) this.addRateLimited(key);
      } finally {
        const workedMs = performance.now() - started;
        this.counters.syncs += 1;
        this.counters.workDurationMsSum += workedMs;
        this.opts.latency?.worked(this.opts.name, workedMs / 1000);
        this.done(key);
      }
    }
  }

  private applyResult(key: ObjectKeyString, result: SyncResult): void {
    switch (result.kind) {
      case 'done':
        this.forget(key);
        break;
      case 'requeueAfter':
        this.forget(key);
        this.addAfter(key, result.ms);
        break;
      case 'retry':
        this.opts.log?.debug({ queue: this.opts.name, key, reason: result.reason }, 'sync will retry');
        this.addRateLimited(key);
        break;
    }
  }

  private async get(): Promise<ObjectKeyString | undefined> {
    while (this.len() === 0) {
      if (this.shuttingDown) return undefined;
      await new Promise<void>((resolve) => this.wakeWorker.push(resolve));
    }
    if (this.shuttingDown) return undefined;
    const key = this.queue[this.head++];
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    this.processing.add(key);
    this.dirty.delete(key);
    return key;
  }

  private done(key: ObjectKeyString): void {
    this.processing.delete(key);
    if (this.dirty.has(key)) {
      this.queue.push(key);
      this.wakeWorker.shift()?.();
    }
    if (this.isIdle()) for (const w of this.idleWaiters.splice(0)) w();
  }

  private isIdle(): boolean {
    return this.len() === 0 && this.processing.size === 0;
  }
}
