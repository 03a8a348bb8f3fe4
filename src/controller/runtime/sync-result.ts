/**
 * What one sync of a key tells its work queue, and how the answers of several modules' syncs of
 * the same key combine into the one the queue acts on.
 */

export type SyncResult =
  | { kind: 'done' }
  /** Run this key again after the given delay (e.g. a reclaim retry not yet due). */
  | { kind: 'requeueAfter'; ms: number }
  /** Failed in a way worth retrying with the queue's backoff (409s land here, silently). */
  | { kind: 'retry'; reason: string };

export const DONE: SyncResult = { kind: 'done' };

/** Of several syncs' results: retry beats the shortest requeueAfter beats done. */
export function mostUrgent(results: SyncResult[]): SyncResult {
  let best: SyncResult = DONE;
  for (const r of results) {
    if (r.kind === 'retry') return r;
    if (r.kind === 'requeueAfter' && (best.kind !== 'requeueAfter' || r.ms < best.ms)) best = r;
  }
  return best;
}
