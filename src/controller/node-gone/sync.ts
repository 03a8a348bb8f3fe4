/**
 * One node-gone step for one node-local PV (local-volume.ts says which PVs). Its state is the
 * controller's own record (record.ts), never the PV's annotations:
 *
 * 1. Its Node is in the cache: nothing to do, and a record of an earlier absence is removed.
 * 2. Absent, seen deleted by this process after the PV was made, no record yet: the clock starts
 *    (a record whose acquireTime is now, so a restart neither forgets nor restarts it) and the PV
 *    and its claim are told when and what will happen.
 * 3. The delay not yet over: wait for the rest of it.
 * 4. Over: a live GET must confirm the node is still absent (a node that came back stops
 *    everything). Then a Delete PV is released — the claim bound to it both ways (claimRef uid =
 *    the live claim's uid, and the claim's volumeName = the PV) is copied into the record and
 *    replaced once no pod uses it, then the PV object is removed (release.ts); any other policy
 *    keeps the PV and its claim, said once.
 *
 * Replacing a claim is the one step that is never undone: once the old claim is being deleted,
 * the new one is created even if the node comes back, or the user's claim would be lost; the PV is
 * then left to its own reclaimer, which can reach the node again.
 */
import { isConflict, isNotFound } from '@pv-controller/kube/errors.js';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { newerCopyOf } from '../../kube-client/cache/resource-version.js';
import { EventReason } from '../runtime/event-reasons.js';
import { DONE, type SyncResult } from '../runtime/sync-result.js';
import { claimTemplateOf, isBoundBothWays } from './claim-template.js';
import { msgNodeDeleted, msgNodeReturned, msgVolumeKept } from './events.js';
import { isReleasingForGoneNode, localNodeOf, withReplacingMark } from './local-volume.js';
import { recordMatches, type NodeGoneRecord } from './record.js';
import { claimInUse, originalClaim, removeVolume, replaceClaim } from './release.js';
import type { NodeGoneDeps } from './deps.js';

const after = (ms: number): SyncResult => ({ kind: 'requeueAfter', ms: Math.max(1, Math.ceil(ms)) });

export async function syncNodeGone(s: NodeGoneDeps, given: PersistentVolume): Promise<SyncResult> {
  const pv = newerCopyOf(given, s.ctx.volumes.get(given.metadata.name ?? ''));
  const node = localNodeOf(pv);
  if (node === undefined) return DONE;
  try {
    return await decide(s, pv, node);
  } catch (err) {
    if (isConflict(err) || isNotFound(err)) return { kind: 'retry', reason: isConflict(err) ? 'conflict' : 'not found' };
    const message = err instanceof Error ? err.message : String(err);
    s.log.warn({ pv: pv.metadata.name, node, err: message }, 'node-gone sync failed');
    return { kind: 'retry', reason: message };
  }
}

async function decide(s: NodeGoneDeps, pv: PersistentVolume, node: string): Promise<SyncResult> {
  const held = await s.records.get(pv.metadata.name ?? '');
  const rec = held && recordMatches(held, pv, node) ? held : undefined;
  if (held && !rec) await s.records.remove(held); // another PV's of that name, or another node's: stale
  if (s.nodes.get(node)) return rec ? nodeReturned(s, pv, node, rec) : DONE;
  if (!rec) return existedBeforeDeletion(s, pv, node) ? startClock(s, pv, node) : DONE;
  const goneMs = s.ctx.now().getTime() - rec.since.getTime();
  if (goneMs < s.delayMs) return after(s.delayMs - goneMs);
  if (await s.ctx.api.getNode(node)) return nodeReturned(s, pv, node, rec);
  if (pv.spec.persistentVolumeReclaimPolicy !== 'Delete') return keep(s, pv, node, goneMs, rec);
  return release(s, pv, node, goneMs, rec);
}

/**
 * Only the volumes the node had when it was deleted are its to release: one made for the node
 * after that (a controller with --node-name provisions for its own node whatever the API says)
 * is left alone, or every claim re-created for a new node would be released again and again.
 */
function existedBeforeDeletion(s: NodeGoneDeps, pv: PersistentVolume, node: string): boolean {
  const deleted = s.deletedAt(node);
  const created = Date.parse(pv.metadata.creationTimestamp ?? '');
  return deleted !== undefined && Number.isFinite(created) && created <= deleted.getTime();
}

