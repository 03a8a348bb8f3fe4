/**
 * The in-memory view of current state: resource → namespace → name → object, with the names of
 * each namespace and the namespaces of each resource kept sorted (binary search + splice), so a
 * list is a walk over already-ordered arrays and a get is two or three Map lookups.
 */
import type { KubeObject } from '@pv-controller/kube/types.js';
import type { ObjectKey } from './storage.js';

interface NamespaceBucket {
  byName: Map<string, KubeObject>;
  /** Names in ascending code-unit order. */
  sortedNames: string[];
}

interface ResourceBucket {
  namespaces: Map<string, NamespaceBucket>;
  /** Namespaces (with at least one object) in ascending order. */
  sortedNamespaces: string[];
  count: number;
}

/** Index of `value` in sorted `items`, or where it would be inserted. */
function lowerBound(items: string[], value: string): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (items[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function insertSorted(items: string[], value: string): void {
  const last = items.length - 1;
  if (last < 0 || items[last] < value) {
    items.push(value); // the common case when loading in key order
    return;
  }
  items.splice(lowerBound(items, value), 0, value);
}

function removeSorted(items: string[], value: string): void {
  const at = lowerBound(items, value);
  if (items[at] === value) items.splice(at, 1);
}

export class ObjectIndex {
  private readonly resources = new Map<string, ResourceBucket>();

  get(key: ObjectKey): KubeObject | undefined {
    return this.resources.get(key.resource)?.namespaces.get(key.namespace)?.byName.get(key.name);
  }

  /** Inserts or replaces the object stored under `key`. */
  put(key: ObjectKey, object: KubeObject): void {
    const resource = this.resourceBucket(key.resource);
    let ns = resource.namespaces.get(key.namespace);
    if (ns === undefined) {
      ns = { byName: new Map(), sortedNames: [] };
      resource.namespaces.set(key.namespace, ns);
      insertSorted(resource.sortedNamespaces, key.namespace);
    }
    const before = ns.byName.size;
    ns.byName.set(key.name, object);
    if (ns.byName.size !== before) {
      insertSorted(ns.sortedNames, key.name);
      resource.count++;
    }
  }

  /** Removes `key`; returns whether it was present. */
  remove(key: ObjectKey): boolean {
    const resource = this.resources.get(key.resource);
    const ns = resource?.namespaces.get(key.namespace);
    if (resource === undefined || ns === undefined || !ns.byName.delete(key.name)) return false;
    removeSorted(ns.sortedNames, key.name);
    resource.count--;
    if (ns.byName.size === 0) {
      resource.namespaces.delete(key.namespace);
      removeSorted(resource.sortedNamespaces, key.namespace);
    }
    return true;
  }

  /** Objects of `resource` ordered by namespace then name; only `namespace` when given. */
  list(resource: string, namespace?: string): KubeObject[] {
    const bucket = this.resources.get(resource);
    if (bucket === undefined) return [];
    if (namespace !== undefined) {
      const ns = bucket.namespaces.get(namespace);
      return ns === undefined ? [] : namesToObjects(ns, []);
    }
    const out: KubeObject[] = [];
    for (const name of bucket.sortedNamespaces) namesToObjects(bucket.namespaces.get(name)!, out);
    return out;
  }

  count(resource: string): number {
    return this.resources.get(resource)?.count ?? 0;
  }

  /**
   * The objects `list` would give that come after the key `after` ([namespace, name]; all of them
   * without it), handed to `take` in list order until it returns false; answers how many objects
   * lie after `after` in all. A page of a paged list costs its own length and a binary search,
   * not a walk over the whole list.
   */
  walkAfter(resource: string, namespace: string | undefined, after: readonly [string, string] | undefined, take: (obj: KubeObject) => boolean): number {
    const bucket = this.resources.get(resource);
    if (bucket === undefined) return 0;
    const names = namespace === undefined ? bucket.sortedNamespaces : bucket.namespaces.has(namespace) ? [namespace] : [];
    let first = after === undefined ? 0 : lowerBound(names, after[0]);
    let remaining = 0;
    let taking = true;
    for (; first < names.length; first++) {
      const ns = bucket.namespaces.get(names[first])!;
      let start = 0;
      if (after !== undefined && names[first] === after[0]) {
        start = lowerBound(ns.sortedNames, after[1]);
        if (ns.sortedNames[start] === after[1]) start++;
      }
      remaining += ns.sortedNames.length - start;
      for (let i = start; taking && i < ns.sortedNames.length; i++) taking = take(ns.byName.get(ns.sortedNames[i])!);
    }
    return remaining;
  }

  private resourceBucket(resource: string): ResourceBucket {
    let bucket = this.resources.get(resource);
    if (bucket === undefined) {
      bucket = { namespaces: new Map(), sortedNamespaces: [], count: 0 };
      this.resources.set(resource, bucket);
    }
    return bucket;
  }
}

function namesToObjects(ns: NamespaceBucket, out: KubeObject[]): KubeObject[] {
  for (const name of ns.sortedNames) out.push(ns.byName.get(name)!);
  return out;
}
