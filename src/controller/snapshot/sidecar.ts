/**
 * The sidecar's part of a content's sync (external-snapshotter's csi-snapshotter), for a driver
 * whose plugin this process holds: cut the backend snapshot, keep the content's status, delete the
 * backend snapshot when the content goes under a Delete policy, and let the content go.
 *
 * Durable intent: the content (with its finalizer) exists before the backend call, and carries
 * `volumesnapshot-being-created` from before the call until the answer is recorded; the backend
 * name is deterministic per VolumeSnapshot (`<cluster>-snapshot-<uid>`), so a crash at any step or
 * a repeat finds the snapshot the first call made. While the annotation is there the content is
 * never let go: a snapshot deleted mid-creation repeats the create to learn the id, records it
 * with its proof, and only then deletes it.
 */
import {
  ANN_SNAPSHOT_BEING_CREATED,
  ANN_SNAPSHOT_BEING_DELETED,
  ANN_SNAPSHOT_PROVENANCE,
  FINALIZER_SNAPSHOT_CONTENT_BOUND,
  SNAPSHOT_CONTENT_NAME_PREFIX,
  type VolumeSnapshotContent,
  type VolumeSnapshotContentStatus,
} from '@pv-controller/kube/snapshot-types.js';
import type { VolumeSnapshotInfo } from '../../plugins/api/capabilities/snapshot.js';
import { isConflict } from '@pv-controller/kube/errors.js';
import { PluginError } from '../../plugins/api/errors.js';
import { snapshotBackendName } from '../../plugins/naming.js';
import { measured } from '../runtime/operation-metrics.js';
import { DONE, type SyncResult } from '../runtime/sync-result.js';
import type { SnapshotDeps } from './deps.js';
import { deleteBackendSnapshot } from './sidecar-delete.js';
import { hasFinalizer, withFinalizers } from './finalizers.js';
import { contentVolume, volumeHandle, type SnapshotPlugin } from './source.js';
import { contentError } from './content-status.js';

/** How often a snapshot the backend is still cutting (readyToUse false) is looked at again. */
export const READY_POLL_MS = 5_000;

export async function syncSidecar(deps: SnapshotDeps, content: VolumeSnapshotContent, plugin: SnapshotPlugin): Promise<SyncResult> {
  const ann = content.metadata.annotations ?? {};
  if (shouldDelete(content)) return deleteBackendSnapshot(deps, content, plugin);
  const dynamic = content.spec.source.volumeHandle !== undefined;
  // A content going away starts no new cut; one already in flight is finished first.
  if (content.metadata.deletionTimestamp && ann[ANN_SNAPSHOT_BEING_CREATED] === undefined) return DONE;
  if (dynamic && (ann[ANN_SNAPSHOT_BEING_CREATED] !== undefined || !content.status?.snapshotHandle || content.status.readyToUse !== true)) {
    return cutSnapshot(deps, content, plugin);
  }
  if (!dynamic && content.status?.snapshotHandle === undefined) return adoptPreProvisioned(deps, content, plugin);
  return DONE;
}

/** external-snapshotter's shouldDelete: the content is going and nothing may still be in flight. */
function shouldDelete(content: VolumeSnapshotContent): boolean {
  if (!content.metadata.deletionTimestamp) return false;
  if (content.spec.source.snapshotHandle !== undefined && !content.spec.volumeSnapshotRef.uid) return true;
  const ann = content.metadata.annotations ?? {};
  return ann[ANN_SNAPSHOT_BEING_CREATED] === undefined && ann[ANN_SNAPSHOT_BEING_DELETED] !== undefined;
}

/** Cuts (or repeats cutting) the snapshot of a dynamic content and records the answer. */
async function cutSnapshot(deps: SnapshotDeps, content: VolumeSnapshotContent, plugin: SnapshotPlugin): Promise<SyncResult> {
  const name = content.metadata.name ?? '';
  const vsUid = content.spec.volumeSnapshotRef.uid;
  if (!vsUid || name !== `${SNAPSHOT_CONTENT_NAME_PREFIX}${vsUid}`) {
    // Only the content the common controller makes for a snapshot is cut: its name is the
    // snapshot's uid, so no second content can claim (and later delete) the same backend snapshot.
    await contentError(deps, content, 'SnapshotCreationFailed', `Failed to create snapshot: content ${name} is not named ${SNAPSHOT_CONTENT_NAME_PREFIX}<its VolumeSnapshot's uid>`);
    return DONE;
  }
  const pv = contentVolume(deps, content, plugin);
  if (!pv) {
    // Not this process's volume (a node agent, for another node's), or not there (yet).
    if (deps.ctx.volumes.list().some((v) => volumeHandle(v) === content.spec.source.volumeHandle)) return DONE;
    await contentError(deps, content, 'SnapshotCreationFailed', `Failed to create snapshot: cannot find the volume ${content.spec.source.volumeHandle}`);
    return { kind: 'retry', reason: 'source volume missing' };
  }
  const cls = content.spec.volumeSnapshotClassName ? deps.stores.classes.get(content.spec.volumeSnapshotClassName) : undefined;
  if (!cls) {
    await contentError(deps, content, 'SnapshotCreationFailed', `Failed to create snapshot: failed to get input parameters to create snapshot for content ${name}: "volumesnapshotclass.snapshot.storage.k8s.io \\"${content.spec.volumeSnapshotClassName ?? ''}\\" not found"`);
    return { kind: 'retry', reason: 'class missing' };
  }
  const intent = await recordIntent(deps, content);
  const ref = content.spec.volumeSnapshotRef;
  let info: VolumeSnapshotInfo;
  try {
    info = await measured(deps.metrics, plugin.name, 'create_snapshot', () =>
      plugin.createSnapshot({
        snapshotName: snapshotBackendName(deps.clusterName, vsUid, plugin.maxBackingNameLength),
        clusterName: deps.clusterName,
        pv,
        parameters: cls.parameters ?? {},
        snapshot: { name: ref.name ?? '', namespace: ref.namespace ?? '', contentName: name },
      }),
    );
  } catch (err) {
    return createFailed(deps, intent, err);
  }
  await recordSnapshot(deps, intent, info, plugin);
  return info.readyToUse ? DONE : { kind: 'requeueAfter', ms: READY_POLL_MS };
}

