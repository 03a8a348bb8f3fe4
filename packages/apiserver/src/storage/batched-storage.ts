/**
 * The part of Storage that memory and SQLite share: the in-memory view that serves every read,
 * resourceVersion assignment, and the group-commit pipeline that turns applied writes into
 * durable, published changes.
 *
 * Life of a write:
 *  1. `write` checks the key against the view, assigns rv = currentRV + 1, stores a stamped copy
 *     (the object and its metadata copied, resourceVersion set, deep-frozen unless disabled) in
 *     the view and queues the change in the open batch (at most `maxBatch` changes per batch).
 *  2. A flush (scheduled by the subclass: a microtask for memory, `setImmediate` for SQLite, so
 *     everything written during one event-loop turn shares a commit) hands each batch to
 *     `commit`, which must make it durable synchronously or throw.
 *  3. After a batch commits, each change is appended to the replay log and given to every
 *     subscriber, in resourceVersion order, then the batch's `durable` promise resolves.
 *     A change is therefore visible to `changesSince` exactly when it is published, so a watch
 *     that calls `changesSince` and `subscribe` in one synchronous stretch misses nothing and
 *     sees nothing twice.
 *
 * When a commit throws, every change not yet committed (that batch, the later ones and any
 * written meanwhile) is undone in the view, newest first, so the view equals the durable state
 * again; their `durable` promises reject with StorageCommitError (a 500) and the failure is
 * logged at error level. Nothing undone was ever published. resourceVersions are not reused,
 * so a failed commit leaves a gap. Between `write` and commit a GET can see a change that may
 * still be undone; the registry acknowledges writes only after `durable`.
 *
 * Object ownership: storage keeps the stamped copy, which shares nested values with the object
 * passed in; neither the caller's object nor anything `get`/`list`/`changesSince` returns may be
 * mutated. With `freezeObjects` (default: on unless NODE_ENV=production) that is enforced.
 */
import { pino, type Logger } from 'pino';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { ChangeLog } from './change-log.js';
import { StorageClosedError, StorageCommitError, StorageInvariantError } from './errors.js';
import { compactStored, sharedString } from './compact.js';
import { deepFreeze } from './freeze.js';
import { ObjectIndex } from './object-index.js';
import type { Change, ObjectKey, Storage, WriteOp, WriteResult } from './storage.js';

export const DEFAULT_RETAIN_CHANGES = 10_000;
export const DEFAULT_MAX_BATCH = 1_000;

export interface StorageOptions {
  /** How many recent changes `changesSince` can replay (default 10,000). */
  retainChanges?: number;
  /** Upper bound of changes per commit (default 1,000). */
  maxBatch?: number;
  /** Deep-freeze stored objects (default: true unless NODE_ENV is "production"). */
  freezeObjects?: boolean;
  logger?: Logger;
}

/** Counters for tests and metrics. */
export interface StorageStats {
  /** Successful commits (transactions, for SQLite). */
  commits: number;
  committedWrites: number;
  failedCommits: number;
  /** Writes applied to the view but not yet durable. */
  pendingWrites: number;
}

interface Batch {
  changes: Change[];
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

interface Subscription {
  listener: (change: Change) => void;
  active: boolean;
}

function openBatch(): Batch {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Callers that ignore `durable` must not crash the process on a failed commit; the failure
  // is logged here and still reaches everyone who awaits the promise.
  promise.catch(() => undefined);
  return { changes: [], promise, resolve, reject };
}

/**
 * A copy of a plain object's own properties. Not a spread: V8's fast path for `{...o}` gives each
 * copy a hidden class outside the transition tree, so freezing it (or adding a property) makes a
 * new hidden class per stored object — about 0.8 KB of maps, descriptor arrays and enum caches
 * per object, for the top level and metadata. Object.assign copies into the shared shapes. An
 * own `__proto__` key (JSON.parse makes one) would run the setter under assign, so it spreads.
 */
function shallowCopy<T extends object>(value: T): T {
  if (Object.hasOwn(value, '__proto__')) return { ...value };
  return Object.assign({}, value);
}

export abstract class BatchedStorage implements Storage {
  protected readonly view = new ObjectIndex();
  protected readonly history: ChangeLog;
  protected readonly logger: Logger;
  private readonly maxBatch: number;
  private readonly freezeObjects: boolean;
  private lastRV: number;
  private pending: Batch[] = [];
  private flushScheduled = false;
  private closed = false;
  private subscriptions: Subscription[] = [];
  private readonly counters = { commits: 0, committedWrites: 0, failedCommits: 0 };

  protected constructor(start: { currentRV: number; floorRV: number }, options: StorageOptions) {
    this.lastRV = start.currentRV;
    this.history = new ChangeLog(options.retainChanges ?? DEFAULT_RETAIN_CHANGES, start.floorRV);
    this.maxBatch = Math.max(1, options.maxBatch ?? DEFAULT_MAX_BATCH);
    this.freezeObjects = options.freezeObjects ?? process.env.NODE_ENV !== 'production';
    this.logger = options.logger ?? pino({ name: 'storage' });
  }

  /** Makes `changes` durable before returning, or throws (and leaves none of them durable). */
  protected abstract commit(changes: readonly Change[]): void;
  /** Arranges for `flush` to run soon, after the current synchronous stretch. */
  protected abstract scheduleFlush(flush: () => void): void;
  /** Releases resources after the last flush. */
  protected abstract release(): void;

