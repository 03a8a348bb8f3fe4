/**
 * The finalizers the common controller keeps: on a VolumeSnapshot (as-source while a claim may be
 * restored from it, bound while its content's deletionPolicy is Delete), on its source claim
 * (pvc-as-source while the snapshot is being cut) and on a content (bound-protection).
 */
import { isNotFound } from '@pv-controller/kube/errors.js';
import {
  FINALIZER_PVC_AS_SNAPSHOT_SOURCE,
  FINALIZER_SNAPSHOT_AS_SOURCE,
  FINALIZER_SNAPSHOT_BOUND,
  FINALIZER_SNAPSHOT_CONTENT_BOUND,
  SNAPSHOT_GROUP,
  type VolumeSnapshot,
  type VolumeSnapshotContent,
} from '@pv-controller/kube/snapshot-types.js';
import type { KubeObject, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import type { SnapshotDeps } from './deps.js';
import { snapshotKey } from './source.js';

export const hasFinalizer = (obj: KubeObject, f: string): boolean => obj.metadata.finalizers?.includes(f) ?? false;

export function withFinalizers<T extends KubeObject>(obj: T, add: string[], remove: string[] = []): T {
  const kept = (obj.metadata.finalizers ?? []).filter((f) => !remove.includes(f));
  for (const f of add) if (!kept.includes(f)) kept.push(f);
  return { ...obj, metadata: { ...obj.metadata, finalizers: kept } };
}

/** A snapshot being deleted that still holds one of the common controller's finalizers. */
export const isDeletionCandidate = (vs: VolumeSnapshot): boolean =>
  vs.metadata.deletionTimestamp !== undefined && (hasFinalizer(vs, FINALIZER_SNAPSHOT_AS_SOURCE) || hasFinalizer(vs, FINALIZER_SNAPSHOT_BOUND));

/** Whether the content was made for (or bound to) exactly this snapshot. */
export function pointsBack(content: VolumeSnapshotContent, vs: VolumeSnapshot): boolean {
  const ref = content.spec.volumeSnapshotRef;
  return ref.name === vs.metadata.name && ref.namespace === vs.metadata.namespace && ref.uid === vs.metadata.uid;
}

/** Adds the snapshot finalizers it lacks: as-source always, bound when its content's policy is Delete. */
export async function ensureSnapshotFinalizers(deps: SnapshotDeps, vs: VolumeSnapshot, content: VolumeSnapshotContent | undefined): Promise<VolumeSnapshot> {
  const add: string[] = [];
  if (!hasFinalizer(vs, FINALIZER_SNAPSHOT_AS_SOURCE)) add.push(FINALIZER_SNAPSHOT_AS_SOURCE);
  if (content?.spec.deletionPolicy === 'Delete' && !hasFinalizer(vs, FINALIZER_SNAPSHOT_BOUND)) add.push(FINALIZER_SNAPSHOT_BOUND);
  if (add.length === 0) return vs;
  deps.log.info({ snapshot: snapshotKey(vs), add }, 'adding snapshot finalizers');
  return deps.api.updateSnapshot(withFinalizers(vs, add));
}

/** Adds bound-protection to a bound content that lacks it (and is not being deleted). */
export async function ensureContentFinalizer(deps: SnapshotDeps, content: VolumeSnapshotContent): Promise<VolumeSnapshotContent> {
  if (content.metadata.deletionTimestamp || hasFinalizer(content, FINALIZER_SNAPSHOT_CONTENT_BOUND)) return content;
  deps.log.info({ content: content.metadata.name }, 'adding content finalizer');
  return deps.api.updateContent(withFinalizers(content, [FINALIZER_SNAPSHOT_CONTENT_BOUND]));
}

/** pvc-as-source on the source claim before its content is made; a claim being deleted gets none. */
export async function ensureClaimFinalizer(deps: SnapshotDeps, pvc: PersistentVolumeClaim): Promise<void> {
  if (hasFinalizer(pvc, FINALIZER_PVC_AS_SNAPSHOT_SOURCE)) return;
  if (pvc.metadata.deletionTimestamp) {
    throw new Error(`snapshot controller failed to update ${pvc.metadata.name} on API server: cannot add finalizer on claim because it is being deleted`);
  }
  await deps.ctx.api.updateClaim(withFinalizers(pvc, [FINALIZER_PVC_AS_SNAPSHOT_SOURCE]));
  deps.log.info({ claim: `${pvc.metadata.namespace}/${pvc.metadata.name}` }, 'added pvc-as-source finalizer');
}

/**
 * Takes pvc-as-source off the snapshot's source claim once no snapshot of it (but this one, when
 * `skipSelf`) is still being cut. Read live, so a finalizer another writer just changed is seen.
 */
export async function releaseSourceClaim(deps: SnapshotDeps, vs: VolumeSnapshot, skipSelf: boolean): Promise<void> {
  const name = vs.spec.source.persistentVolumeClaimName;
  if (!name) return;
  await releaseClaimIfNotSource(deps, vs.metadata.namespace ?? '', name, skipSelf ? vs.metadata.name : undefined);
}

/**
 * Takes pvc-as-source off claim `ns/name` when no snapshot of it (but `skipSnapshot`) is still
 * being cut — as external-snapshotter's claim worker does on every claim change. This is what
 * frees a claim whose finalizer was added by a controller killed before it took it off again,
 * once that snapshot is gone: no snapshot is left to sync, only the claim.
 */
export async function releaseClaimIfNotSource(deps: SnapshotDeps, ns: string, name: string, skipSnapshot?: string): Promise<void> {
  const cached = deps.ctx.claims.get(`${ns}/${name}`);
  if (!cached || !hasFinalizer(cached, FINALIZER_PVC_AS_SNAPSHOT_SOURCE)) return;
  const inUse = deps.stores.snapshots
    .list()
    .some((s) => s.metadata.namespace === ns && s.spec.source.persistentVolumeClaimName === name && s.status?.readyToUse !== true && s.metadata.name !== skipSnapshot);
  if (inUse) return;
  const live = await deps.ctx.api.getClaim(ns, name);
  if (!live || !hasFinalizer(live, FINALIZER_PVC_AS_SNAPSHOT_SOURCE)) return;
  try {
    await deps.ctx.api.updateClaim(withFinalizers(live, [], [FINALIZER_PVC_AS_SNAPSHOT_SOURCE]));
    deps.log.info({ claim: `${ns}/${name}` }, 'removed pvc-as-source finalizer: no snapshot of it is being cut');
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

/** A Pending claim of the snapshot's namespace restoring from it (dataSource or dataSourceRef). */
export function isRestoreSource(deps: SnapshotDeps, vs: VolumeSnapshot): boolean {
  return deps.ctx.claims.list().some((pvc) => {
    if (pvc.metadata.namespace !== vs.metadata.namespace || (pvc.status?.phase ?? 'Pending') !== 'Pending') return false;
    return [pvc.spec.dataSource, pvc.spec.dataSourceRef].some(
      (src) => src?.kind === 'VolumeSnapshot' && src.apiGroup === SNAPSHOT_GROUP && src.name === vs.metadata.name,
    );
  });
}
