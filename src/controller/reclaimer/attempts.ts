/**
 * Bounded reclaim retries, kept on the PV itself so they survive restarts and leader changes:
 * `pv-controller.io/reclaim-failed-attempts` (integer) and `pv-controller.io/reclaim-last-attempt`
 * (RFC 3339).
 *
 * An attempt is charged *before* the plugin is called (count + 1, time = now, one PUT guarded by
 * the resourceVersion the decision was made on) and only un-charged by success. So a crash in the
 * middle of a plugin call, or two controllers deciding on the same copy (the second PUT gets 409),
 * can never give a volume more than the configured number of attempts: the count on the server
 * is always at least the number of plugin calls ever started.
 */
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { ANN_BACKING_DELETED, ANN_RECLAIM_FAILED_ATTEMPTS, ANN_RECLAIM_LAST_ATTEMPT } from '@pv-controller/kube/annotations.js';

export interface RetryPolicy {
  /** `--pv-recycler-maximum-retry`: failed attempts in total before the PV goes Failed. */
  maxAttempts: number;
  /** `--pvclaimbinder-sync-period`: the least time between two attempts, in ms. */
  intervalMs: number;
}

export interface ReclaimAttempts {
  /** Attempts charged so far; undefined when the annotation is absent. */
  failed: number | undefined;
  /** True when the count annotation is present but not a non-negative integer. */
  malformed: boolean;
  lastAttempt: Date | undefined;
}

export function readAttempts(pv: PersistentVolume): ReclaimAttempts {
  const annotations = pv.metadata.annotations ?? {};
  const rawCount = annotations[ANN_RECLAIM_FAILED_ATTEMPTS];
  const rawTime = annotations[ANN_RECLAIM_LAST_ATTEMPT];
  const count = rawCount !== undefined && /^\s*\d{1,9}\s*$/.test(rawCount) ? Number.parseInt(rawCount, 10) : undefined;
  const time = rawTime === undefined ? undefined : new Date(rawTime);
  return {
    failed: rawCount === undefined ? undefined : count,
    malformed: rawCount !== undefined && count === undefined,
    lastAttempt: time && !Number.isNaN(time.getTime()) ? time : undefined,
  };
}

/**
 * Attempts that count against the limit. A malformed count is treated as exhausted: somebody
 * wrote it by hand, and a destructive operation waits for them to fix or remove it.
 */
export function chargedAttempts(attempts: ReclaimAttempts, policy: RetryPolicy): number {
  return attempts.malformed ? policy.maxAttempts : (attempts.failed ?? 0);
}

/**
 * Milliseconds until the next attempt is allowed (0 = now): one interval after the last attempt,
 * whether it was counted or not (an "in use" answer is not). A last-attempt time in the future
 * (another replica's clock) never delays by more than one interval.
 */
export function msUntilNextAttempt(attempts: ReclaimAttempts, policy: RetryPolicy, now: Date): number {
  if (!attempts.lastAttempt) return 0;
  const due = attempts.lastAttempt.getTime() + policy.intervalMs;
  return Math.min(Math.max(0, due - now.getTime()), policy.intervalMs);
}

function withAnnotations(pv: PersistentVolume, annotations: Record<string, string>): PersistentVolume {
  const next = structuredClone(pv);
  if (Object.keys(annotations).length === 0) delete next.metadata.annotations;
  else next.metadata.annotations = annotations;
  return next;
}

/** A copy of `pv` carrying `count` attempts, the last one at `at`. */
export function withAttempts(pv: PersistentVolume, count: number, at: Date): PersistentVolume {
  return withAnnotations(pv, {
    ...pv.metadata.annotations,
    [ANN_RECLAIM_FAILED_ATTEMPTS]: String(count),
    [ANN_RECLAIM_LAST_ATTEMPT]: at.toISOString(),
  });
}

/** A copy of `pv` without the retry annotations (after success). */
export function withoutAttempts(pv: PersistentVolume): PersistentVolume {
  const annotations = { ...pv.metadata.annotations };
  delete annotations[ANN_RECLAIM_FAILED_ATTEMPTS];
  delete annotations[ANN_RECLAIM_LAST_ATTEMPT];
  return withAnnotations(pv, annotations);
}

/**
 * A copy of `pv` recording that its backing volume is gone: the mark, and no attempts (the one
 * that succeeded must not count against a retry budget that API faults on the remaining object
 * writes would otherwise use up across restarts).
 */
export function withBackingDeleted(pv: PersistentVolume, at: Date): PersistentVolume {
  const cleared = withoutAttempts(pv);
  return withAnnotations(cleared, { ...cleared.metadata.annotations, [ANN_BACKING_DELETED]: at.toISOString() });
}

export function isBackingDeleted(pv: PersistentVolume): boolean {
  return (pv.metadata.annotations ?? {})[ANN_BACKING_DELETED] !== undefined;
}