  currentRV(): number {
    return this.lastRV;
  }

  oldestRetainedRV(): number {
    return this.history.floorRV();
  }

  get(key: ObjectKey): KubeObject | undefined {
    return this.view.get(key);
  }

  list(resource: string, namespace?: string): KubeObject[] {
    return this.view.list(resource, namespace);
  }

  count(resource: string): number {
    return this.view.count(resource);
  }

  walkAfter(resource: string, namespace: string | undefined, after: readonly [string, string] | undefined, take: (obj: KubeObject) => boolean): number {
    return this.view.walkAfter(resource, namespace, after, take);
  }

  changesSince(since: number, resource?: string): Change[] {
    return this.history.since(since, resource);
  }

  stats(): StorageStats {
    const pendingWrites = this.pending.reduce((n, batch) => n + batch.changes.length, 0);
    return { ...this.counters, pendingWrites };
  }

  write(op: WriteOp): WriteResult {
    if (this.closed) throw new StorageClosedError();
    const key: ObjectKey = Object.freeze({
      resource: op.key.resource,
      // The replay log keeps every key: its namespace is the one string of the object's.
      namespace: sharedString(op.key.namespace),
      name: op.key.name,
    });
    const prev = this.view.get(key);
    const rv = this.lastRV + 1;
    let change: Change;
    if (op.type === 'create') {
      if (prev !== undefined) throw new StorageInvariantError(key, 'create over an existing object');
      change = { rv, type: 'ADDED', key, object: this.stamp(op.object, rv) };
      this.view.put(key, change.object);
    } else if (op.type === 'update') {
      if (prev === undefined) throw new StorageInvariantError(key, 'update of a missing object');
      change = { rv, type: 'MODIFIED', key, object: this.stamp(op.object, rv), prev };
      this.view.put(key, change.object);
    } else {
      if (prev === undefined) throw new StorageInvariantError(key, 'delete of a missing object');
      change = { rv, type: 'DELETED', key, object: this.stamp(prev, rv), prev };
      this.view.remove(key);
    }
    this.lastRV = rv;
    Object.freeze(change);
    return { change, durable: this.enqueue(change) };
  }

  subscribe(listener: (change: Change) => void): () => void {
    const subscription: Subscription = { listener, active: true };
    this.subscriptions = [...this.subscriptions, subscription];
    return () => {
      if (!subscription.active) return;
      subscription.active = false;
      this.subscriptions = this.subscriptions.filter((s) => s !== subscription);
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.flush();
    this.release();
  }

  /** Puts an object read back from disk into the view (subclasses call it while opening). */
  protected loadObject(key: ObjectKey, object: KubeObject): void {
    this.view.put(key, compactStored(object, this.freezeObjects));
  }

  /** Puts a change read back from disk into the replay log, oldest first (while opening). */
  protected loadChange(change: Change): void {
    if (this.freezeObjects) deepFreeze(change);
    this.history.append(change);
  }

  private stamp(object: KubeObject, rv: number): KubeObject {
    const metadata = shallowCopy(object.metadata);
    metadata.resourceVersion = String(rv);
    const stamped = shallowCopy(object);
    stamped.metadata = metadata;
    return compactStored(stamped, this.freezeObjects);
  }

  private enqueue(change: Change): Promise<void> {
    let batch = this.pending[this.pending.length - 1];
    if (batch === undefined || batch.changes.length >= this.maxBatch) {
      batch = openBatch();
      this.pending.push(batch);
    }
    batch.changes.push(change);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      this.scheduleFlush(() => this.flush());
    }
    return batch.promise;
  }

  /** Commits every pending batch in order; stops at the first failure. */
  protected flush(): void {
    this.flushScheduled = false;
    const batches = this.pending;
    this.pending = [];
    for (let i = 0; i < batches.length; i++) {
      const batch = batches[i];
      try {
        this.commit(batch.changes);
      } catch (err) {
        this.failUncommitted(batches.slice(i), err);
        return;
      }
      this.counters.commits++;
      this.counters.committedWrites += batch.changes.length;
      for (const change of batch.changes) this.publish(change);
      batch.resolve();
    }
  }

  private publish(change: Change): void {
    this.history.append(change);
    for (const subscription of this.subscriptions) {
      if (!subscription.active) continue;
      try {
        subscription.listener(change);
      } catch (err) {
        this.logger.error({ err, rv: change.rv }, 'storage subscriber threw; continuing');
      }
    }
  }

  /**
   * Undoes every change that is not durable (the failed batch, the batches after it and any
   * written by subscribers meanwhile), newest first, and rejects their `durable` promises.
   */
  private failUncommitted(failedBatches: Batch[], cause: unknown): void {
    const failed = [...failedBatches, ...this.pending];
    this.pending = [];
    const changes = failed.flatMap((batch) => batch.changes);
    for (let i = changes.length - 1; i >= 0; i--) this.undo(changes[i]);
    const error = new StorageCommitError(changes.length, cause);
    this.counters.failedCommits++;
    this.logger.error(
      { err: cause, writes: changes.length, fromRV: changes[0]?.rv, toRV: changes[changes.length - 1]?.rv },
      'storage commit failed: writes rolled back from the in-memory view and rejected',
    );
    for (const batch of failed) batch.reject(error);
  }

  private undo(change: Change): void {
    if (change.type === 'ADDED') this.view.remove(change.key);
    else this.view.put(change.key, change.prev!);
  }
}
