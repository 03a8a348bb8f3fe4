/**
 * The common controller's VolumeSnapshot sync (external-snapshotter's syncSnapshot): validate the
 * source, pick the class, keep the finalizers, make or bind the content, copy its status, and on
 * deletion carry out the content's deletionPolicy before letting the snapshot go.
 */
import { isAlreadyExists, isConflict } from '@pv-controller/kube/errors.js';
import {
  ANN_SNAPSHOT_BEING_DELETED,
  FINALIZER_SNAPSHOT_AS_SOURCE,
  FINALIZER_SNAPSHOT_BOUND,
  FINALIZER_SNAPSHOT_CONTENT_BOUND,
  SNAPSHOT_API_VERSION,
  type VolumeSnapshot,
  type VolumeSnapshotContent,
} from '@pv-controller/kube/snapshot-types.js';
import { DONE, type SyncResult } from '../runtime/sync-result.js';
import type { SnapshotDeps } from './deps.js';
import { ensureClaimFinalizer, ensureSnapshotFinalizers, isDeletionCandidate, isRestoreSource, pointsBack, releaseSourceClaim, withFinalizers } from './finalizers.js';
import { defaultClassFor, dynamicContentName, SnapshotInputError, snapshotKey, sourceVolume, volumeDriver, volumeHandle } from './source.js';
import { snapshotError, updateStatusFromContent } from './status.js';

/** How soon a snapshot waiting on something it cannot watch (a missing content, a restoring claim) looks again. */
export const SNAPSHOT_RECHECK_MS = 5_000;
const retry = (reason: string): SyncResult => ({ kind: 'retry', reason });

export async function syncSnapshot(deps: SnapshotDeps, vs: VolumeSnapshot): Promise<SyncResult> {
  try {
    await releaseSourceClaim(deps, vs, false);
  } catch (err) {
    deps.log.warn({ snapshot: snapshotKey(vs), err: (err as Error).message }, 'could not release the source claim');
    deps.ctx.events.event(vs, 'Warning', 'ErrorPVCFinalizer', 'Error check and remove PVC Finalizer for VolumeSnapshot');
  }
  if (vs.metadata.deletionTimestamp) return deleteSnapshot(deps, vs);
  const { persistentVolumeClaimName: claim, volumeSnapshotContentName: contentName } = vs.spec.source;
  if (!claim === !contentName) {
    await snapshotError(deps, vs, true, 'SnapshotValidationError', 'Exactly one of PersistentVolumeClaimName and VolumeSnapshotContentName should be specified');
    return DONE;
  }
  const content = contentName ? await preProvisionedContent(deps, vs, contentName) : await dynamicContent(deps, vs);
  if (content === 'error') return { kind: 'requeueAfter', ms: SNAPSHOT_RECHECK_MS };
  let current = vs;
  try {
    current = await ensureSnapshotFinalizers(deps, vs, content);
  } catch (err) {
    deps.ctx.events.event(vs, 'Warning', 'SnapshotFinalizerError', `Failed to check and update snapshot: ${(err as Error).message}`);
    return retry('snapshot finalizers');
  }
  if (contentName) return bindPreProvisioned(deps, current, content);
  return content ? bindDynamic(deps, current, content) : createContent(deps, current);
}

/** The content a pre-provisioned snapshot names, when it may be bound to it; 'error' when recorded as an error. */
async function preProvisionedContent(deps: SnapshotDeps, vs: VolumeSnapshot, name: string): Promise<VolumeSnapshotContent | undefined | 'error'> {
  const content = deps.stores.contents.get(name);
  if (!content) {
    await snapshotError(deps, vs, true, 'SnapshotContentMissing', 'VolumeSnapshotContent is missing');
    return 'error';
  }
  if (!content.spec.source.snapshotHandle) {
    await snapshotError(deps, vs, true, 'SnapshotContentMismatch', 'VolumeSnapshotContent is dynamically provisioned while expecting a pre-provisioned one');
    return 'error';
  }
  const ref = content.spec.volumeSnapshotRef;
  if (ref.name !== vs.metadata.name || ref.namespace !== vs.metadata.namespace || (ref.uid && ref.uid !== vs.metadata.uid)) {
    await snapshotError(deps, vs, true, 'SnapshotContentMisbound', `VolumeSnapshotContent [${name}] is bound to a different snapshot`);
    return 'error';
  }
  return content;
}

/** The content a dynamic snapshot made, when there is one and it is really its own. */
async function dynamicContent(deps: SnapshotDeps, vs: VolumeSnapshot): Promise<VolumeSnapshotContent | undefined | 'error'> {
  const name = dynamicContentName(vs);
  const content = deps.stores.contents.get(name);
  if (!content) return undefined;
  if (!content.spec.source.volumeHandle) {
    await snapshotError(deps, vs, true, 'SnapshotContentMismatch', `VolumeSnapshotContent ${name} is pre-provisioned while expecting a dynamically provisioned one`);
    return 'error';
  }
  if (!pointsBack(content, vs)) {
    await snapshotError(deps, vs, true, 'SnapshotContentMisbound', `VolumeSnapshotContent [${name}] is bound to a different snapshot`);
    return 'error';
  }
  return content;
}

