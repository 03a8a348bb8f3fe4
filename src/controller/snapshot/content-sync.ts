/**
 * A VolumeSnapshotContent's sync. The common controller's part (controller role): validate it,
 * keep its finalizer once bound, wake its snapshot when their statuses differ, and mark it
 * `volumesnapshot-being-deleted` when its snapshot is being deleted. The sidecar's part (every
 * role, for the drivers whose plugin this process holds) is sidecar.ts.
 */
import { ANN_SNAPSHOT_BEING_DELETED, type VolumeSnapshotContent } from '@pv-controller/kube/snapshot-types.js';
import { DONE, type SyncResult } from '../runtime/sync-result.js';
import type { SnapshotDeps } from './deps.js';
import { ensureContentFinalizer, isDeletionCandidate } from './finalizers.js';
import { syncSidecar } from './sidecar.js';
import { snapshotPluginFor } from './source.js';
import { statusFromContent } from './status.js';

export async function syncContent(deps: SnapshotDeps, content: VolumeSnapshotContent): Promise<SyncResult> {
  let current = content;
  if (deps.role === 'controller+sidecar') {
    const common = await syncCommon(deps, content);
    if (common === 'invalid') return DONE;
    current = common;
  }
  const plugin = snapshotPluginFor(deps.plugins, current.spec.driver);
  return plugin ? syncSidecar(deps, current, plugin) : DONE;
}

async function syncCommon(deps: SnapshotDeps, content: VolumeSnapshotContent): Promise<VolumeSnapshotContent | 'invalid'> {
  const { volumeHandle, snapshotHandle } = content.spec.source;
  if (!volumeHandle === !snapshotHandle) {
    deps.ctx.events.event(content, 'Warning', 'ContentValidationError', 'Exactly one of VolumeHandle and SnapshotHandle should be specified');
    return 'invalid';
  }
  const ref = content.spec.volumeSnapshotRef;
  // Pre-bound to a snapshot that has not bound it yet: the snapshot's sync binds it.
  if (!ref.uid) return content;
  const current = await ensureContentFinalizer(deps, content);
  const key = `${ref.namespace ?? ''}/${ref.name}`;
  const vs = deps.stores.snapshots.get(key);
  if (!vs || vs.metadata.uid !== ref.uid) return current;
  if (statusFromContent(vs, current)) deps.enqueueSnapshot(key);
  if (isDeletionCandidate(vs) && current.metadata.annotations?.[ANN_SNAPSHOT_BEING_DELETED] !== 'yes') {
    const annotations = { ...current.metadata.annotations, [ANN_SNAPSHOT_BEING_DELETED]: 'yes' };
    return deps.api.updateContent({ ...current, metadata: { ...current.metadata, annotations } });
  }
  return current;
}
