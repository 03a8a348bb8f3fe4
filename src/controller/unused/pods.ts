/**
 * Which pods keep a claim "in use" for the Unused condition (upstream `podUsesPVCForUnusedSince`):
 * any pod referencing the claim that has not terminated — scheduled or not, since a Pending pod
 * shows someone means to use it. Terminated is upstream's `IsPodTerminated`: phase Succeeded or
 * Failed, or being deleted with no container (init, regular or ephemeral) still running.
 * A generic ephemeral volume's claim (`<pod>-<volume>`) counts only when that pod owns it.
 *
 * PodClaimIndex keeps, from the pod informer's changes, the pods that name each claim, so a
 * claim's sync looks at its own pods only: linear in pods + claims, not their product.
 */
import type { Pod, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import type { ObjectKeyString } from '@pv-controller/kube/object-key.js';
import { claimKeysOfPod } from '../protection/pods.js';

interface ContainerStateLike {
  state?: { running?: unknown; waiting?: unknown; terminated?: unknown };
}

/** Whether no container of a status list runs: each is waiting or terminated (an empty list: none). */
function noneRunning(statuses: unknown): boolean {
  if (!Array.isArray(statuses)) return true;
  return (statuses as (ContainerStateLike | null)[]).every((s) => s?.state?.terminated != null || s?.state?.waiting != null);
}

/** upstream IsPodTerminated. */
export function isPodTerminated(pod: Pod): boolean {
  const status = pod.status;
  if (status?.phase === 'Succeeded' || status?.phase === 'Failed') return true;
  return (
    !!pod.metadata.deletionTimestamp &&
    noneRunning(status?.initContainerStatuses) &&
    noneRunning(status?.containerStatuses) &&
    noneRunning(status?.ephemeralContainerStatuses)
  );
}

function ownedBy(claim: PersistentVolumeClaim, pod: Pod): boolean {
  return (claim.metadata.ownerReferences ?? []).some((o) => o.controller === true && o.uid === pod.metadata.uid);
}

/** Whether `pod` keeps `claim` in use. */
export function podKeepsClaimInUse(pod: Pod, claim: PersistentVolumeClaim): boolean {
  if (pod.metadata.namespace !== claim.metadata.namespace || isPodTerminated(pod)) return false;
  const name = claim.metadata.name;
  return (pod.spec?.volumes ?? []).some(
    (v) => v.persistentVolumeClaim?.claimName === name || (v.ephemeral != null && `${pod.metadata.name ?? ''}-${v.name}` === name && ownedBy(claim, pod)),
  );
}

/** Claim key → keys of the pods whose volumes name it. */
export class PodClaimIndex {
  private readonly podsByClaim = new Map<string, Set<ObjectKeyString>>();
  private readonly claimsByPod = new Map<ObjectKeyString, string[]>();

  /** A pod seen (or changed, or gone: `pod` undefined). */
  update(podKey: ObjectKeyString, pod: Pod | undefined): void {
    for (const claim of this.claimsByPod.get(podKey) ?? []) {
      const pods = this.podsByClaim.get(claim);
      pods?.delete(podKey);
      if (pods?.size === 0) this.podsByClaim.delete(claim);
    }
    this.claimsByPod.delete(podKey);
    if (!pod) return;
    const claims = claimKeysOfPod(pod);
    if (claims.length === 0) return;
    this.claimsByPod.set(podKey, claims);
    for (const claim of claims) {
      let pods = this.podsByClaim.get(claim);
      if (!pods) this.podsByClaim.set(claim, (pods = new Set()));
      pods.add(podKey);
    }
  }

  /** Keys of the pods naming the claim `namespace/name`. */
  podsOf(claimKey: string): ObjectKeyString[] {
    return [...(this.podsByClaim.get(claimKey) ?? [])];
  }

  size(): number {
    return this.claimsByPod.size;
  }
}
