/** A content's error in its status, with the event, as csi-snapshotter's updateContentErrorStatusWithEvent. */
import type { VolumeSnapshotContent } from '@pv-controller/kube/snapshot-types.js';
import type { EventReason } from '../runtime/event-reasons.js';
import type { SnapshotDeps } from './deps.js';
import { rfc3339 } from './status.js';

/** Records `message` in the content's status.error (readyToUse false) and emits it; an identical error is left alone. */
export async function contentError(deps: SnapshotDeps, content: VolumeSnapshotContent, reason: EventReason, message: string): Promise<void> {
  if (content.status?.error?.message === message) return;
  deps.ctx.events.event(content, 'Warning', reason, message);
  deps.log.info({ content: content.metadata.name, reason, message }, 'content error recorded');
  const status = { ...content.status, readyToUse: false, error: { time: rfc3339(deps.ctx.now()), message } };
  try {
    await deps.api.updateContentStatus({ ...content, status });
  } catch (err) {
    deps.log.warn({ content: content.metadata.name, err: (err as Error).message }, 'could not record the content error');
  }
}
