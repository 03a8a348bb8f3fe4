/**
 * The storage-object-in-use protection controllers (upstream `pvcprotection` and `pvprotection`,
 * in kube-controller-manager). Admission puts `kubernetes.io/pvc-protection` on every claim and
 * `kubernetes.io/pv-protection` on every PV; these syncs take it off an object being deleted once
 * nothing uses it any more, and (as upstream) put it back on a live object that lacks it.
 *
 * - pvc-protection: a claim with a deletionTimestamp loses the finalizer when no scheduled,
 *   not terminated pod uses it. The pod cache is asked first; "unused" is confirmed with a live
 *   pod list, so a cache that has not seen a new pod never lets a claim in use go.
 * - pv-protection: a PV with a deletionTimestamp loses the finalizer unless its phase is Bound.
 * Every write is a PUT guarded by the resourceVersion read, so running beside
 * kube-controller-manager's own protection controllers is harmless (409 ⇒ decide again).
 */
import { pino, type Logger } from 'pino';
import type { KubeObject, PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { FINALIZER_PV_CONTROLLER, FINALIZER_PV_PROTECTION, FINALIZER_PVC_PROTECTION } from '@pv-controller/kube/annotations.js';
import { isConflict, isNotFound } from '@pv-controller/kube/errors.js';
import { type ControllerContext } from '../runtime/context.js';
import { keyOf } from '@pv-controller/kube/object-key.js';
import { DONE, type SyncResult } from '../runtime/sync-result.js';
import { newerCopyOf } from '../../kube-client/cache/resource-version.js';
import { podUsesClaim } from './pods.js';

export const PVC_PROTECTION_CONTROLLER = 'pvc-protection';
export const PV_PROTECTION_CONTROLLER = 'pv-protection';

export interface ProtectionDeps {
  ctx: ControllerContext;
  logger?: Logger;
}

let defaultLogger: Logger | undefined;

function loggerOf(deps: ProtectionDeps): Logger {
  if (deps.logger) return deps.logger;
  defaultLogger ??= pino({ name: 'protection', level: process.env.LOG_LEVEL ?? 'info' });
  return defaultLogger;
}

function hasFinalizer(obj: KubeObject, finalizer: string): boolean {
  return (obj.metadata.finalizers ?? []).includes(finalizer);
}

function withFinalizers<T extends KubeObject>(obj: T, finalizers: string[]): T {
  const next = structuredClone(obj);
  if (finalizers.length === 0) delete next.metadata.finalizers;
  else next.metadata.finalizers = finalizers;
  return next;
}

/** The object with `finalizer` added (live object) or removed (being deleted); undefined: as is. */
function finalizerChange<T extends KubeObject>(obj: T, finalizer: string, mayRemove: () => Promise<boolean>): Promise<T | undefined> {
  const has = hasFinalizer(obj, finalizer);
  const current = obj.metadata.finalizers ?? [];
  if (!obj.metadata.deletionTimestamp) {
    return Promise.resolve(has ? undefined : withFinalizers(obj, [...current, finalizer]));
  }
  if (!has) return Promise.resolve(undefined);
  return mayRemove().then((remove) => (remove ? withFinalizers(obj, current.filter((f) => f !== finalizer)) : undefined));
}

async function guarded(log: Logger, subject: Record<string, string>, body: () => Promise<SyncResult>): Promise<SyncResult> {
  try {
    return await body();
  } catch (err) {
    if (isConflict(err) || isNotFound(err)) return { kind: 'retry', reason: isConflict(err) ? 'conflict' : 'not found' };
    const message = err instanceof Error ? err.message : String(err);
    log.warn({ ...subject, err: message }, 'protection sync failed');
    return { kind: 'retry', reason: message };
  }
}

/** Pods (`name`) that use the claim: the cache first, then, if it says none, a live list. */
export async function podsUsingClaim(ctx: ControllerContext, claim: PersistentVolumeClaim): Promise<string[]> {
  const users = (list: { metadata: { name?: string } }[]): string[] => list.map((p) => p.metadata.name ?? '').sort();
  if (ctx.pods?.hasSynced()) {
    const cached = ctx.pods.list().filter((p) => podUsesClaim(p, claim));
    if (cached.length > 0) return users(cached);
  }
  const live = await ctx.api.listPods(claim.metadata.namespace ?? '');
  return users(live.filter((p) => podUsesClaim(p, claim)));
}

/** pvc-protection: one claim (any copy; the newest one known is used). */
export function syncClaimProtection(deps: ProtectionDeps, given: PersistentVolumeClaim): Promise<SyncResult> {
  const log = loggerOf(deps);
  const claim = newerCopyOf(given, deps.ctx.claims.get(keyOf(given)));
  const key = keyOf(claim);
  return guarded(log, { claim: key }, async () => {
    let users: string[] = [];
    const next = await finalizerChange(claim, FINALIZER_PVC_PROTECTION, async () => {
      users = await podsUsingClaim(deps.ctx, claim);
      return users.length === 0;
    });
    if (users.length > 0) log.debug({ claim: key, pods: users }, 'claim being deleted is still used by pods');
    if (!next) return DONE;
    await deps.ctx.api.updateClaim(next);
    const removed = !hasFinalizer(next, FINALIZER_PVC_PROTECTION);
    // Removal is the routine end of every claim deletion (upstream logs it at V(3)): debug.
    log[removed ? 'debug' : 'info']({ claim: key, finalizer: FINALIZER_PVC_PROTECTION, why: removed ? 'no pod uses the claim' : 'missing' }, removed ? 'finalizer removed' : 'finalizer added');
    return DONE;
  });
}

/**
 * pv-protection: one PV (any copy; the newest one known is used). A PV being deleted that still
 * carries the reclaimer's deletion finalizer is left alone: the reclaimer takes both finalizers
 * off in one write once the backing volume is gone (reclaimer/delete.ts), and a write from here
 * would only race it to a 409.
 */
export function syncVolumeProtection(deps: ProtectionDeps, given: PersistentVolume): Promise<SyncResult> {
  const log = loggerOf(deps);
  const pv = newerCopyOf(given, deps.ctx.volumes.get(keyOf(given)));
  const name = pv.metadata.name ?? '';
  return guarded(log, { pv: name }, async () => {
    if (pv.metadata.deletionTimestamp && hasFinalizer(pv, FINALIZER_PV_CONTROLLER)) return DONE;
    const next = await finalizerChange(pv, FINALIZER_PV_PROTECTION, () => Promise.resolve(pv.status?.phase !== 'Bound'));
    if (!next) return DONE;
    await deps.ctx.api.updateVolume(next);
    const removed = !hasFinalizer(next, FINALIZER_PV_PROTECTION);
    log.info({ pv: name, finalizer: FINALIZER_PV_PROTECTION, why: removed ? `phase ${pv.status?.phase ?? ''}` : 'missing' }, removed ? 'finalizer removed' : 'finalizer added');
    return DONE;
  });
}
