/**
 * Unbound claims by the storage class they would match, so a volume that becomes free can wake
 * exactly the claims that might want it. Upstream does not do this: there a claim created before
 * its volume waits for the next resync, which with a 10-minute `--pvclaimbinder-sync-period` is
 * ten minutes.
 */
import { ANN_BIND_COMPLETED } from '@pv-controller/kube/annotations.js';
import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '@pv-controller/kube/types.js';
import { hasAnnotation, isDefaultStorageClass, storageClassOfVolume } from '@pv-controller/kube/volume-helpers.js';
import { matchingClassOfClaim } from './match.js';

export class PendingClaims {
  private readonly byClass = new Map<string, Set<string>>();
  private readonly classOf = new Map<string, string>();

  /** Keeps the claim's entry current; call for every claim change (undefined = deleted). */
  track(key: string, claim: PersistentVolumeClaim | undefined): void {
    const old = this.classOf.get(key);
    if (old !== undefined) {
      this.byClass.get(old)?.delete(key);
      this.classOf.delete(key);
    }
    if (!claim || claim.spec.volumeName || hasAnnotation(claim, ANN_BIND_COMPLETED)) return;
    const cls = matchingClassOfClaim(claim);
    let keys = this.byClass.get(cls);
    if (!keys) this.byClass.set(cls, (keys = new Set()));
    keys.add(key);
    this.classOf.set(key, cls);
  }

  /** Claims a volume that just became free may bind: the unbound claims of its class. */
  wokenBy(pv: PersistentVolume, prev: PersistentVolume | undefined): Iterable<string> {
    if (!isFree(pv) || (prev && isFree(prev) && storageClassOfVolume(prev) === storageClassOfVolume(pv))) return [];
    return this.byClass.get(storageClassOfVolume(pv)) ?? [];
  }

  /**
   * Claims a new or changed StorageClass may let provision or bind: the unbound claims naming
   * it and, when it is (now) the default class, the claims naming none. A resync-only echo with
   * the same provisioner, parameters, binding mode and default mark wakes nothing.
   */
  wokenByClass(cls: StorageClass, prev: StorageClass | undefined): string[] {
    if (prev && sameDecisionInputs(cls, prev)) return [];
    const named = [...(this.byClass.get(cls.metadata.name ?? '') ?? [])];
    return isDefaultStorageClass(cls) ? [...named, ...(this.byClass.get('') ?? [])] : named;
  }

  size(): number {
    return this.classOf.size;
  }
}

/** What a claim's sync reads from its class; a change elsewhere (labels, managedFields) decides nothing. */
function sameDecisionInputs(a: StorageClass, b: StorageClass): boolean {
  return (
    a.provisioner === b.provisioner &&
    a.volumeBindingMode === b.volumeBindingMode &&
    isDefaultStorageClass(a) === isDefaultStorageClass(b) &&
    JSON.stringify(a.parameters ?? {}) === JSON.stringify(b.parameters ?? {}) &&
    JSON.stringify(a.mountOptions ?? []) === JSON.stringify(b.mountOptions ?? []) &&
    JSON.stringify(a.allowedTopologies ?? []) === JSON.stringify(b.allowedTopologies ?? [])
  );
}

/** Free for a new claim as the index sees it: Available, no claimRef uid, not being deleted. */
function isFree(pv: PersistentVolume): boolean {
  return pv.status?.phase === 'Available' && !pv.metadata.deletionTimestamp && !pv.spec.claimRef?.uid;
}
