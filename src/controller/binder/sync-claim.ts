/**
 * syncClaim: one step of a claim toward Bound (upstream `syncClaim`, `syncUnboundClaim`,
 * `syncBoundClaim`). The branch is chosen
 * by the `bind-completed` annotation, never by the phase. Events follow the write they explain,
 * so a sync that loses a 409 race leaves no event behind.
 */
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER, ANN_SELECTED_NODE } from '@pv-controller/kube/annotations.js';
import { hasAnnotation, isVolumeBoundToClaim } from '@pv-controller/kube/volume-helpers.js';
import type { ControllerContext } from '../runtime/context.js';
import { DONE, type SyncResult } from '../runtime/sync-result.js';
import type { VolumeIndex } from './volume-index.js';
import { binderDeps, type BinderHooks, type BinderDeps } from './hooks.js';
import {
  BindingError,
  bind,
  claimKeyOf,
  updateClaimStatus,
  updateClaimStatusWithEvent,
} from './bind.js';
import { newestClaim, newestVolume, runSync } from './fresh.js';
import { newestOf, rvNumber } from '../../kube-client/cache/resource-version.js';
import { checkVolumeSatisfyClaim, matchingClassOfClaim } from './match.js';
import { assignDefaultClass, emitWaitingForConsumer, isDelayBindingMode, routeToProvisioner } from './claim-class.js';
import {
  MSG_LOST_REFERENCE,
  MSG_LOST_VOLUME,
  MSG_MISBOUND,
  MSG_NO_VOLUME_NO_CLASS,
  msgAlreadyBoundElsewhere,
  msgVolumeMismatch,
} from './events.js';
import { EventReason } from '../runtime/event-reasons.js';

export async function syncClaim(
  ctx: ControllerContext,
  index: VolumeIndex,
  claim: PersistentVolumeClaim,
  hooks?: BinderHooks,
): Promise<SyncResult> {
  const s = binderDeps(ctx, index, hooks);
  return runSync(s, { claim: claimKeyOf(claim) }, () => decideClaim(s, newestClaim(s, claim), true));
}

function decideClaim(s: BinderDeps, claim: PersistentVolumeClaim, mayReread: boolean): Promise<SyncResult> {
  return hasAnnotation(claim, ANN_BIND_COMPLETED)
    ? syncBoundClaim(s, claim)
    : syncUnboundClaim(s, claim, mayReread);
}

/** A volume by name, re-read from the API server when the controller's copies lack it. */
async function volumeNamed(s: BinderDeps, name: string): Promise<PersistentVolume | undefined> {
  return newestVolume(s, name) ?? (await s.ctx.api.getVolume(name));
}

async function syncUnboundClaim(s: BinderDeps, claim: PersistentVolumeClaim, mayReread: boolean): Promise<SyncResult> {
  // A provisioning operation owns the claim until it ends (and re-enqueues it then).
  if (s.hooks.claimBusy?.(claimKeyOf(claim))) return DONE;
  if (claim.spec.volumeName) return syncClaimNamingVolume(s, claim, claim.spec.volumeName);
  const delayBinding = isDelayBindingMode(s, claim);
  const found = s.index.findBestMatch(claim, delayBinding);
  if (found) {
    const pvName = found.metadata.name ?? '';
    const key = claimKeyOf(claim);
    // Taken in the same synchronous stretch as the lookup: no other worker can pick it now.
    if (!s.index.reserve(pvName, key)) return { kind: 'retry', reason: `volume ${pvName} is being bound to another claim` };
    try {
      return await bindFound(s, claim, found, mayReread);
    } finally {
      s.index.release(pvName, key);
    }
  }
  if (await assignDefaultClass(s, claim)) return DONE;
  if (delayBinding && !claim.metadata.annotations?.[ANN_SELECTED_NODE]) {
    await updateClaimStatus(s, claim, 'Pending', undefined);
    emitWaitingForConsumer(s, claim);
    return DONE;
  }
  if (matchingClassOfClaim(claim) !== '') return routeToProvisioner(s, claim);
  await updateClaimStatus(s, claim, 'Pending', undefined);
  s.ctx.events.event(claim, 'Normal', EventReason.FailedBinding, MSG_NO_VOLUME_NO_CLASS);
  return DONE;
}

