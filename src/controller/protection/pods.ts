/**
 * Which pods use which claims, as the pvc-protection controller sees it (upstream `podUsesPVC`):
 * a pod counts once it is scheduled (kubelet only starts scheduled pods, and never one whose
 * claim is being deleted) and until it has terminated. Generic ephemeral volumes name their
 * claim `<pod>-<volume>`; such a claim counts only when that pod owns it.
 */
import type { Pod, PersistentVolumeClaim } from '@pv-controller/kube/types.js';

function isTerminated(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

function ephemeralClaimName(pod: Pod, volumeName: string): string {
  return `${pod.metadata.name ?? ''}-${volumeName}`;
}

function isOwnedBy(claim: PersistentVolumeClaim, pod: Pod): boolean {
  return (claim.metadata.ownerReferences ?? []).some((o) => o.controller === true && o.uid === pod.metadata.uid);
}

/** Whether a scheduled, not terminated pod uses this claim. */
export function podUsesClaim(pod: Pod, claim: PersistentVolumeClaim): boolean {
  if (pod.metadata.namespace !== claim.metadata.namespace) return false;
  if (!pod.spec?.nodeName || isTerminated(pod)) return false;
  const name = claim.metadata.name;
  return (pod.spec.volumes ?? []).some(
    (v) =>
      v.persistentVolumeClaim?.claimName === name ||
      (v.ephemeral !== undefined && ephemeralClaimName(pod, v.name) === name && isOwnedBy(claim, pod)),
  );
}

/** Keys (`namespace/name`) of every claim a pod's volumes name: what to re-check on a pod event. */
export function claimKeysOfPod(pod: Pod): string[] {
  const ns = pod.metadata.namespace ?? '';
  const keys = new Set<string>();
  for (const v of pod.spec?.volumes ?? []) {
    if (v.persistentVolumeClaim?.claimName) keys.add(`${ns}/${v.persistentVolumeClaim.claimName}`);
    else if (v.ephemeral !== undefined) keys.add(`${ns}/${ephemeralClaimName(pod, v.name)}`);
  }
  return [...keys];
}