async function bindPreProvisioned(deps: SnapshotDeps, vs: VolumeSnapshot, content: VolumeSnapshotContent | undefined): Promise<SyncResult> {
  if (!content) return DONE;
  let bound = content;
  const className = vs.spec.volumeSnapshotClassName;
  if (!content.spec.volumeSnapshotRef.uid || (className !== undefined && content.spec.volumeSnapshotClassName !== className)) {
    const spec = { ...content.spec, volumeSnapshotRef: { ...content.spec.volumeSnapshotRef, uid: vs.metadata.uid } };
    if (className !== undefined) spec.volumeSnapshotClassName = className;
    try {
      bound = await deps.api.updateContent({ ...content, spec });
      deps.log.info({ snapshot: snapshotKey(vs), content: content.metadata.name }, 'bound pre-provisioned content');
    } catch (err) {
      // A conflict is not a failure to report: the next sync decides on the newest copy.
      if (isConflict(err)) return retry('content changed');
      await snapshotError(deps, vs, true, 'SnapshotBindFailed', `Snapshot failed to bind VolumeSnapshotContent, ${(err as Error).message}`);
      return retry('bind content');
    }
  }
  return copyStatus(deps, vs, bound);
}

async function bindDynamic(deps: SnapshotDeps, vs: VolumeSnapshot, content: VolumeSnapshotContent): Promise<SyncResult> {
  const bound = vs.status?.boundVolumeSnapshotContentName;
  if (bound && bound !== content.metadata.name) {
    await snapshotError(deps, vs, true, 'SnapshotMisbound', 'VolumeSnapshotContent is not bound to the VolumeSnapshot correctly');
    return DONE;
  }
  return copyStatus(deps, vs, content);
}

async function copyStatus(deps: SnapshotDeps, vs: VolumeSnapshot, content: VolumeSnapshotContent): Promise<SyncResult> {
  try {
    await updateStatusFromContent(deps, vs, content);
    return DONE;
  } catch (err) {
    if (isConflict(err)) return retry('snapshot changed');
    await snapshotError(deps, vs, false, 'SnapshotStatusUpdateFailed', `Snapshot status update failed, ${(err as Error).message}`);
    return retry('snapshot status');
  }
}

/** A dynamic snapshot without its content yet: protect the source claim, then make the content. */
async function createContent(deps: SnapshotDeps, original: VolumeSnapshot): Promise<SyncResult> {
  let vs = original;
  let content: VolumeSnapshotContent;
  try {
    content = await buildContent(deps, vs);
  } catch (err) {
    if (isConflict(err)) return retry('source claim changed');
    const reason = err instanceof SnapshotInputError && /default snapshot class/.test(err.message) ? 'SetDefaultSnapshotClassFailed' : 'SnapshotContentCreationFailed';
    const message =
      reason === 'SetDefaultSnapshotClassFailed'
        ? `Failed to set default snapshot class with error ${(err as Error).message}`
        : `Failed to create snapshot content with error ${(err as Error).message}`;
    await snapshotError(deps, vs, reason === 'SnapshotContentCreationFailed', reason, message);
    return { kind: 'requeueAfter', ms: SNAPSHOT_RECHECK_MS };
  }
  if (vs.spec.volumeSnapshotClassName === undefined && content.spec.volumeSnapshotClassName !== undefined) {
    // As external-snapshotter's SetDefaultSnapshotClass: the default class chosen is written into
    // the snapshot's spec (kubectl's SNAPSHOTCLASS column), before its content is made.
    try {
      vs = await deps.api.updateSnapshot({ ...vs, spec: { ...vs.spec, volumeSnapshotClassName: content.spec.volumeSnapshotClassName } });
      deps.log.info({ snapshot: snapshotKey(vs), class: content.spec.volumeSnapshotClassName }, 'default snapshot class set');
    } catch (err) {
      if (isConflict(err)) return retry('snapshot changed');
      await snapshotError(deps, vs, false, 'SetDefaultSnapshotClassFailed', `Failed to set default snapshot class with error ${(err as Error).message}`);
      return retry('set default class');
    }
  }
  let saved: VolumeSnapshotContent;
  try {
    saved = await deps.api.createContent(content);
    deps.log.info({ snapshot: snapshotKey(vs), content: content.metadata.name, driver: content.spec.driver }, 'created snapshot content');
  } catch (err) {
    if (!isAlreadyExists(err)) {
      const msg = `Error creating volume snapshot content object for snapshot ${snapshotKey(vs)}: ${(err as Error).message}.`;
      deps.ctx.events.event(vs, 'Warning', 'CreateSnapshotContentFailed', msg);
      return retry('create content');
    }
    saved = (await deps.api.getContent(dynamicContentName(vs))) ?? content;
  }
  deps.ctx.events.event(vs, 'Normal', 'CreatingSnapshot', `Waiting for a snapshot ${snapshotKey(vs)} to be created by the CSI driver.`);
  if (!pointsBack(saved, vs)) return { kind: 'requeueAfter', ms: SNAPSHOT_RECHECK_MS };
  return copyStatus(deps, vs, saved);
}

