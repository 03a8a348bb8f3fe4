/**
 * What a failed reclaim attempt leaves behind. The attempt was already counted when it started
 * (attempts.ts); here it is reported:
 * - "in use" (PluginError InUse): not a failure. The charge is taken back (count - 1, the time
 *   kept so the next try waits one interval) and a Normal event says why;
 * - retryable, attempts left: the PV stays as it is, a Warning event names the attempt;
 * - not retryable (unsafe path, no plugin, not supported) or attempts used up: phase Failed with
 *   the error in `status.message` and a Warning event. A Failed PV waits for an operator
 *   (docs/operations.md, "Reclaim").
 */
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { ANN_RECLAIM_FAILED_ATTEMPTS, ANN_RECLAIM_LAST_ATTEMPT } from '@pv-controller/kube/annotations.js';
import type { VolumePlugin } from '../../plugins/api/core.js';
import { PluginError } from '../../plugins/api/errors.js';
import { readAttempts, withAttempts } from './attempts.js';
import {
  msgRecycleFailed,
} from './events.js';
import { updateFresh, withPhase, type ReclaimerDeps } from './deps.js';
import { EventReason } from '../runtime/event-reasons.js';

export type ReclaimKind = 'delete' | 'recycle';

export function failureReason(kind: ReclaimKind): EventReason {
  return kind === 'delete' ? EventReason.VolumeFailedDelete : EventReason.VolumeFailedRecycle;
}

/** No plugin can delete / recycle the volume: reported in upstream's words, never retried. */
export class MissingPluginError extends PluginError {
  constructor(message: string) {
    super('NotSupported', message, false);
  }
}

function failureText(kind: ReclaimKind, err: unknown): string {
  const detail = err instanceof Error ? err.message : String(err);
  return kind === 'delete' || err instanceof MissingPluginError ? detail : msgRecycleFailed(detail);
}

export function isInUse(err: unknown): boolean {
  return err instanceof PluginError && err.code === 'InUse';
}

function isRetryable(err: unknown): boolean {
  return !(err instanceof PluginError) || err.retryable;
}

/** Phase Failed with `message`, then the Warning event (only after the write succeeded). */
export async function markFailed(
  s: ReclaimerDeps,
  pv: PersistentVolume,
  reason: EventReason,
  message: string,
  eventMessage = message,
): Promise<void> {
  const uid = pv.spec.claimRef?.uid;
  const saved = await updateFresh(s, pv, 'status', (fresh) => {
    if (fresh.spec.claimRef?.uid !== uid) return undefined;
    if (fresh.status?.phase === 'Failed' && fresh.status.message === message) return undefined;
    return withPhase(fresh, 'Failed', message);
  });
  if (!saved) return;
  s.ctx.events.event(saved, 'Warning', reason, eventMessage);
  s.log.info({ pv: pv.metadata.name, from: pv.status?.phase ?? '', to: 'Failed', why: message }, 'volume phase changed');
}

async function takeBackCharge(s: ReclaimerDeps, pv: PersistentVolume, count: number): Promise<void> {
  await updateFresh(s, pv, 'spec', (fresh) => {
    const attempts = readAttempts(fresh);
    if (attempts.failed !== count) return undefined;
    return withAttempts(fresh, count - 1, attempts.lastAttempt ?? s.ctx.now());
  });
}

/** Reports attempt number `count` (already charged on `pv`), which failed with `err`. */
export async function recordFailedAttempt(
  s: ReclaimerDeps,
  pv: PersistentVolume,
  kind: ReclaimKind,
  count: number,
  err: unknown,
): Promise<void> {
  const text = failureText(kind, err);
  const name = pv.metadata.name;
  if (isInUse(err)) {
    await takeBackCharge(s, pv, count);
    const reason = kind === 'delete' ? EventReason.VolumeDelete : EventReason.VolumeFailedRecycle;
    s.ctx.events.event(pv, 'Normal', reason, text);
    s.log.info({ pv: name, err: text }, 'volume still in use; will retry without counting it');
    return;
  }
  const { maxAttempts, intervalMs } = s.policy;
  if (isRetryable(err) && count < maxAttempts) {
    const next = new Date(s.ctx.now().getTime() + intervalMs).toISOString();
    s.ctx.events.event(pv, 'Warning', failureReason(kind), `${text} (attempt ${count} of ${maxAttempts}; next attempt not before ${next})`);
    s.log.warn({ pv: name, attempt: count, maxAttempts, err: text }, `${kind} attempt failed; will retry`);
    return;
  }
  const why = count >= maxAttempts ? `${count} of ${maxAttempts} attempts failed` : `not retryable (attempt ${count})`;
  s.log.warn({ pv: name, attempt: count, err: text, why }, `${kind} failed; volume marked Failed`);
  await markFailed(s, pv, failureReason(kind), text, `${text} (${why}; ${retryHint(name ?? '')})`);
}

/**
 * How a person retries a Failed volume: both annotations go (the count alone would retry, but
 * only one interval after the last attempt), as the exact command to paste.
 */
export function retryHint(pvName: string): string {
  return (
    `to retry, fix the cause and remove annotations ${ANN_RECLAIM_FAILED_ATTEMPTS} and ${ANN_RECLAIM_LAST_ATTEMPT}: ` +
    `kubectl annotate pv ${pvName} ${ANN_RECLAIM_FAILED_ATTEMPTS}- ${ANN_RECLAIM_LAST_ATTEMPT}-`
  );
}

/** A delete or recycle, run in the background: attempt number `count` is already charged on `pv`. */
export type ReclaimOperation = (s: ReclaimerDeps, plugin: VolumePlugin, pv: PersistentVolume, count: number, signal: AbortSignal) => Promise<void>;

/**
 * Runs attempt number `count` (already charged on `pv`) of a delete or recycle. True when it
 * succeeded; a failure is recorded as above, except when the operation was aborted (the
 * controller is stopping or the PV changed hands: the next sync decides again).
 */
export async function runCountedAttempt(
  s: ReclaimerDeps,
  pv: PersistentVolume,
  kind: ReclaimKind,
  count: number,
  signal: AbortSignal,
  attempt: () => Promise<void>,
): Promise<boolean> {
  try {
    await attempt();
    return true;
  } catch (err) {
    if (!signal.aborted) await recordFailedAttempt(s, pv, kind, count, err);
    return false;
  }
}
