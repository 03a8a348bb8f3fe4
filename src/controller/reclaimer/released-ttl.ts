/**
 * A Released volume's time to live (docs/lifecycle.md): `pv-controller.io/released-ttl` (a Go
 * duration, from the StorageClass or written on the PV) turns policy Retain into "delete after T".
 *
 * - The first sync that finds the PV Released with a valid TTL writes the deadline,
 *   `pv-controller.io/released-deadline` (RFC 3339, whole seconds, rounded up), on the copy it
 *   read (resourceVersion-guarded), with a Normal event: a restart or another replica reads it
 *   back, so the deadline never moves.
 * - Until then the PV is requeued for its deadline through the work queue's addAfter (one
 *   pending timer per key, the earliest wins), at most a day at a time (a Node timer cannot be
 *   longer than about 24.8 days); nothing polls.
 * - At the deadline, the volume is deleted as policy Delete deletes it (same attempts, same
 *   plugin checks, an nfs-subdir class's onDelete archive honoured), but only when its plugin
 *   proves pv-controller made it (the provenance capability): the TTL and the deadline are
 *   annotations anyone who may update PVs can write, so neither is a reason to destroy data.
 * - A bad TTL is a Warning event and nothing else. A PV bound or Available again loses its
 *   deadline (reclaimer.ts, `clearStaleMarks`).
 */
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { ANN_RELEASED_DEADLINE, ANN_RELEASED_TTL, ANN_REUSE } from '@pv-controller/kube/annotations.js';
import { DurationError, formatDuration, parseDuration } from '../duration.js';
import { DONE, type SyncResult } from '../runtime/sync-result.js';
import { EventReason } from '../runtime/event-reasons.js';
import type { ReclaimerDeps } from './deps.js';

/** The longest single wait handed to the queue; a longer deadline is reached in several. */
export const MAX_DEADLINE_WAIT_MS = 24 * 3_600_000;
/** Go's time.Duration is int64 nanoseconds: anything longer is not a duration (about 292 years). */
const MAX_GO_DURATION_MS = 9_223_372_036_854;
const MAX_TTL_TEXT = 64;

export type ReleasedTtl =
  | { kind: 'none' }
  | { kind: 'invalid'; text: string; why: string }
  | { kind: 'valid'; text: string; ms: number };

/** The PV's TTL annotation, read and checked (never throws). */
export function releasedTtlOf(pv: PersistentVolume): ReleasedTtl {
  const text = pv.metadata.annotations?.[ANN_RELEASED_TTL];
  if (text === undefined) return { kind: 'none' };
  if (text.length > MAX_TTL_TEXT) return { kind: 'invalid', text: `${text.slice(0, MAX_TTL_TEXT)}…`, why: `longer than ${MAX_TTL_TEXT} characters` };
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch (err) {
    if (!(err instanceof DurationError)) throw err;
    return { kind: 'invalid', text, why: 'not a Go duration such as 30m, 72h or 1h30m' };
  }
  if (ms < 0) return { kind: 'invalid', text, why: 'negative' };
  if (!(ms <= MAX_GO_DURATION_MS)) return { kind: 'invalid', text, why: 'out of range for a Go duration' };
  return { kind: 'valid', text, ms };
}

/** The stored deadline, or undefined when absent or not a timestamp (then it is written afresh). */
export function deadlineOf(pv: PersistentVolume): Date | undefined {
  const raw = pv.metadata.annotations?.[ANN_RELEASED_DEADLINE];
  if (raw === undefined || raw.length > 64) return undefined;
  const at = new Date(raw);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

/** `now + ms`, rounded up to the whole second (RFC 3339 without fractions, never early). */
export function deadlineAfter(now: Date, ms: number): string {
  return new Date(Math.ceil((now.getTime() + ms) / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** The PV with `annotations[key] = value`, or with `key` removed when value is undefined. */
export function withAnnotation(pv: PersistentVolume, key: string, value: string | undefined): PersistentVolume {
  const next = structuredClone(pv);
  const annotations = { ...next.metadata.annotations };
  if (value === undefined) delete annotations[key];
  else annotations[key] = value;
  if (Object.keys(annotations).length === 0) delete next.metadata.annotations;
  else next.metadata.annotations = annotations;
  return next;
}

/** The PV without a release deadline and a reuse request: what a volume bound or Available again keeps of neither. */
export function withoutReleaseMarks(pv: PersistentVolume): PersistentVolume {
  return withAnnotation(withAnnotation(pv, ANN_RELEASED_DEADLINE, undefined), ANN_REUSE, undefined);
}

export function waitUntil(deadline: Date, now: Date): SyncResult {
  return { kind: 'requeueAfter', ms: Math.min(Math.max(deadline.getTime() - now.getTime(), 1), MAX_DEADLINE_WAIT_MS) };
}

/**
 * One sync of a Released (or Failed) Retain PV that has a TTL: warn about a bad one, write the
 * deadline, wait for it, or — once it has passed — hand over to `expire` (the proof and the delete).
 */
export async function syncReleasedTtl(
  s: ReclaimerDeps,
  pv: PersistentVolume,
  ttl: Exclude<ReleasedTtl, { kind: 'none' }>,
  expire: (pv: PersistentVolume) => Promise<SyncResult>,
): Promise<SyncResult> {
  if (ttl.kind === 'invalid') {
    s.ctx.events.event(pv, 'Warning', EventReason.ReleasedTTLInvalid, `${ANN_RELEASED_TTL} "${ttl.text}" is ${ttl.why}: the volume is kept and nothing is deleted`);
    return DONE;
  }
  const now = s.ctx.now();
  const deadline = deadlineOf(pv);
  if (deadline === undefined) {
    const at = deadlineAfter(now, ttl.ms);
    const saved = await s.ctx.api.updateVolume(withAnnotation(pv, ANN_RELEASED_DEADLINE, at));
    s.ctx.events.event(saved, 'Normal', EventReason.ReleasedDeadlineSet, `Released volume kept until ${at} (${ANN_RELEASED_TTL} ${ttl.text}), then deleted`);
    s.log.info({ pv: pv.metadata.name, deadline: at, ttl: formatDuration(ttl.ms), why: ANN_RELEASED_TTL }, 'released volume deadline set');
    return waitUntil(new Date(at), now);
  }
  if (deadline.getTime() > now.getTime()) return waitUntil(deadline, now);
  return expire(pv);
}
