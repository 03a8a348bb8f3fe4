/**
 * The API server's storage seam: a versioned object store with one global, strictly increasing
 * resourceVersion (the kine idea: the change log's row id *is* the resourceVersion).
 *
 * Storage is deliberately dumb: it knows keys, versions and durability, nothing of Kubernetes
 * semantics (defaulting, validation, finalizers, no-op detection live in the registry above it).
 *
 * Concurrency contract (single-threaded Node): `write` applies the change to the in-memory view
 * synchronously and assigns its resourceVersion before returning, so a read-check-write done
 * by the registry in one synchronous stretch can never interleave with another. Durability is
 * asynchronous: `durable` resolves once the change survives `kill -9` (for SQLite: after the
 * transaction holding it committed; several writes may share one commit — group commit). The
 * registry acknowledges a request only after `durable`, and watchers are told of a change only
 * after it is durable, in resourceVersion order.
 */
import type { KubeObject } from '@pv-controller/kube/types.js';

/** Identifies one stored object. `namespace` is '' for cluster-scoped resources. */
export interface ObjectKey {
  /** Storage prefix of the resource, e.g. "persistentvolumes" or "storage.k8s.io/storageclasses". */
  resource: string;
  namespace: string;
  name: string;
}

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One committed change, as watchers see it. */
export interface Change {
  rv: number;
  type: ChangeType;
  key: ObjectKey;
  /** The object after the change (for DELETED: the last state, with the deletion's resourceVersion). */
  object: KubeObject;
  /** The object before the change (undefined for ADDED). Needed for selector transitions. */
  prev?: KubeObject;
}

export type WriteOp =
  | { type: 'create'; key: ObjectKey; object: KubeObject }
  | { type: 'update'; key: ObjectKey; object: KubeObject }
  | { type: 'delete'; key: ObjectKey };

export interface WriteResult {
  change: Change;
  /** Resolves when the change is durable; rejects if it could not be made durable. */
  durable: Promise<void>;
}

export interface Storage {
  /** Highest resourceVersion assigned so far (0 for an empty store). */
  currentRV(): number;
  /** Oldest resourceVersion from which `changesSince` can still replay. */
  oldestRetainedRV(): number;
  get(key: ObjectKey): KubeObject | undefined;
  /** All objects of a resource (in one namespace when given), ordered by namespace then name. */
  list(resource: string, namespace?: string): KubeObject[];
  /** Number of objects of a resource (cheap). */
  count(resource: string): number;
  /**
   * The objects `list` gives that come after `after` ([namespace, name]), to `take` in order until
   * it returns false; returns how many objects lie after `after` (taken or not). For paged lists.
   */
  walkAfter(resource: string, namespace: string | undefined, after: readonly [string, string] | undefined, take: (obj: KubeObject) => boolean): number;
  /**
   * Applies a write: assigns the next resourceVersion, sets `metadata.resourceVersion` on the
   * stored copy, updates the in-memory view at once. The caller has already checked
   * preconditions against `get`; storage throws only on internal failure (a create over an
   * existing key or an update/delete of a missing key is a programming error here).
   * Stored objects are owned by storage: callers must not mutate what they passed in or got back.
   */
  write(op: WriteOp): WriteResult;
  /** Committed (durable) changes with rv > since, in order; throws ExpiredError if compacted. */
  changesSince(since: number, resource?: string): Change[];
  /** Called for every durable change, in resourceVersion order. Returns an unsubscribe function. */
  subscribe(listener: (change: Change) => void): () => void;
  /** Waits for pending writes to become durable, then releases resources. */
  close(): Promise<void>;
}