async function bindFound(s: BinderDeps, claim: PersistentVolumeClaim, found: PersistentVolume, mayReread: boolean): Promise<SyncResult> {
  // Taking a volume that is not yet ours: make sure this claim copy is the server's newest,
  // so a lagging cache can never bind a claim that is already bound elsewhere.
  if (mayReread && found.spec.claimRef?.uid !== claim.metadata.uid && !writtenAfterFence(s, claim)) {
    const live = await s.ctx.api.getClaim(claim.metadata.namespace ?? '', claim.metadata.name ?? '');
    if (!live || live.metadata.uid !== claim.metadata.uid) return DONE;
    if (newestOf(claim, live) !== claim) return decideClaim(s, live, false);
  }
  await bind(s, newestOf(found, newestVolume(s, found.metadata.name ?? '')) ?? found, claim);
  return DONE;
}

/**
 * Whether this claim copy was written after the fence (controller start / start of leading):
 * then no other binder can have written it since, and every write of ours is already in the
 * store, so the copy `newestClaim` picked is the server's newest as far as binding goes.
 */
function writtenAfterFence(s: BinderDeps, claim: PersistentVolumeClaim): boolean {
  const fence = s.ctx.claimsFenceResourceVersion?.();
  return fence !== undefined && fence >= 0 && rvNumber(claim.metadata.resourceVersion) > fence;
}

/** The user named a volume in `spec.volumeName` (upstream `syncUnboundClaim`'s second half). */
async function syncClaimNamingVolume(s: BinderDeps, claim: PersistentVolumeClaim, pvName: string): Promise<SyncResult> {
  const pv = await volumeNamed(s, pvName);
  if (!pv) {
    await updateClaimStatus(s, claim, 'Pending', undefined);
    return DONE;
  }
  if (!pv.spec.claimRef) {
    const mismatch = checkVolumeSatisfyClaim(pv, claim);
    if (mismatch) {
      await updateClaimStatus(s, claim, 'Pending', undefined);
      s.ctx.events.event(claim, 'Warning', EventReason.VolumeMismatch, msgVolumeMismatch(pvName, mismatch));
      return DONE;
    }
    await bind(s, pv, claim);
    return DONE;
  }
  if (isVolumeBoundToClaim(pv, claim)) {
    await bind(s, pv, claim);
    return DONE;
  }
  if (!hasAnnotation(claim, ANN_BOUND_BY_CONTROLLER)) {
    await updateClaimStatus(s, claim, 'Pending', undefined);
    s.ctx.events.event(claim, 'Warning', EventReason.FailedBinding, msgAlreadyBoundElsewhere(pvName));
    return DONE;
  }
  s.ctx.events.event(claim, 'Warning', EventReason.FailedBinding, msgAlreadyBoundElsewhere(pvName));
  const owner = `${pv.spec.claimRef.namespace ?? ''}/${pv.spec.claimRef.name ?? ''}`;
  throw new BindingError(
    `invalid binding of claim "${claimKeyOf(claim)}" to volume "${pvName}": volume already claimed by "${owner}"`,
  );
}

/** The claim went through binding once (upstream `syncBoundClaim`): keep it Bound, or mark it Lost. */
async function syncBoundClaim(s: BinderDeps, claim: PersistentVolumeClaim): Promise<SyncResult> {
  const pvName = claim.spec.volumeName;
  if (!pvName) {
    await updateClaimStatusWithEvent(s, claim, 'Lost', { type: 'Warning', reason: EventReason.ClaimLost, message: MSG_LOST_REFERENCE });
    return DONE;
  }
  const pv = await volumeNamed(s, pvName);
  if (!pv) {
    await updateClaimStatusWithEvent(s, claim, 'Lost', { type: 'Warning', reason: EventReason.ClaimLost, message: MSG_LOST_VOLUME });
    return DONE;
  }
  if (!pv.spec.claimRef || pv.spec.claimRef.uid === claim.metadata.uid) {
    await bind(s, pv, claim);
    return DONE;
  }
  await updateClaimStatusWithEvent(s, claim, 'Lost', { type: 'Warning', reason: EventReason.ClaimMisbound, message: MSG_MISBOUND });
  return DONE;
}
