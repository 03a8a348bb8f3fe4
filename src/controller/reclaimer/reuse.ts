/**
 * Making a Retained volume Available again (docs/lifecycle.md; upstream discussion
 * kubernetes#93594): `pv-controller.io/reuse: "true"` on a Released PV clears its claimRef (a
 * pre-bound one keeps the claim's name, as Recycle does) so another claim can bind it;
 * `"wipe"` first scrubs its data through the Recycle path (same plugin checks, pods still using
 * the old claim wait, counted attempts). Only a PV whose policy is Retain is reused, only while
 * it is Released, and only once a live read shows its claim gone: the annotation is a request,
 * never proof. On a Bound PV the request is refused and removed (so it cannot fire on a later
 * release nobody asked about).
 */
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { ANN_RELEASED_DEADLINE, ANN_REUSE, REUSE_KEEP_DATA, REUSE_WIPE } from '@pv-controller/kube/annotations.js';
import { hasAnnotation } from '@pv-controller/kube/volume-helpers.js';
import type { ReclaimFacts } from '../binder/hooks.js';
import { EventReason } from '../runtime/event-reasons.js';
import { DONE, type SyncResult } from '../runtime/sync-result.js';
import { updateFresh, type ReclaimerDeps } from './deps.js';
import { makeAvailable } from './recycle.js';
import { isStillReleased } from './released.js';
import { deadlineOf, withoutReleaseMarks } from './released-ttl.js';

/** What the reclaimer does next: `wipe` ⇒ recycle, then Available; `reclaim` ⇒ carry on as if no request were there. */
export type ReuseOutcome = { kind: 'wipe' } | { kind: 'reclaim' } | { kind: 'result'; result: SyncResult };

function claimName(pv: PersistentVolume): string {
  return `${pv.spec.claimRef?.namespace ?? ''}/${pv.spec.claimRef?.name ?? ''}`;
}

/** A Released or Failed PV that carries a reuse request. */
export async function reuseReleased(s: ReclaimerDeps, pv: PersistentVolume, facts: ReclaimFacts): Promise<ReuseOutcome> {
  const request = pv.metadata.annotations?.[ANN_REUSE] ?? '';
  const policy = pv.spec.persistentVolumeReclaimPolicy;
  if (policy !== 'Retain') {
    s.ctx.events.event(pv, 'Warning', EventReason.VolumeReuseRefused, `${ANN_REUSE} applies to volumes whose reclaim policy is Retain; policy ${policy ?? ''} reclaims this one`);
    return { kind: 'reclaim' };
  }
  if (request !== REUSE_KEEP_DATA && request !== REUSE_WIPE) {
    const shown = request.length > 64 ? `${request.slice(0, 64)}…` : request;
    s.ctx.events.event(pv, 'Warning', EventReason.VolumeReuseRefused, `${ANN_REUSE} "${shown}" is neither "${REUSE_KEEP_DATA}" nor "${REUSE_WIPE}": nothing done`);
    return { kind: 'result', result: DONE };
  }
  // A Failed volume waits for an operator (docs/operations.md): its attempts annotation first.
  if (pv.status?.phase !== 'Released') return { kind: 'result', result: DONE };
  const confirmed = facts.claimConfirmedGone === true;
  if (!confirmed && !(await isStillReleased(s, pv))) {
    s.ctx.events.event(pv, 'Warning', EventReason.VolumeReuseRefused, `claim ${claimName(pv)} still exists and is bound to this volume: not reused`);
    return { kind: 'result', result: DONE };
  }
  if (request === REUSE_WIPE) return { kind: 'wipe' };
  if (await makeAvailable(s, pv, `${ANN_REUSE}: ${REUSE_KEEP_DATA}`)) {
    s.ctx.events.event(pv, 'Normal', EventReason.VolumeReused, `released from claim ${claimName(pv)} on request (${ANN_REUSE}: ${REUSE_KEEP_DATA}); its data is kept and it is Available again`);
  }
  return { kind: 'result', result: DONE };
}

/**
 * A PV neither Released nor Failed keeps no release deadline and no reuse request: bound again
 * (or Available) before its deadline, it is kept; a reuse request on a Bound PV is refused.
 * Returns the saved PV, or undefined when nothing was to be removed.
 */
export async function clearStaleMarks(s: ReclaimerDeps, pv: PersistentVolume): Promise<PersistentVolume | undefined> {
  if (!hasAnnotation(pv, ANN_RELEASED_DEADLINE) && !hasAnnotation(pv, ANN_REUSE)) return undefined;
  const stale = (fresh: PersistentVolume): boolean => fresh.status?.phase !== 'Released' && fresh.status?.phase !== 'Failed';
  const saved = await updateFresh(s, pv, 'spec', (fresh) => {
    if (!stale(fresh) || (!hasAnnotation(fresh, ANN_RELEASED_DEADLINE) && !hasAnnotation(fresh, ANN_REUSE))) return undefined;
    return withoutReleaseMarks(fresh);
  });
  if (!saved) return undefined;
  const phase = pv.status?.phase ?? '';
  const deadline = deadlineOf(pv);
  if (deadline) {
    s.ctx.events.event(saved, 'Normal', EventReason.ReleasedDeadlineCleared, `volume is ${phase || 'no longer Released'} before its deadline ${deadline.toISOString()}: it is kept`);
  }
  if (hasAnnotation(pv, ANN_REUSE) && phase === 'Bound') {
    s.ctx.events.event(saved, 'Warning', EventReason.VolumeReuseRefused, `volume is Bound to claim ${claimName(pv)}: not reused; ${ANN_REUSE} removed`);
  }
  s.log.info({ pv: pv.metadata.name, phase, why: 'not Released' }, 'release deadline and reuse request removed');
  return saved;
}
