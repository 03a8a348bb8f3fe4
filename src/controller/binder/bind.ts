/**
 * The binder's writes (upstream `bind`, `unbindVolume` and their steps in pv_controller.go). Every write is a PUT guarded by the resourceVersion
 * of the copy passed in, is skipped when it would change nothing, and hands its result to the
 * next step (and, for volumes, to the index) so the following decision sees it. Any step may be
 * the last one before a crash or a 409: the next sync finds the half-done binding (the PV's
 * claimRef carries the claim's uid) and writes only what is still missing.
 */
import type {
  ClaimPhase,
  PersistentVolume,
  PersistentVolumeClaim,
  VolumePhase,
} from '@pv-controller/kube/types.js';
import {
  ANN_BIND_COMPLETED,
  ANN_BOUND_BY_CONTROLLER,
  ANN_PRE_RESIZE_CAPACITY,
  ANN_VALUE_YES,
} from '@pv-controller/kube/annotations.js';
import { compareQuantityStrings, isValidQuantity } from '@pv-controller/kube/quantity.js';
import { claimRefFor, hasAnnotation, isVolumeBoundToClaim, volumeWithoutBinding } from '@pv-controller/kube/volume-helpers.js';
import type { EventType } from '../runtime/context.js';
import type { EventReason } from '../runtime/event-reasons.js';
import type { BinderDeps } from './hooks.js';

/** A state the binder refuses to act on (upstream's "should never happen" errors). */
export class BindingError extends Error {
  override readonly name = 'BindingError';
}

export function claimKeyOf(claim: PersistentVolumeClaim): string {
  return `${claim.metadata.namespace ?? ''}/${claim.metadata.name ?? ''}`;
}

function sameModes(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((m, i) => m === y[i]);
}

export async function updateVolumePhase(
  s: BinderDeps,
  pv: PersistentVolume,
  phase: VolumePhase,
  why: string,
): Promise<PersistentVolume> {
  const from = pv.status?.phase;
  if (from === phase) return pv;
  // Copies only what changes: the copies the stores hold are never mutated, so sharing the rest is safe.
  const next: PersistentVolume = { ...pv, status: { ...pv.status, phase, message: '' } };
  const saved = await s.ctx.api.updateVolumeStatus(next);
  s.index.upsert(saved);
  // Bound is the happy path, once per binding: debug (upstream logs it at V(4)); other phases stay info.
  logAt(s, phase === 'Bound', { pv: pv.metadata.name, from: from ?? '', to: phase, why }, 'volume phase changed');
  return saved;
}

/** Logs at debug when `routine` (building the fields only if debug is on), else at info. */
function logAt(s: BinderDeps, routine: boolean, fields: Record<string, unknown>, msg: string): void {
  if (!routine) s.log.info(fields, msg);
  else if (s.log.isLevelEnabled('debug')) s.log.debug(fields, msg);
}

/** Step 1: the PV's claimRef (and bound-by-controller unless the PV was pre-bound to it). */
async function bindVolumeToClaim(s: BinderDeps, pv: PersistentVolume, claim: PersistentVolumeClaim): Promise<PersistentVolume> {
  const ref = pv.spec.claimRef;
  const refDiffers =
    !ref ||
    ref.name !== claim.metadata.name ||
    ref.namespace !== claim.metadata.namespace ||
    ref.uid !== claim.metadata.uid;
  const markController = !isVolumeBoundToClaim(pv, claim) && !hasAnnotation(pv, ANN_BOUND_BY_CONTROLLER);
  if (!refDiffers && !markController) return pv;
  const next: PersistentVolume = { ...pv, metadata: { ...pv.metadata }, spec: { ...pv.spec } };
  if (refDiffers) next.spec.claimRef = claimRefFor(claim);
  if (markController) {
    next.metadata.annotations = { ...next.metadata.annotations, [ANN_BOUND_BY_CONTROLLER]: ANN_VALUE_YES };
  }
  const saved = await s.ctx.api.updateVolume(next);
  s.index.upsert(saved);
  if (s.log.isLevelEnabled('debug')) s.log.debug({ pv: pv.metadata.name, claim: claimKeyOf(claim), why: 'bind' }, 'volume claimRef set');
  return saved;
}

/** Step 3: the claim's volumeName (bound-by-controller when we set it) and bind-completed. */
async function bindClaimToVolume(s: BinderDeps, claim: PersistentVolumeClaim, pv: PersistentVolume): Promise<PersistentVolumeClaim> {
  const pvName = pv.metadata.name ?? '';
  const setVolumeName = claim.spec.volumeName !== pvName;
  const markCompleted = !hasAnnotation(claim, ANN_BIND_COMPLETED);
  if (!setVolumeName && !markCompleted) return claim;
  const next: PersistentVolumeClaim = { ...claim, metadata: { ...claim.metadata }, spec: { ...claim.spec } };
  const annotations = { ...next.metadata.annotations };
  if (setVolumeName) {
    next.spec.volumeName = pvName;
    if (!hasAnnotation(claim, ANN_BOUND_BY_CONTROLLER)) annotations[ANN_BOUND_BY_CONTROLLER] = ANN_VALUE_YES;
  }
  if (markCompleted) annotations[ANN_BIND_COMPLETED] = ANN_VALUE_YES;
  next.metadata.annotations = annotations;
  const saved = await s.ctx.api.updateClaim(next);
  if (s.log.isLevelEnabled('debug')) s.log.debug({ claim: claimKeyOf(claim), pv: pvName, why: 'bind' }, 'claim volumeName set');
  return saved;
}

