/**
 * A VolumeSnapshot's status, as external-snapshotter's common controller writes it: copied from its
 * content (bound name, readyToUse, restoreSize as a Quantity, creationTime in RFC 3339, the
 * content's error), and errors of its own with an event — an error already in the status is not
 * written or announced again.
 */
import { formatBytes } from '@pv-controller/kube/quantity.js';
import type { VolumeSnapshot, VolumeSnapshotContent, VolumeSnapshotStatus } from '@pv-controller/kube/snapshot-types.js';
import type { EventReason } from '../runtime/event-reasons.js';
import type { SnapshotDeps } from './deps.js';
import { snapshotKey } from './source.js';

/** RFC 3339 with seconds, as metav1.Time serialises. */
export const rfc3339 = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The status a snapshot gets from its content; undefined when nothing changes. */
export function statusFromContent(vs: VolumeSnapshot, content: VolumeSnapshotContent): VolumeSnapshotStatus | undefined {
  const cs = content.status;
  const ready = cs?.readyToUse ?? false;
  const prev = vs.status;
  const next: VolumeSnapshotStatus = { ...prev };
  if (!next.boundVolumeSnapshotContentName) next.boundVolumeSnapshotContentName = content.metadata.name;
  if (!next.creationTime && cs?.creationTime !== undefined) next.creationTime = rfc3339(new Date(Math.floor(cs.creationTime / 1e6)));
  if (next.readyToUse !== ready) {
    next.readyToUse = ready;
    if (ready) delete next.error;
  }
  const size = cs?.restoreSize;
  if (size !== undefined && (next.restoreSize === undefined || (isZero(next.restoreSize) && size > 0))) next.restoreSize = formatBytes(BigInt(size));
  if (cs?.error && cs.error.message !== prev?.error?.message) next.error = { ...cs.error };
  return JSON.stringify(next) === JSON.stringify(prev ?? {}) ? undefined : next;
}

const isZero = (q: string): boolean => /^0+([a-zA-Z]+)?$/.test(q);

/**
 * Writes the status a content gives, with SnapshotCreated / SnapshotReady the first time each
 * holds. Returns the written copy (or the given one when nothing changed).
 */
export async function updateStatusFromContent(deps: SnapshotDeps, vs: VolumeSnapshot, content: VolumeSnapshotContent): Promise<VolumeSnapshot> {
  const status = statusFromContent(vs, content);
  if (!status) return vs;
  const written = await deps.api.updateSnapshotStatus({ ...vs, status });
  const key = snapshotKey(vs);
  if (!vs.status?.creationTime && status.creationTime) {
    deps.ctx.events.event(written, 'Normal', 'SnapshotCreated', `Snapshot ${key} was successfully created by the CSI driver.`);
  }
  if (vs.status?.readyToUse !== true && status.readyToUse === true) {
    deps.ctx.events.event(written, 'Normal', 'SnapshotReady', `Snapshot ${key} is ready to use.`);
  }
  deps.log.info({ snapshot: key, content: content.metadata.name, readyToUse: status.readyToUse }, 'snapshot status updated from its content');
  return written;
}

/**
 * Records an error in the snapshot's status (readyToUse false when `notReady`) and emits the event
 * even when the write fails, as upstream does; an identical error already recorded is left alone.
 */
export async function snapshotError(deps: SnapshotDeps, vs: VolumeSnapshot, notReady: boolean, reason: EventReason, message: string): Promise<void> {
  if (vs.status?.error?.message === message) return;
  const status: VolumeSnapshotStatus = { ...vs.status, error: { time: rfc3339(deps.ctx.now()), message } };
  if (notReady) status.readyToUse = false;
  deps.ctx.events.event(vs, 'Warning', reason, message);
  deps.log.info({ snapshot: snapshotKey(vs), reason, message }, 'snapshot error recorded');
  try {
    await deps.api.updateSnapshotStatus({ ...vs, status });
  } catch (err) {
    deps.log.warn({ snapshot: snapshotKey(vs), err: (err as Error).message }, 'could not record the snapshot error');
  }
}
