/**
 * Restore: the VolumeSnapshot a claim names and the VolumeSnapshotContent it is bound to, read
 * live (the newest copies, never a cache: a snapshot deleted or rebound a moment ago must not be
 * restored), and external-provisioner's getSnapshotSource checks on them — bound both ways, the
 * class's driver, ready, big enough, and the volume-mode-conversion guard of KEP-3141.
 */
import { Quantity } from '@pv-controller/kube/quantity.js';
import {
  ANN_ALLOW_VOLUME_MODE_CHANGE,
  FINALIZER_SNAPSHOT_AS_SOURCE,
  SNAPSHOT_API_VERSION,
  SNAPSHOT_RESOURCES,
  type VolumeSnapshot,
  type VolumeSnapshotContent,
} from '@pv-controller/kube/snapshot-types.js';
import type { PersistentVolumeClaim, StorageClass } from '@pv-controller/kube/types.js';
import { claimRequestBytes } from '@pv-controller/kube/volume-helpers.js';
import type { SnapshotSource } from '../../plugins/api/capabilities/snapshot.js';
import type { VolumePlugin } from '../../plugins/api/core.js';
import { getOrUndefined, type ModuleRest } from '../runtime/rest-get.js';
import * as m from './data-source-messages.js';
import { errorText } from './events.js';

/** A source the claim may be provisioned from, or why not; `waiting` when time alone may fix it. */
export type SourceCheck<T> = { ok: true; value: T } | { ok: false; message: string; waiting?: boolean };

export interface SnapshotObjects {
  snapshot: VolumeSnapshot;
  content: VolumeSnapshotContent;
}

const refuse = (message: string, waiting = false): { ok: false; message: string; waiting?: boolean } =>
  waiting ? { ok: false, message, waiting } : { ok: false, message };

const snapshotPath = (ns: string, name: string): string =>
  `/apis/${SNAPSHOT_API_VERSION}/namespaces/${encodeURIComponent(ns)}/${SNAPSHOT_RESOURCES.snapshots}/${encodeURIComponent(name)}`;
const contentPath = (name: string): string => `/apis/${SNAPSHOT_API_VERSION}/${SNAPSHOT_RESOURCES.contents}/${encodeURIComponent(name)}`;

/** The VolumeSnapshot `name` in `namespace` and its bound content, read live; a refusal when either cannot be had. */
export async function readSnapshotObjects(rest: ModuleRest | undefined, namespace: string, name: string): Promise<SourceCheck<SnapshotObjects>> {
  if (!rest) return refuse(m.msgNoSnapshotAccess(name));
  let snapshot: VolumeSnapshot | undefined;
  try {
    snapshot = await getOrUndefined<VolumeSnapshot>(rest, snapshotPath(namespace, name));
  } catch (err) {
    return refuse(m.msgSnapshotGetFailed(name, errorText(err)));
  }
  if (!snapshot) return refuse(m.msgSnapshotNotFound(name));
  // A deleted snapshot is restored only by a claim that began before the deletion: the snapshot
  // controller keeps the as-source finalizer on it for such claims (upstream's rule). Refusing
  // those would leave the claim and the snapshot waiting for each other.
  if (snapshot.metadata.deletionTimestamp && !(snapshot.metadata.finalizers ?? []).includes(FINALIZER_SNAPSHOT_AS_SOURCE)) {
    return refuse(m.msgSnapshotDeleting(name));
  }
  const contentName = snapshot.status?.boundVolumeSnapshotContentName ?? '';
  if (contentName === '') return refuse(m.msgSnapshotNotBound(name), true);
  let content: VolumeSnapshotContent | undefined;
  try {
    content = await getOrUndefined<VolumeSnapshotContent>(rest, contentPath(contentName));
  } catch {
    content = undefined;
  }
  if (!content) return refuse(m.msgContentGetFailed(contentName, name));
  return { ok: true, value: { snapshot, content } };
}

