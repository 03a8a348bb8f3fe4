/**
 * The `Unused` claim condition's words (KEP-5541, Kubernetes 1.37's PersistentVolumeClaimUnusedSinceTime):
 * what kube-controller-manager's pvc-protection controller — and our pvc-unused module — write,
 * and what `pv-controller usage --unused` reads. True/NoPodsUsingPVC: no pod that has not
 * terminated references the claim; False/PodUsingPVC: one does; lastTransitionTime: when the
 * controller saw it change.
 */
import type { PersistentVolumeClaim, PersistentVolumeClaimCondition } from './types.js';

export const CONDITION_UNUSED = 'Unused';
export const REASON_NO_PODS_USING_PVC = 'NoPodsUsingPVC';
export const REASON_POD_USING_PVC = 'PodUsingPVC';
export const MESSAGE_NO_PODS_USING_PVC = 'No pods are currently referencing this PVC';
export const MESSAGE_POD_USING_PVC = 'A pod is currently referencing this PVC';

/** The claim's Unused condition, if it has one (the first, should a client have written two). */
export function unusedConditionOf(pvc: PersistentVolumeClaim): PersistentVolumeClaimCondition | undefined {
  return (pvc.status?.conditions ?? []).find((c) => c.type === CONDITION_UNUSED);
}