/** The content a dynamic snapshot gets; throws with upstream's message when its input is not there. */
async function buildContent(deps: SnapshotDeps, vs: VolumeSnapshot): Promise<VolumeSnapshotContent> {
  const inputError = (e: unknown): Error =>
    new SnapshotInputError(`failed to get input parameters to create snapshot ${vs.metadata.name}: ${JSON.stringify((e as Error).message)}`);
  const { pvc, pv } = await sourceVolume(deps, vs).catch((e: unknown) => {
    throw inputError(e);
  });
  await ensureClaimFinalizer(deps, pvc);
  const driver = volumeDriver(pv, deps.plugins);
  if (!driver) throw inputError(new Error(`cannot find the driver of volume ${pv.metadata.name}`));
  const className = vs.spec.volumeSnapshotClassName;
  const cls = className ? deps.stores.classes.get(className) : defaultClassFor(deps, driver);
  if (!cls) throw inputError(new Error(`volumesnapshotclass.snapshot.storage.k8s.io "${className}" not found`));
  if (cls.driver !== driver) {
    throw inputError(new Error(`the snapshot class ${cls.metadata.name} is for driver ${cls.driver}, volume ${pv.metadata.name} is of driver ${driver}`));
  }
  return {
    apiVersion: SNAPSHOT_API_VERSION,
    kind: 'VolumeSnapshotContent',
    metadata: { name: dynamicContentName(vs), finalizers: [FINALIZER_SNAPSHOT_CONTENT_BOUND] },
    spec: {
      volumeSnapshotRef: {
        kind: 'VolumeSnapshot',
        apiVersion: SNAPSHOT_API_VERSION,
        name: vs.metadata.name,
        namespace: vs.metadata.namespace,
        uid: vs.metadata.uid,
        resourceVersion: vs.metadata.resourceVersion,
      },
      source: { volumeHandle: volumeHandle(pv) },
      volumeSnapshotClassName: cls.metadata.name,
      deletionPolicy: cls.deletionPolicy,
      driver: cls.driver,
      ...(pv.spec.volumeMode ? { sourceVolumeMode: pv.spec.volumeMode } : {}),
    },
  };
}

/** A snapshot being deleted: wait for restores, mark and (under Delete) delete its content, then let go. */
async function deleteSnapshot(deps: SnapshotDeps, vs: VolumeSnapshot): Promise<SyncResult> {
  if (!isDeletionCandidate(vs)) return DONE;
  const name = vs.status?.boundVolumeSnapshotContentName ?? (vs.spec.source.persistentVolumeClaimName ? dynamicContentName(vs) : '');
  const found = name ? deps.stores.contents.get(name) : undefined;
  let content = found && pointsBack(found, vs) ? found : undefined;
  const deleteContent = content?.spec.deletionPolicy === 'Delete';
  if (content && isRestoreSource(deps, vs)) {
    deps.ctx.events.event(vs, 'Warning', 'SnapshotDeletePending', 'Snapshot is being used to restore a PVC');
    return { kind: 'requeueAfter', ms: SNAPSHOT_RECHECK_MS };
  }
  if (content && content.metadata.annotations?.[ANN_SNAPSHOT_BEING_DELETED] !== 'yes') {
    content = await deps.api.updateContent({ ...content, metadata: { ...content.metadata, annotations: { ...content.metadata.annotations, [ANN_SNAPSHOT_BEING_DELETED]: 'yes' } } });
  }
  if (content && deleteContent && !content.metadata.deletionTimestamp) {
    try {
      await deps.api.deleteContent(content.metadata.name ?? '', content.metadata.uid);
      deps.log.info({ snapshot: snapshotKey(vs), content: content.metadata.name }, 'deleting content: its deletionPolicy is Delete');
    } catch (err) {
      deps.ctx.events.event(vs, 'Warning', 'SnapshotContentObjectDeleteError', 'Failed to delete snapshot content API object');
      return retry(`delete content: ${(err as Error).message}`);
    }
  }
  await releaseSourceClaim(deps, vs, true);
  const remove = [FINALIZER_SNAPSHOT_AS_SOURCE, ...(content && deleteContent ? [] : [FINALIZER_SNAPSHOT_BOUND])];
  if (remove.some((f) => vs.metadata.finalizers?.includes(f))) {
    await deps.api.updateSnapshot(withFinalizers(vs, [], remove));
    deps.log.info({ snapshot: snapshotKey(vs), removed: remove }, 'snapshot finalizers removed');
  }
  return DONE;
}
