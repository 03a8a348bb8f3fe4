/**
 * The newest copy the controller knows of each object: informer events merged with the
 * controller's own write results. The copy with the higher integer resourceVersion wins (equal
 * passes, so a resync still syncs), and deletions leave a tombstone so a stale event for a
 * deleted object never brings it back. Copies are kept without managedFields (cache-transform.ts).
 */
import { keyOf, type ObjectKeyString } from '@pv-controller/kube/object-key.js';
import type { KubeObject } from '@pv-controller/kube/types.js';
import type { WriteRecorder } from '../kube-api-client.js';
import { withoutManagedFields, type CacheTransform } from './cache-transform.js';
import { rvNumber } from './resource-version.js';

/** Who told the store about a change. */
export type ChangeOrigin = 'informer' | 'own-write' | 'relist';

export type ChangeListener<T> = (
  key: ObjectKeyString,
  obj: T | undefined,
  prev: T | undefined,
  origin: ChangeOrigin,
) => void;

interface Tombstone {
  rv: number;
  at: number;
  /** uid of the object whose deletion left it, when known. */
  uid?: string;
}

/** Tombstones are kept at least this long, then pruned once the informer has passed them. */
const TOMBSTONE_TTL_MS = 5 * 60_000;

/** What the controller's context reads as its ObjectStore (controller/runtime/context.ts), filled by a Reflector and the client. */
export class MergedStore<T extends KubeObject> implements WriteRecorder<T> {
  private readonly items = new Map<ObjectKeyString, T>();
  private readonly tombstones = new Map<ObjectKeyString, Tombstone>();
  private readonly listeners: ChangeListener<T>[] = [];
  private synced = false;

  /** `trim` shapes every copy the store keeps, from any origin (default: without managedFields). */
  constructor(
    private readonly now: () => number = Date.now,
    private readonly trim: CacheTransform<T> = withoutManagedFields,
  ) {}

  get(key: ObjectKeyString): T | undefined {
    return this.items.get(key);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  keys(): ObjectKeyString[] {
    return [...this.items.keys()];
  }

  size(): number {
    return this.items.size;
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /**
   * True when the server has said the object `key` with this uid is gone (a tombstone left by the
   * deletion of exactly this uid: the watch, a consistent relist, or our own DELETE).
   */
  wasDeleted(key: ObjectKeyString, uid: string): boolean {
    return uid !== '' && this.tombstones.get(key)?.uid === uid && !this.items.has(key);
  }

  onChange(listener: ChangeListener<T>): void {
    this.listeners.push(listener);
  }

  /** ADDED / MODIFIED from the watch. Returns whether the store took it. */
  applyInformerUpsert(obj: T): boolean {
    return this.upsert(obj, 'informer');
  }

  /** DELETED from the watch (the object carries the deletion's resourceVersion). */
  applyInformerDelete(obj: T): boolean {
    return this.remove(keyOf(obj), rvNumber(obj.metadata.resourceVersion), 'informer', obj.metadata.uid);
  }

  recordWrite(obj: T): void {
    this.upsert(obj, 'own-write');
  }

  recordDelete(key: ObjectKeyString, lastKnown?: T): void {
    const current = this.items.get(key);
    const rv = Math.max(rvNumber(lastKnown?.metadata.resourceVersion), rvNumber(current?.metadata.resourceVersion));
    this.remove(key, rv, 'own-write', lastKnown?.metadata.uid ?? current?.metadata.uid);
  }

  /**
   * A full list at `listRv`: objects missing from it are gone unless our own copy is newer than
   * the list. Marks the store synced.
   */
  replaceAll(objs: T[], listRv: string | undefined): void {
    const listVersion = rvNumber(listRv);
    const seen = new Set<ObjectKeyString>();
    for (const obj of objs) {
      seen.add(keyOf(obj));
      this.upsert(obj, 'relist');
    }
    for (const [key, obj] of [...this.items]) {
      if (seen.has(key)) continue;
      if (listVersion >= 0 && rvNumber(obj.metadata.resourceVersion) > listVersion) continue;
      this.remove(key, Math.max(listVersion, rvNumber(obj.metadata.resourceVersion)), 'relist', obj.metadata.uid);
    }
    this.pruneTombstones(listVersion);
    this.synced = true;
  }

  /**
   * Drops tombstones the informer has passed once they are older than the TTL (a slow own-write
   * response may still arrive for a while after the delete).
   */
  pruneTombstones(informerRv: number): void {
    const cutoff = this.now() - TOMBSTONE_TTL_MS;
    for (const [key, t] of this.tombstones) {
      if (t.rv <= informerRv && t.at < cutoff) this.tombstones.delete(key);
    }
  }

  private upsert(obj: T, origin: ChangeOrigin): boolean {
    const key = keyOf(obj);
    const rv = rvNumber(obj.metadata.resourceVersion);
    const tomb = this.tombstones.get(key);
    if (tomb && rv <= tomb.rv) return false;
    const prev = this.items.get(key);
    if (prev && rv < rvNumber(prev.metadata.resourceVersion)) return false;
    if (tomb) this.tombstones.delete(key);
    const kept = this.trim(obj);
    this.items.set(key, kept);
    this.emit(key, kept, prev, origin);
    return true;
  }

  private remove(key: ObjectKeyString, rv: number, origin: ChangeOrigin, uid?: string): boolean {
    const prev = this.items.get(key);
    if (prev && rv >= 0 && rv < rvNumber(prev.metadata.resourceVersion)) return false;
    const tomb = this.tombstones.get(key);
    // The uid is only recorded when it is the object we held (or nothing was held): a deletion
    // event for another incarnation must not vouch for this one.
    const deletedUid = uid !== undefined && (!prev || prev.metadata.uid === uid) ? uid : undefined;
    if (!tomb || tomb.rv < rv || (tomb.rv === rv && !tomb.uid)) {
      this.tombstones.set(key, { rv, at: this.now(), ...(deletedUid ? { uid: deletedUid } : {}) });
    }
    if (!prev) return false;
    this.items.delete(key);
    this.emit(key, undefined, prev, origin);
    return true;
  }

  private emit(key: ObjectKeyString, obj: T | undefined, prev: T | undefined, origin: ChangeOrigin): void {
    for (const l of this.listeners) l(key, obj, prev, origin);
  }
}
