/**
 * Deciding on the newest data: pick the newest of several copies of an object, and turn what a
 * sync threw into a queue outcome (409 ⇒ silent retry on fresh data).
 */
import type { KubeObject, PersistentVolume, PersistentVolumeClaim } from '../../kube/types.js';
import { isConflict, isNotFound } from '../../kube/errors.js';
import type { SyncResult } from '../runtime/sync-result.js';
import { BindingError, claimKeyOf } from './bind.js';
import type { BinderSession } from './hooks.js';

function rvOf(obj: KubeObject): bigint | undefined {
  const rv = obj.metadata.resourceVersion;
  return rv && /^\d+$/.test(rv) ? BigInt(rv) : undefined;
}

/** The copy with the highest integer resourceVersion; earlier arguments win ties and unknowns. */
export function newestOf<T extends KubeObject>(...copies: (T | undefined)[]): T | undefined {
  let best: T | undefined;
  for (const copy of copies) {
    if (!copy) continue;
    if (!best) {
      best = copy;
      continue;
    }
    const a = rvOf(best);
    const b = rvOf(copy);
    if (a !== undefined && b !== undefined && b > a) best = copy;
  }
  return best;
}

/** The newest copy of a PV the controller knows of: its store or the binder's index. */
export function newestVolume(s: BinderSession, name: string): PersistentVolume | undefined {
  return newestOf(s.ctx.volumes.get(name), s.index.get(name));
}

export function newestClaim(s: BinderSession, claim: PersistentVolumeClaim): PersistentVolumeClaim {
  return newestOf(claim, s.ctx.claims.get(claimKeyOf(claim))) ?? claim;
}

/**
 * Runs one sync. A 409 (somebody wrote first: our copy was stale) and a 404 (the object went
 * away) are expected and retried quietly; anything else is logged as a warning and retried
 * with the queue's backoff.
 */
export async function runSync(
  s: BinderSession,
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
