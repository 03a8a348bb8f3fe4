/**
 * The garbage collector's graph: for every owner uid, the stored objects whose ownerReferences
 * name it. Kept up to date from storage changes, one change at a time, so what the collector
 * does for a change costs the changed object's references, never a walk over every stored object
 * (kube-controller-manager's GraphBuilder keeps the same edges in its uidToNode map).
 */
import type { KubeObject } from '@pv-controller/kube/types.js';
import type { Change, ObjectKey } from '../storage/storage.js';

const keyString = (k: ObjectKey): string => `${k.resource}\u0000${k.namespace}\u0000${k.name}`;

/** The distinct owner uids `obj` names. */
function ownerUidsOf(obj: KubeObject | undefined): string[] {
  const refs = obj?.metadata.ownerReferences;
  if (refs === undefined || refs.length === 0) return [];
  return [...new Set(refs.map((r) => r.uid))];
}

export class DependentsIndex {
  /** Owner uid → the keys of its dependents. */
  private readonly byOwner = new Map<string, Map<string, ObjectKey>>();
  /** A dependent's key → the owner uids it is indexed under. */
  private readonly owners = new Map<string, string[]>();

  /** Indexes an object as stored now (the initial walk). */
  add(key: ObjectKey, obj: KubeObject): void {
    this.set(key, ownerUidsOf(obj));
  }

  /** Follows one committed change; answers every owner uid the changed object named before or names now. */
  apply(change: Change): string[] {
    const before = this.owners.get(keyString(change.key)) ?? [];
    const after = change.type === 'DELETED' ? [] : ownerUidsOf(change.object);
    this.set(change.key, after);
    return before.length === 0 ? after : [...new Set([...before, ...after])];
  }

  /** The keys of the objects that name `uid` as an owner. */
  dependentsOf(uid: string): ObjectKey[] {
    const deps = this.byOwner.get(uid);
    return deps === undefined ? [] : [...deps.values()];
  }

  hasDependents(uid: string): boolean {
    return this.byOwner.has(uid);
  }

  private set(key: ObjectKey, uids: string[]): void {
    const k = keyString(key);
    for (const uid of this.owners.get(k) ?? []) {
      const deps = this.byOwner.get(uid);
      deps?.delete(k);
      if (deps?.size === 0) this.byOwner.delete(uid);
    }
    if (uids.length === 0) {
      this.owners.delete(k);
      return;
    }
    this.owners.set(k, uids);
    for (const uid of uids) {
      let deps = this.byOwner.get(uid);
      if (deps === undefined) this.byOwner.set(uid, (deps = new Map()));
      deps.set(k, key);
    }
  }
}
