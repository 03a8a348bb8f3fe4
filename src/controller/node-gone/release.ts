/**
 * The two writes that release a Delete volume of a gone node, each resumable from the PV's marks:
 *
 * - the bound claim is replaced: deleted (uid precondition) once no pod uses it, then, once it
 *   is gone, created again from the template recorded on the PV (claim-template.ts). A claim of
 *   that name created meanwhile by someone else (a StatefulSet re-creating its claims) is left as
 *   it is;
 * - the PV object is removed: our deletion finalizer and pv-protection's are taken off, then it
 *   is deleted (uid precondition). No plugin is called: the backing data is on the gone node's
 *   disk, which no process here can reach, and it stays there.
 */
import { FINALIZER_PV_CONTROLLER, FINALIZER_PV_PROTECTION } from '@pv-controller/kube/annotations.js';
import { isAlreadyExists, isNotFound } from '@pv-controller/kube/errors.js';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { EventReason } from '../runtime/event-reasons.js';
import { podsUsingClaim } from '../protection/protection.js';
import { claimFromTemplate, type ClaimTemplate } from './claim-template.js';
import { msgClaimInUse, msgClaimRecreated, msgVolumeDeleted } from './events.js';
import type { NodeGoneDeps } from './deps.js';

/** What one step of replacing a claim left: wait for the next sync, or the new claim exists. */
export type ClaimStep = 'waiting' | 'replaced';

/** The claim the template was taken from, if it still exists (same uid). */
export async function originalClaim(s: NodeGoneDeps, t: ClaimTemplate): Promise<PersistentVolumeClaim | undefined> {
  const live = await s.ctx.api.getClaim(t.metadata.namespace, t.metadata.name);
  return live?.metadata.uid === t.uid ? live : undefined;
}

/** Pods still using `claim`: each sync that finds some says so on the claim and the PV. */
export async function claimInUse(s: NodeGoneDeps, pv: PersistentVolume, claim: PersistentVolumeClaim, node: string, goneMs: number): Promise<boolean> {
  const pods = await podsUsingClaim(s.ctx, claim);
  if (pods.length === 0) return false;
  const message = msgClaimInUse(node, goneMs, pods);
  s.ctx.events.event(claim, 'Warning', EventReason.NodeGoneClaimInUse, message);
  s.ctx.events.event(pv, 'Warning', EventReason.NodeGoneClaimInUse, message);
  return true;
}

/** One step toward the claim being replaced (see the file comment). */
export async function replaceClaim(s: NodeGoneDeps, pv: PersistentVolume, t: ClaimTemplate, node: string, goneMs: number): Promise<ClaimStep> {
  const key = `${t.metadata.namespace}/${t.metadata.name}`;
  let old = await originalClaim(s, t);
  if (old && !old.metadata.deletionTimestamp) {
    if (await claimInUse(s, pv, old, node, goneMs)) return 'waiting';
    try {
      await s.ctx.api.deleteClaim(t.metadata.namespace, t.metadata.name, t.uid);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    s.log.info({ pv: pv.metadata.name, claim: key, node }, 'claim deleted: its node is gone');
    old = await originalClaim(s, t);
  }
  // Still there: its finalizers (pvc-protection) have not been taken off yet. Its deletion enqueues this PV.
  if (old) return 'waiting';
  try {
    const created = await s.ctx.api.createClaim(claimFromTemplate(t));
    s.ctx.events.event(created, 'Normal', EventReason.NodeGoneClaimRecreated, msgClaimRecreated(node, goneMs, pv.metadata.name ?? ''));
    s.log.info({ pv: pv.metadata.name, claim: key, node, uid: created.metadata.uid }, 'claim re-created for a new node');
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
    s.log.info({ pv: pv.metadata.name, claim: key, node }, 'a claim of that name exists already; leaving it as it is');
  }
  return 'replaced';
}

function withoutDeletionFinalizers(pv: PersistentVolume): PersistentVolume | undefined {
  const finalizers = pv.metadata.finalizers ?? [];
  const kept = finalizers.filter((f) => f !== FINALIZER_PV_CONTROLLER && f !== FINALIZER_PV_PROTECTION);
  if (kept.length === finalizers.length) return undefined;
  const next = structuredClone(pv);
  if (kept.length > 0) next.metadata.finalizers = kept;
  else delete next.metadata.finalizers;
  return next;
}

/**
 * Finalizers first, then the DELETE: the PV is never left being deleted with our finalizer on it,
 * the one state in which the reclaimer would call the plugin to delete its backing volume.
 */
export async function removeVolume(s: NodeGoneDeps, pv: PersistentVolume, node: string, goneMs: number): Promise<void> {
  const name = pv.metadata.name ?? '';
  try {
    const unlocked = withoutDeletionFinalizers(pv);
    const current = unlocked ? await s.ctx.api.updateVolume(unlocked) : pv;
    if (!current.metadata.deletionTimestamp) await s.ctx.api.deleteVolume(name, pv.metadata.uid);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  s.ctx.events.event(pv, 'Warning', EventReason.NodeGoneVolumeDeleted, msgVolumeDeleted(node, goneMs));
  s.log.info({ pv: name, node, goneMs, why: 'its node is gone; the backing data stays on it' }, 'volume deleted');
}