/** Capacity a claim reports when it becomes Bound to `pv` (pre-resize annotation wins). */
function boundCapacity(pv: PersistentVolume): Record<string, string> {
  const storage = pv.spec.capacity?.storage;
  if (storage === undefined) {
    throw new BindingError(`PersistentVolume "${pv.metadata.name ?? ''}" is without a storage capacity`);
  }
  const preResize = pv.metadata.annotations?.[ANN_PRE_RESIZE_CAPACITY];
  if (preResize !== undefined && isValidQuantity(preResize)) return { storage: preResize };
  return { ...pv.spec.capacity };
}

/** Upstream `updateClaimStatus`: phase, and accessModes/capacity copied from `pv` (cleared without one); PUT if changed. */
export async function updateClaimStatus(
  s: BinderDeps,
  claim: PersistentVolumeClaim,
  phase: ClaimPhase,
  pv: PersistentVolume | undefined,
): Promise<PersistentVolumeClaim> {
  const status = { ...claim.status };
  const phaseChanges = status.phase !== phase;
  let dirty = phaseChanges;
  status.phase = phase;
  if (!pv) {
    if (status.accessModes !== undefined || status.capacity !== undefined) dirty = true;
    delete status.accessModes;
    delete status.capacity;
  } else {
    if (!sameModes(status.accessModes, pv.spec.accessModes)) {
      status.accessModes = pv.spec.accessModes ? [...pv.spec.accessModes] : undefined;
      dirty = true;
    }
    // Capacity only when the claim becomes Bound: a later difference may be a deliberate resize.
    // The current attributes class too: after binding only the resizer changes it (a modification).
    if (phaseChanges && phase === 'Bound' && claim.status?.phase === 'Pending' &&
      status.currentVolumeAttributesClassName !== pv.spec.volumeAttributesClassName) {
      if (pv.spec.volumeAttributesClassName === undefined) delete status.currentVolumeAttributesClassName;
      else status.currentVolumeAttributesClassName = pv.spec.volumeAttributesClassName;
      dirty = true;
    }
    if (phaseChanges) {
      const capacity = boundCapacity(pv);
      const have = status.capacity?.storage;
      if (have === undefined || compareQuantityStrings(have, capacity.storage) !== 0) {
        status.capacity = capacity;
      }
    }
  }
  if (!dirty) return claim;
  const next: PersistentVolumeClaim = { ...claim, status };
  const saved = await s.ctx.api.updateClaimStatus(next);
  if (phaseChanges) logAt(s, phase === 'Bound', { claim: claimKeyOf(claim), from: claim.status?.phase ?? '', to: phase }, 'claim phase changed');
  return saved;
}

/** Sets a claim phase and emits the event, both only when the phase actually changes. */
export async function updateClaimStatusWithEvent(
  s: BinderDeps,
  claim: PersistentVolumeClaim,
  phase: ClaimPhase,
  event: { type: EventType; reason: EventReason; message: string },
): Promise<PersistentVolumeClaim> {
  if (claim.status?.phase === phase) return claim;
  const saved = await updateClaimStatus(s, claim, phase, undefined);
  s.ctx.events.event(saved, event.type, event.reason, event.message);
  return saved;
}

/** Upstream `bind`: PV spec, PV status, PVC spec, PVC status — each only if something changes. */
export async function bind(
  s: BinderDeps,
  pv: PersistentVolume,
  claim: PersistentVolumeClaim,
): Promise<{ pv: PersistentVolume; claim: PersistentVolumeClaim }> {
  let volume = await bindVolumeToClaim(s, pv, claim);
  volume = await updateVolumePhase(s, volume, 'Bound', `bound to ${claimKeyOf(claim)}`);
  let bound = await bindClaimToVolume(s, claim, volume);
  bound = await updateClaimStatus(s, bound, 'Bound', volume);
  return { pv: volume, claim: bound };
}

/**
 * Upstream `unbindVolume`: undo a binding from the volume's side. The whole claimRef goes only if the controller
 * wrote it (bound-by-controller); a user's reservation keeps the claim name, loses the uid.
 */
export async function unbindVolume(s: BinderDeps, pv: PersistentVolume, why: string): Promise<PersistentVolume> {
  const saved = await s.ctx.api.updateVolume(volumeWithoutBinding(pv));
  s.index.upsert(saved);
  s.log.info({ pv: pv.metadata.name, claim: pv.spec.claimRef?.name, why }, 'volume unbound');
  return updateVolumePhase(s, saved, 'Available', why);
}