/** Bytes a volume restored from the snapshot needs: the snapshot's restoreSize, else its content's. */
function restoreSizeOf({ snapshot, content }: SnapshotObjects): bigint | undefined {
  const quantity = snapshot.status?.restoreSize;
  if (quantity !== undefined && quantity !== null && quantity !== '') {
    try {
      return Quantity.parse(quantity).toBytes();
    } catch {
      // Not a quantity: fall back to the content's number.
    }
  }
  const bytes = content.status?.restoreSize;
  return typeof bytes === 'number' && Number.isSafeInteger(bytes) && bytes >= 0 ? BigInt(bytes) : undefined;
}

/** What the plugin is handed (and the request's contentSource), from the objects as read. */
export function snapshotSourceOf(objects: SnapshotObjects): SnapshotSource | undefined {
  const snapshotId = objects.content.status?.snapshotHandle ?? '';
  if (snapshotId === '') return undefined;
  const source: SnapshotSource = { snapshotId };
  const restoreSize = restoreSizeOf(objects);
  if (restoreSize !== undefined) source.restoreSize = restoreSize;
  const mode = objects.content.spec.sourceVolumeMode;
  if (mode === 'Filesystem' || mode === 'Block') source.sourceVolumeMode = mode;
  return source;
}

/** Go's strconv.ParseBool. */
function parseGoBool(value: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

/** KEP-3141: another volumeMode than the snapshot's source only when the content allows it. */
function volumeModeProblem(claim: PersistentVolumeClaim, content: VolumeSnapshotContent): string | undefined {
  const sourceMode = content.spec.sourceVolumeMode ?? '';
  const wanted = claim.spec.volumeMode || 'Filesystem';
  if (sourceMode === '' || sourceMode === wanted) return undefined;
  const claimKey = `${claim.metadata.namespace ?? ''}/${claim.metadata.name ?? ''}`;
  const contentName = content.metadata.name ?? '';
  const allowed = content.metadata.annotations?.[ANN_ALLOW_VOLUME_MODE_CHANGE];
  if (allowed === undefined) return m.msgModeChangeNotAllowed(claimKey, contentName);
  const parsed = parseGoBool(allowed);
  if (parsed === undefined) return m.msgModeChangeUnparsable(claimKey, allowed);
  return parsed ? undefined : m.msgModeChangeFalse(claimKey, contentName);
}

/** Whether a content made by `driver` can be restored by `plugin` serving `storageClass`. */
function servesDriver(driver: string, storageClass: StorageClass, plugin: VolumePlugin): boolean {
  return driver === storageClass.provisioner || driver === plugin.name || (plugin.csiDriver !== undefined && driver === plugin.csiDriver);
}

/** external-provisioner's checks of a snapshot a claim is restored from, on the objects as read. */
export function checkRestore(
  claim: PersistentVolumeClaim,
  storageClass: StorageClass,
  plugin: VolumePlugin,
  objects: SnapshotObjects,
): SourceCheck<SnapshotSource> {
  const { snapshot, content } = objects;
  const name = snapshot.metadata.name ?? '';
  const contentName = content.metadata.name ?? '';
  const ref = content.spec.volumeSnapshotRef;
  if (ref.uid !== snapshot.metadata.uid || ref.namespace !== snapshot.metadata.namespace || ref.name !== name) {
    return refuse(m.msgContentBoundElsewhere(contentName, name));
  }
  if (!servesDriver(content.spec.driver, storageClass, plugin)) {
    return refuse(m.msgContentOtherDriver(contentName, name, storageClass.metadata.name ?? ''));
  }
  if (snapshot.status?.readyToUse !== true) return refuse(m.msgSnapshotNotReady(name), true);
  const source = snapshotSourceOf(objects);
  if (!source) return refuse(m.msgSnapshotNoHandle(name), true);
  const requested = claimRequestBytes(claim);
  if (source.restoreSize !== undefined && requested < source.restoreSize) {
    return refuse(m.msgRestoreTooSmall(requested, source.restoreSize, name));
  }
  const modeProblem = volumeModeProblem(claim, content);
  if (modeProblem !== undefined) return refuse(modeProblem);
  return { ok: true, value: source };
}
