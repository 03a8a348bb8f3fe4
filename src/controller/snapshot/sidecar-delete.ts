/**
 * Deleting a content's backend snapshot, the one irreversible call of the snapshot module, and then
 * letting the content go. The facts come from what a user cannot forge:
 * - a dynamic content (it names a source volume) is deleted on the backend only with a valid
 *   `pv-controller.io/snapshot-provenance` proof of its driver, handle and name under the key only
 *   this controller reads; a bad or missing proof is refused for good (event and status error),
 *   the content keeps its finalizer, and nothing is deleted;
 * - a pre-provisioned content (it names a snapshot handle) is deleted only under its own
 *   deletionPolicy Delete, through a plugin that owns the handle (its kind, its node).
 * Retain deletes nothing on the backend; either way the finalizer comes off last.
 */
import { ANN_SNAPSHOT_PROVENANCE, FINALIZER_SNAPSHOT_CONTENT_BOUND, type VolumeSnapshotContent } from '@pv-controller/kube/snapshot-types.js';
import { measured } from '../runtime/operation-metrics.js';
import { DONE, type SyncResult } from '../runtime/sync-result.js';
import { contentError } from './content-status.js';
import type { SnapshotDeps } from './deps.js';
import { hasFinalizer, withFinalizers } from './finalizers.js';
import type { SnapshotPlugin } from './source.js';

/** How long a refused deletion waits before it is looked at again (an administrator may fix it). */
export const REFUSED_RECHECK_MS = 10 * 60_000;

export async function deleteBackendSnapshot(deps: SnapshotDeps, content: VolumeSnapshotContent, plugin: SnapshotPlugin): Promise<SyncResult> {
  const handle = backendHandle(content);
  let current = content;
  if (content.spec.deletionPolicy === 'Delete' && handle !== undefined) {
    if (!plugin.ownsSnapshot(handle)) return DONE;
    const refusal = deletionRefusal(deps, content, handle);
    if (refusal) {
      deps.log.warn({ content: content.metadata.name, snapshotHandle: handle, refusal }, 'backend snapshot deletion refused');
      await contentError(deps, content, 'SnapshotDeleteError', `Refusing to delete snapshot ${handle}: ${refusal}`);
      return { kind: 'requeueAfter', ms: REFUSED_RECHECK_MS };
    }
    try {
      const cls = content.spec.volumeSnapshotClassName ? deps.stores.classes.get(content.spec.volumeSnapshotClassName) : undefined;
      await measured(deps.metrics, plugin.name, 'delete_snapshot', () =>
        plugin.deleteSnapshot({
          snapshotId: handle,
          ...(cls?.parameters ? { parameters: cls.parameters } : {}),
          annotations: content.metadata.annotations ?? {},
          // A cloud deletes a snapshot only if it carries this cluster's tag, unless the handle is
          // a pre-provisioned content's under its own Delete policy (checked just above).
          clusterName: deps.clusterName,
          preProvisioned: content.spec.source.snapshotHandle !== undefined,
          contentName: content.metadata.name ?? '',
        }),
      );
    } catch (err) {
      deps.ctx.events.event(content, 'Warning', 'SnapshotDeleteError', 'Failed to delete snapshot');
      deps.log.warn({ content: content.metadata.name, snapshotHandle: handle, err: (err as Error).message }, 'delete snapshot failed');
      return { kind: 'retry', reason: 'delete snapshot' };
    }
    deps.log.info({ content: content.metadata.name, snapshotHandle: handle }, 'backend snapshot deleted');
    current = await clearStatus(deps, content);
  }
  if (hasFinalizer(current, FINALIZER_SNAPSHOT_CONTENT_BOUND)) {
    await deps.api.updateContent(withFinalizers(current, [], [FINALIZER_SNAPSHOT_CONTENT_BOUND]));
    deps.log.info({ content: content.metadata.name, deletionPolicy: content.spec.deletionPolicy }, 'content finalizer removed');
  }
  return DONE;
}

/** The backend snapshot a content stands for: its spec's handle (pre-provisioned), else the one it recorded. */
function backendHandle(content: VolumeSnapshotContent): string | undefined {
  return content.spec.source.snapshotHandle ?? content.status?.snapshotHandle;
}

/** Why this content is no proof for deleting `handle`; undefined when it is. */
function deletionRefusal(deps: SnapshotDeps, content: VolumeSnapshotContent, handle: string): string | undefined {
  if (content.spec.source.snapshotHandle !== undefined) return undefined;
  const proof = content.metadata.annotations?.[ANN_SNAPSHOT_PROVENANCE];
  if (deps.provenance.verifySnapshot(content.spec.driver, handle, content.metadata.name ?? '', proof)) return undefined;
  return proof === undefined
    ? `content ${content.metadata.name} claims to be dynamically provisioned but carries no ${ANN_SNAPSHOT_PROVENANCE} proof that this controller cut it`
    : `the ${ANN_SNAPSHOT_PROVENANCE} proof of content ${content.metadata.name} does not match its driver, snapshot handle and name`;
}

/** After the backend deletion: the handle, time, size and readiness are gone (what repeats is then a no-op). */
async function clearStatus(deps: SnapshotDeps, content: VolumeSnapshotContent): Promise<VolumeSnapshotContent> {
  const status = { ...content.status };
  delete status.snapshotHandle;
  delete status.readyToUse;
  delete status.creationTime;
  delete status.restoreSize;
  return deps.api.updateContentStatus({ ...content, status });
}
