/**
 * Deciding on the newest data: the newest copy of a volume or claim the binder knows (its store
 * or its index; kube-client/cache/resource-version.ts decides which copy is newer), and what a sync threw
 * turned into a queue outcome (409 ⇒ silent retry on fresh data).
 */
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { isConflict, isNotFound } from '@pv-controller/kube/errors.js';
import { newestOf } from '../../kube-client/cache/resource-version.js';
import type { SyncResult } from '../runtime/sync-result.js';
import { BindingError, claimKeyOf } from './bind.js';
import type { BinderDeps } from './hooks.js';

/** The newest copy of a PV the controller knows of: its store or the binder's index. */
export function newestVolume(s: BinderDeps, name: string): PersistentVolume | undefined {
  return newestOf(s.ctx.volumes.get(name), s.index.get(name));
}

export function newestClaim(s: BinderDeps, claim: PersistentVolumeClaim): PersistentVolumeClaim {
  return newestOf(claim, s.ctx.claims.get(claimKeyOf(claim))) ?? claim;
}

/**
 * Runs one sync. A 409 (somebody wrote first: our copy was stale) and a 404 (the object went
 * away) are expected and retried quietly; anything else is logged as a warning and retried
 * with the queue's backoff.
 */
export async function runSync(
  s: BinderDeps,
  subject: Record<string, string | undefined>,
  decide: () => Promise<SyncResult>,
): Promise<SyncResult> {
  try {
    return await decide();
  } catch (err) {
    if (isConflict(err) || isNotFound(err)) {
      s.log.debug({ ...subject, err: (err as Error).message }, 'stale copy, deciding again on fresh data');
      return { kind: 'retry', reason: isConflict(err) ? 'conflict' : 'not found' };
    }
    const message = err instanceof Error ? err.message : String(err);
    s.log.warn({ ...subject, err: message, binding: err instanceof BindingError }, 'sync failed');
    return { kind: 'retry', reason: message };
  }
}
