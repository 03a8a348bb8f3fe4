/**
 * Opening a store by kind. Asynchronous so that a future driver may do I/O while opening;
 * both current ones open synchronously.
 *
 *   const storage = await openStorage({ kind: 'sqlite', dir: '.pv-controller' });
 *   const storage = await openStorage({ kind: 'memory' });
 */
import type { StorageOptions, StorageStats } from './batched-storage.js';
import { MemoryStorage } from './memory.js';
import { SqliteStorage, type SqliteStorageOptions } from './sqlite.js';
import type { Storage } from './storage.js';

type OpenStorageOptions =
  | ({ kind: 'memory' } & StorageOptions)
  | ({ kind: 'sqlite'; dir: string; retainChanges?: number } & SqliteStorageOptions);

/** A Storage that also reports its commit counters. */
export type StorageWithStats = Storage & { stats(): StorageStats };

export async function openStorage(opts: OpenStorageOptions): Promise<StorageWithStats> {
  if (opts.kind === 'memory') {
    const { kind: _kind, ...options } = opts;
    return new MemoryStorage(options);
  }
  const { kind: _kind, dir, ...options } = opts;
  return SqliteStorage.open(dir, options);
}

export { MemoryStorage } from './memory.js';
export { SqliteStorage, SQLITE_FILE } from './sqlite.js';
export type { SqliteStorageOptions } from './sqlite.js';
export type { StorageOptions, StorageStats } from './batched-storage.js';
export { DEFAULT_MAX_BATCH, DEFAULT_RETAIN_CHANGES } from './batched-storage.js';
export {
  StorageClosedError,
  StorageCommitError,
  StorageInvariantError,
  StorageLockedError,
} from './errors.js';
export type * from './storage.js';
