/**
 * What the garbage collector needs to know of a dependent's owners, as kube-controller-manager's
 * classifyReferences sorts them: solid (the owner exists and is not waiting on its dependents),
 * going (absent, another object under that name, or deleting in the foreground). One storage
 * read per reference.
 */
import { FINALIZER_DELETE_DEPENDENTS } from '@pv-controller/kube/annotations.js';
import type { KubeObject, OwnerReference } from '@pv-controller/kube/types.js';
import type { ResourceStrategy } from '../resources/strategy.js';
import type { ObjectKey, Storage } from '../storage/storage.js';

/** What finding owners needs of the registry: the resources served, their keys, and storage reads. */
export interface OwnerStore {
  readonly strategies: readonly ResourceStrategy[];
  readonly storage: Pick<Storage, 'get'>;
  keyOf(s: ResourceStrategy, namespace: string, name: string): ObjectKey;
}

/** Finds the object an owner reference names (by its apiVersion's group and kind). */
export class OwnerLookup {
  private byKindOf: { served: readonly ResourceStrategy[]; map: Map<string, ResourceStrategy> } | undefined;

  constructor(private readonly registry: OwnerStore) {}

  /** The served kinds by group/kind, rebuilt when the registry serves others (custom resources). */
  private get byKind(): Map<string, ResourceStrategy> {
    const served = this.registry.strategies;
    if (this.byKindOf?.served !== served) {
      const map = new Map<string, ResourceStrategy>();
      for (const s of served) if (!map.has(`${s.info.group}/${s.info.kind}`)) map.set(`${s.info.group}/${s.info.kind}`, s);
      this.byKindOf = { served, map };
    }
    return this.byKindOf.map;
  }

  /** The stored object `ref` names from a dependent in `namespace`; null when the kind is not served here. */
  find(ref: OwnerReference, namespace: string): KubeObject | undefined | null {
    const slash = ref.apiVersion.lastIndexOf('/');
    const group = slash < 0 ? '' : ref.apiVersion.slice(0, slash);
    const s = this.byKind.get(`${group}/${ref.kind}`);
    if (s === undefined) return null;
    return this.registry.storage.get(this.registry.keyOf(s, namespace, ref.name));
  }
}

/** Deleting in the foreground: deletionTimestamp set and the foregroundDeletion finalizer held. */
export function isDeletingDependents(obj: KubeObject): boolean {
  return obj.metadata.deletionTimestamp !== undefined && (obj.metadata.finalizers ?? []).includes(FINALIZER_DELETE_DEPENDENTS);
}

interface OwnerClasses {
  /** Owners that exist and are not waiting on their dependents. */
  solid: number;
  /** The uids of owners that are gone or deleting in the foreground. */
  going: Set<string>;
  /** A reference to a kind this server does not serve: leave the dependent alone. */
  unknown: boolean;
}

export function classifyOwners(lookup: OwnerLookup, dependent: KubeObject): OwnerClasses {
  const out: OwnerClasses = { solid: 0, going: new Set(), unknown: false };
  for (const ref of dependent.metadata.ownerReferences ?? []) {
    const owner = lookup.find(ref, dependent.metadata.namespace ?? '');
    if (owner === null) out.unknown = true;
    else if (owner === undefined || owner.metadata.uid !== ref.uid || isDeletingDependents(owner)) out.going.add(ref.uid);
    else out.solid++;
  }
  return out;
}

/** The references with blockOwnerDeletion turned off; undefined when none blocks. */
export function unblockedReferences(refs: OwnerReference[]): OwnerReference[] | undefined {
  if (!refs.some((r) => r.blockOwnerDeletion === true)) return undefined;
  return refs.map((r) => (r.blockOwnerDeletion === true ? { ...r, blockOwnerDeletion: false } : r));
}
