/**
 * The `Unused` claim condition (KEP-5541, feature PersistentVolumeClaimUnusedSinceTime, beta and
 * on by default in Kubernetes 1.37), as kube-controller-manager's pvc-protection controller
 * writes it: `True`/`NoPodsUsingPVC` when no non-terminated pod references the claim,
 * `False`/`PodUsingPVC` when one does. Its lastTransitionTime is the time the controller saw the
 * claim change between the two ("unused since" when True). Pure functions of the claim.
 *
 * Only a Bound claim that is not being deleted is tracked (upstream leaves Pending claims alone,
 * so as not to race the binder, and a claim being deleted keeps what it had). The same status
 * again writes nothing: the time stays the one of the transition. Read from kube-controller-manager
 * v1.37.2's pkg/controller/volume/pvcprotection (processPVC, updateUnusedCondition).
 */
import type { PersistentVolumeClaim, PersistentVolumeClaimCondition } from '@pv-controller/kube/types.js';
import {
  CONDITION_UNUSED,
  MESSAGE_NO_PODS_USING_PVC,
  MESSAGE_POD_USING_PVC,
  REASON_NO_PODS_USING_PVC,
  REASON_POD_USING_PVC,
  unusedConditionOf,
} from '@pv-controller/kube/claim-usage.js';

export * from '@pv-controller/kube/claim-usage.js';

/** Whether the condition is kept on this claim: Bound and not being deleted. */
export function tracksUsage(pvc: PersistentVolumeClaim): boolean {
  return pvc.status?.phase === 'Bound' && !pvc.metadata.deletionTimestamp;
}

/** The condition for a claim in use (or not), with `now` (RFC 3339, whole seconds) as its transition time. */
export function unusedCondition(inUse: boolean, now: string): PersistentVolumeClaimCondition {
  return inUse
    ? { type: CONDITION_UNUSED, status: 'False', lastTransitionTime: now, reason: REASON_POD_USING_PVC, message: MESSAGE_POD_USING_PVC }
    : { type: CONDITION_UNUSED, status: 'True', lastTransitionTime: now, reason: REASON_NO_PODS_USING_PVC, message: MESSAGE_NO_PODS_USING_PVC };
}

/**
 * Whether the Unused condition must be (re)written, as upstream's updateUnusedCondition decides:
 * in use and the condition absent or True; unused and the condition absent or anything but True.
 * (An `Unknown` a client wrote stays while the claim is in use, as upstream leaves it.)
 */
function needsWrite(existing: PersistentVolumeClaimCondition | undefined, inUse: boolean): boolean {
  return inUse ? existing === undefined || existing.status === 'True' : existing?.status !== 'True';
}

/**
 * The claim with its Unused condition brought up to date, or undefined when nothing is to be
 * written (not tracked, or already right). The first Unused condition is replaced in place
 * (appended when there is none); every other condition stays as it is, as upstream's setUnusedCondition.
 */
export function withUnusedCondition(pvc: PersistentVolumeClaim, inUse: boolean, now: string): PersistentVolumeClaim | undefined {
  if (!tracksUsage(pvc) || !needsWrite(unusedConditionOf(pvc), inUse)) return undefined;
  const next = structuredClone(pvc);
  next.status ??= {};
  const conditions = next.status.conditions ?? [];
  const at = conditions.findIndex((c) => c.type === CONDITION_UNUSED);
  if (at >= 0) conditions[at] = unusedCondition(inUse, now);
  else conditions.push(unusedCondition(inUse, now));
  next.status.conditions = conditions;
  return next;
}

/** Go's metav1.Time text of a moment: RFC 3339 in UTC with whole seconds. */
export function rfc3339Seconds(at: Date): string {
  return at.toISOString().replace(/\.\d+Z$/, 'Z');
}