/** The intent, before the backend call: the finalizer and `volumesnapshot-being-created`. */
async function recordIntent(deps: SnapshotDeps, content: VolumeSnapshotContent): Promise<VolumeSnapshotContent> {
  if (content.metadata.annotations?.[ANN_SNAPSHOT_BEING_CREATED] !== undefined && hasFinalizer(content, FINALIZER_SNAPSHOT_CONTENT_BOUND)) return content;
  const marked = withFinalizers(content, content.metadata.deletionTimestamp ? [] : [FINALIZER_SNAPSHOT_CONTENT_BOUND]);
  marked.metadata.annotations = { ...content.metadata.annotations, [ANN_SNAPSHOT_BEING_CREATED]: 'yes' };
  const saved = await deps.api.updateContent(marked);
  deps.log.info({ content: content.metadata.name }, 'snapshot intent recorded: being created');
  return saved;
}

/** A failed create: an unknown outcome keeps the intent and repeats; a final answer lets it go. */
async function createFailed(deps: SnapshotDeps, content: VolumeSnapshotContent, err: unknown): Promise<SyncResult> {
  const message = `Failed to create snapshot: ${(err as Error).message}`;
  const inProgress = err instanceof PluginError && (err.code === 'InProgress' || err.retryable);
  let current = content;
  if (!inProgress) {
    const annotations = { ...content.metadata.annotations };
    delete annotations[ANN_SNAPSHOT_BEING_CREATED];
    current = await deps.api.updateContent({ ...content, metadata: { ...content.metadata, annotations } });
  }
  deps.log.warn({ content: content.metadata.name, inProgress, err: (err as Error).message }, 'create snapshot failed');
  await contentError(deps, current, 'SnapshotCreationFailed', message);
  return { kind: 'retry', reason: 'create snapshot' };
}

/**
 * The answer: the status (handle, time, size, ready), then the proof in the write that ends the
 * intent. Each write is made on the newest copy (the content may have been marked for deletion
 * while the call ran): an answer in hand is recorded rather than asked for again.
 */
async function recordSnapshot(deps: SnapshotDeps, content: VolumeSnapshotContent, info: VolumeSnapshotInfo, plugin: SnapshotPlugin): Promise<void> {
  const name = content.metadata.name ?? '';
  const withStatus = await onNewest(deps, content, (c) => {
    const status: VolumeSnapshotContentStatus = { ...c.status, snapshotHandle: info.snapshotId, creationTime: info.createdAt.getTime() * 1e6, restoreSize: Number(info.sizeBytes), readyToUse: info.readyToUse };
    delete status.error;
    return deps.api.updateContentStatus({ ...c, status });
  });
  await onNewest(deps, withStatus, (c) => {
    const annotations: Record<string, string> = { ...c.metadata.annotations, [ANN_SNAPSHOT_PROVENANCE]: deps.provenance.signSnapshot(plugin.name, info.snapshotId, name) };
    delete annotations[ANN_SNAPSHOT_BEING_CREATED];
    return deps.api.updateContent({ ...c, metadata: { ...c.metadata, annotations } });
  });
  deps.log.info({ content: name, snapshotHandle: info.snapshotId, readyToUse: info.readyToUse }, 'snapshot cut and recorded');
}

/** `write` on `first`, and on a 409 on the newest copy read live (a few times). */
async function onNewest(deps: SnapshotDeps, first: VolumeSnapshotContent, write: (c: VolumeSnapshotContent) => Promise<VolumeSnapshotContent>): Promise<VolumeSnapshotContent> {
  let current = first;
  for (let attempt = 0; ; attempt++) {
    try {
      return await write(current);
    } catch (err) {
      if (!isConflict(err) || attempt >= 3) throw err;
      const live = await deps.api.getContent(first.metadata.name ?? '');
      if (!live || live.metadata.uid !== first.metadata.uid) throw err;
      current = live;
    }
  }
}

/** A pre-provisioned content's status: its handle, and what the backend's listing says of it. */
async function adoptPreProvisioned(deps: SnapshotDeps, content: VolumeSnapshotContent, plugin: SnapshotPlugin): Promise<SyncResult> {
  const handle = content.spec.source.snapshotHandle ?? '';
  if (!plugin.ownsSnapshot(handle)) return DONE;
  const listed = (await plugin.listSnapshots(deps.clusterName).catch(() => [])).find((s) => s.snapshotId === handle);
  const status: VolumeSnapshotContentStatus = { ...content.status, snapshotHandle: handle, readyToUse: listed?.readyToUse ?? true };
  if (listed) {
    status.creationTime = listed.createdAt.getTime() * 1e6;
    status.restoreSize = Number(listed.sizeBytes);
  }
  await deps.api.updateContentStatus({ ...content, status });
  deps.log.info({ content: content.metadata.name, snapshotHandle: handle }, 'pre-provisioned snapshot content status set');
  return DONE;
}