/** The claim bound to the PV both ways, from the cache (events only). */
function cachedClaimOf(s: NodeGoneDeps, pv: PersistentVolume): PersistentVolumeClaim | undefined {
  const ref = pv.spec.claimRef;
  if (!ref?.uid) return undefined;
  const claim = s.ctx.claims.get(`${ref.namespace ?? ''}/${ref.name ?? ''}`);
  return claim && isBoundBothWays(pv, claim) ? claim : undefined;
}

async function startClock(s: NodeGoneDeps, pv: PersistentVolume, node: string): Promise<SyncResult> {
  await s.records.save({ pv: pv.metadata.name ?? '', pvUid: pv.metadata.uid ?? '', node, since: s.ctx.now() });
  const message = msgNodeDeleted(node, s.delayMs, pv.spec.persistentVolumeReclaimPolicy);
  s.ctx.events.event(pv, 'Warning', EventReason.ReferencedNodeDeleted, message);
  const claim = cachedClaimOf(s, pv);
  if (claim) s.ctx.events.event(claim, 'Warning', EventReason.ReferencedNodeDeleted, message);
  s.log.info({ pv: pv.metadata.name, node, delayMs: s.delayMs }, 'node gone: delay started');
  return after(s.delayMs);
}

async function nodeReturned(s: NodeGoneDeps, pv: PersistentVolume, node: string, rec: NodeGoneRecord): Promise<SyncResult> {
  if (rec.claim) {
    const old = await originalClaim(s, rec.claim);
    const started = !old || old.metadata.deletionTimestamp !== undefined;
    const goneMs = s.ctx.now().getTime() - rec.since.getTime();
    if (started && (await replaceClaim(s, pv, rec.claim, node, goneMs)) === 'waiting') return after(s.recheckMs);
    if (isReleasingForGoneNode(pv)) await s.ctx.api.updateVolume(withReplacingMark(pv, undefined));
  }
  await s.records.remove(rec);
  s.ctx.events.event(pv, 'Normal', EventReason.NodeGoneNodeReturned, msgNodeReturned(node));
  s.log.info({ pv: pv.metadata.name, node }, 'node back: record removed');
  return DONE;
}

async function keep(s: NodeGoneDeps, pv: PersistentVolume, node: string, goneMs: number, rec: NodeGoneRecord): Promise<SyncResult> {
  if (rec.kept) return DONE;
  await s.records.save({ ...rec, kept: s.ctx.now() });
  const policy = pv.spec.persistentVolumeReclaimPolicy;
  const message = msgVolumeKept(node, goneMs, policy);
  s.ctx.events.event(pv, 'Warning', EventReason.NodeGoneVolumeKept, message);
  const claim = cachedClaimOf(s, pv);
  if (claim) s.ctx.events.event(claim, 'Warning', EventReason.NodeGoneVolumeKept, message);
  s.log.info({ pv: pv.metadata.name, node, policy }, 'node gone: volume kept');
  return DONE;
}

async function release(s: NodeGoneDeps, pv: PersistentVolume, node: string, goneMs: number, rec: NodeGoneRecord): Promise<SyncResult> {
  let current = pv;
  let template = rec.claim;
  if (!template && pv.spec.claimRef?.uid) {
    const ref = pv.spec.claimRef;
    const claim = await s.ctx.api.getClaim(ref.namespace ?? '', ref.name ?? '');
    if (claim && isBoundBothWays(pv, claim)) {
      // Someone else is deleting it: nothing to re-create; the binder releases the PV once it is gone.
      if (claim.metadata.deletionTimestamp) return after(s.recheckMs);
      if (await claimInUse(s, pv, claim, node, goneMs)) return after(s.recheckMs);
      template = claimTemplateOf(claim);
      await s.records.save({ ...rec, claim: template });
      current = await s.ctx.api.updateVolume(withReplacingMark(pv, `${template.metadata.namespace}/${template.metadata.name}`));
    }
  }
  if (template && (await replaceClaim(s, current, template, node, goneMs)) === 'waiting') return after(s.recheckMs);
  await removeVolume(s, current, node, goneMs);
  await s.records.remove((await s.records.get(rec.pv)) ?? rec);
  return DONE;
}
