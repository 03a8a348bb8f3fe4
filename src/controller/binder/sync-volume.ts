/**
 * syncVolume: one step of a volume toward agreement with its claim (upstream `syncVolume`).
 * Before a volume is released its claim is looked up live, so a cache that has not seen the
 * claim yet (or holds an older incarnation) never releases a volume that is in use.
 */
import type { ObjectReference, PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { ANN_BOUND_BY_CONTROLLER, ANN_PROVISIONED_BY } from '@pv-controller/kube/annotations.js';
import { hasAnnotation } from '@pv-controller/kube/volume-helpers.js';
import type { ControllerContext } from '../runtime/context.js';
import { DONE, type SyncResult } from '../runtime/sync-result.js';
import type { VolumeIndex } from './volume-index.js';
import { binderDeps, type BinderHooks, type BinderDeps } from './hooks.js';
import { claimKeyOf, unbindVolume, updateVolumePhase } from './bind.js';
import { newestVolume, runSync } from './fresh.js';
import { newestOf } from '../../kube-client/cache/resource-version.js';
import { volumeModeMismatch } from './match.js';
import {
  msgVolumeModeMismatchOnClaim,
  msgVolumeModeMismatchOnVolume,
} from './events.js';
import { EventReason } from '../runtime/event-reasons.js';

export async function syncVolume(
  ctx: ControllerContext,
  index: VolumeIndex,
  pv: PersistentVolume,
  hooks?: BinderHooks,
): Promise<SyncResult> {
  const s = binderDeps(ctx, index, hooks);
  const name = pv.metadata.name ?? '';
  return runSync(s, { pv: name }, () => decideVolume(s, newestOf(pv, newestVolume(s, name)) ?? pv));
}

function isReleasedOrFailed(pv: PersistentVolume): boolean {
  return pv.status?.phase === 'Released' || pv.status?.phase === 'Failed';
}

async function decideVolume(s: BinderDeps, pv: PersistentVolume): Promise<SyncResult> {
  const ref = pv.spec.claimRef;
  if (!ref) {
    await updateVolumePhase(s, pv, 'Available', 'no claimRef');
    return DONE;
  }
  if (!ref.uid) {
    await updateVolumePhase(s, pv, 'Available', `reserved for claim ${ref.namespace ?? ''}/${ref.name ?? ''}`);
    return DONE;
  }
  const found = await claimOfVolume(s, pv, ref);
  return decideWithClaim(s, pv, ref, found);
}

interface FoundClaim {
  claim: PersistentVolumeClaim | undefined;
  /** True when `claim` is the server's word: a live GET, or (claim undefined) a watched deletion of that uid. */
  live: boolean;
}

async function decideWithClaim(s: BinderDeps, pv: PersistentVolume, ref: ObjectReference, found: FoundClaim): Promise<SyncResult> {
  const { claim } = found;
  if (!claim) return releaseVolume(s, pv, 'claim no longer exists', found.live);
  const pvName = pv.metadata.name ?? '';
  if (!claim.spec.volumeName) {
    if (volumeModeMismatch(pv, claim)) {
      s.ctx.events.event(pv, 'Warning', EventReason.VolumeMismatch, msgVolumeModeMismatchOnVolume(claim.metadata.name ?? ''));
      s.ctx.events.event(claim, 'Warning', EventReason.VolumeMismatch, msgVolumeModeMismatchOnClaim(pvName));
      return DONE;
    }
    // The claim side is not written yet (a bind in progress, or a volume provisioned for it):
    // the claim's own sync finishes the binding; ask for it now rather than at the next resync.
    s.ctx.enqueueClaim(claimKeyOf(claim));
    return DONE;
  }
  if (claim.spec.volumeName === pvName) {
    if (pv.status?.phase !== 'Bound' && claim.status?.phase !== 'Bound') {
      // A binding in progress whose claim side was written first (a provisioned volume): the
      // claim's sync writes this phase as its next step; writing it from here too races it to a 409.
      s.ctx.enqueueClaim(claimKeyOf(claim));
      return DONE;
    }
    await updateVolumePhase(s, pv, 'Bound', `claim ${claimKeyOf(claim)} is bound to it`);
    return DONE;
  }
  // Bound elsewhere. The outcome may be the deletion of a provisioned volume: confirm it live.
  if (!found.live) return decideWithClaim(s, pv, ref, { claim: await liveClaimOf(s, ref), live: true });
  const why = `claim ${claimKeyOf(claim)} is bound to volume ${claim.spec.volumeName}`;
  if (hasAnnotation(pv, ANN_PROVISIONED_BY) && pv.spec.persistentVolumeReclaimPolicy === 'Delete') {
    return releaseVolume(s, pv, why);
  }
  const bindingOwner = hasAnnotation(pv, ANN_BOUND_BY_CONTROLLER) ? 'controller' : 'user';
  await unbindVolume(s, pv, `${why}; bound by ${bindingOwner}`);
  return DONE;
}

/** The claim a claimRef names, read live; undefined when gone or replaced (different uid). */
async function liveClaimOf(s: BinderDeps, ref: ObjectReference): Promise<PersistentVolumeClaim | undefined> {
  const live = await s.ctx.api.getClaim(ref.namespace ?? '', ref.name ?? '');
  return live && live.metadata.uid === ref.uid ? live : undefined;
}

/**
 * The claim the volume's claimRef names, if that very claim (same uid) still exists.
 * The cache is trusted for a hit with the right uid; a miss or a different uid is confirmed
 * by a live GET (a miss only while the volume is not already Released/Failed).
 */
async function claimOfVolume(s: BinderDeps, pv: PersistentVolume, ref: ObjectReference): Promise<FoundClaim> {
  const key = `${ref.namespace ?? ''}/${ref.name ?? ''}`;
  const cached = s.ctx.claims.get(key);
  if (cached && cached.metadata.uid === ref.uid) return { claim: cached, live: false };
  // The watch saw this very claim (uid) deleted: the server's word, as good as a live read.
  if (!cached && ref.uid && s.ctx.claims.wasDeleted?.(key, ref.uid)) return { claim: undefined, live: true };
  if (!cached && isReleasedOrFailed(pv)) return { claim: undefined, live: false };
  return { claim: await liveClaimOf(s, ref), live: true };
}

/** Phase Released (never over Failed), then the reclaim policy via the hook (upstream `reclaimVolume`). */
async function releaseVolume(s: BinderDeps, pv: PersistentVolume, why: string, claimConfirmedGone = false): Promise<SyncResult> {
  const released = isReleasedOrFailed(pv) ? pv : await updateVolumePhase(s, pv, 'Released', why);
  return s.hooks.reclaimVolume ? s.hooks.reclaimVolume(released, { claimConfirmedGone }) : DONE;
}
