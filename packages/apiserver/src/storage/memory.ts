/**
 * MemoryStorage: the whole store in this process's memory, for tests and `--storage memory`.
 * Nothing survives the process. A change is "durable" as soon as the microtask queue drains:
 * everything written in one synchronous stretch is committed (published to `changesSince` and
 * subscribers, `durable` resolved) together, exactly as SqliteStorage does with a real commit,
 * so code written against one behaves the same against the other.
 *
 * Reads are served from per-resource, per-namespace maps with sorted name arrays (see
 * ObjectIndex); `changesSince` replays from a ring of the last `retainChanges` changes (default
 * 10,000) and throws ExpiredError below it. Stored objects are shared, not copied: callers must
 * treat everything passed in and handed out as read-only (deep-frozen unless
 * `freezeObjects: false` or NODE_ENV=production). See BatchedStorage for the full contract.
 */
import { BatchedStorage, type StorageOptions } from './batched-storage.js';
import type { Change } from './storage.js';

type MemoryStorageOptions = StorageOptions;

export class MemoryStorage extends BatchedStorage {
  constructor(options: MemoryStorageOptions = {}) {
    super({ currentRV: 0, floorRV: 0 }, options);
  }

  protected commit(_changes: readonly Change[]): void {
    // Memory is as durable as it gets the moment the change is applied.
  }

  protected scheduleFlush(flush: () => void): void {
    queueMicrotask(flush);
  }

  protected release(): void {
    // Nothing to release: the maps go when the object does.
  }
}
