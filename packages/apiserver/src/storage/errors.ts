/**
 * Typed failures of the storage layer. All are 500s for a client (they extend InternalError):
 * they mean a bug in the caller or a broken disk, never a user mistake.
 */
import { InternalError } from '@pv-controller/kube/errors.js';
import type { ObjectKey } from './storage.js';

function describeKey(key: ObjectKey): string {
  return key.namespace ? `${key.resource} ${key.namespace}/${key.name}` : `${key.resource} ${key.name}`;
}

/** A write that breaks the storage contract (create over an existing key, update of a missing one). */
export class StorageInvariantError extends InternalError {
  constructor(
    readonly key: ObjectKey,
    problem: string,
  ) {
    super(`storage: ${problem}: ${describeKey(key)}`);
  }
}

/**
 * A group commit failed: none of the writes in its batch is durable and all of them were rolled
 * back from the in-memory view. `cause` is the driver's error.
 */
export class StorageCommitError extends InternalError {
  constructor(
    readonly writes: number,
    override readonly cause: unknown,
  ) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`storage: commit of ${writes} write(s) failed: ${why}`);
  }
}

/** A write after `close()`. */
export class StorageClosedError extends InternalError {
  constructor() {
    super('storage: the store is closed');
  }
}

/** Another process (or another SqliteStorage in this one) holds the data directory. */
export class StorageLockedError extends InternalError {
  constructor(
    readonly file: string,
    override readonly cause: unknown,
  ) {
    super(`storage: ${file} is in use by another process`);
  }
}
