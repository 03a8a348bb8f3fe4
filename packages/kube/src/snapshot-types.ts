/**
 * snapshot.storage.k8s.io/v1: VolumeSnapshot, VolumeSnapshotContent, VolumeSnapshotClass, as they
 * travel over the wire (the kinds external-snapshotter's CRDs define; on a real cluster they are
 * custom resources, on the embedded server they are served from the same CRD definitions). Plain
 * JSON, like types.ts: only the fields the project reads or writes are typed.
 *
 * The names below (finalizers, annotations, event reasons) are external-snapshotter v8's, so a
 * cluster that ran its snapshot-controller before ours reads the same.
 */
import type { KubeObject, ObjectReference, PersistentVolumeMode } from './types.js';

export const SNAPSHOT_GROUP = 'snapshot.storage.k8s.io';
export const SNAPSHOT_VERSION = 'v1';
export const SNAPSHOT_API_VERSION = `${SNAPSHOT_GROUP}/${SNAPSHOT_VERSION}`;
/** The plural resource names, as a URL path segment names them. */
export const SNAPSHOT_RESOURCES = {
  snapshots: 'volumesnapshots',
  contents: 'volumesnapshotcontents',
  classes: 'volumesnapshotclasses',
} as const;

export type SnapshotDeletionPolicy = 'Delete' | 'Retain';

export interface VolumeSnapshotError {
  /** RFC 3339. */
  time?: string;
  message?: string;
}

export interface VolumeSnapshotSpec {
  /** Exactly one of the two: a claim to snapshot (dynamic) or a content to bind (pre-provisioned). */
  source: { persistentVolumeClaimName?: string; volumeSnapshotContentName?: string };
  volumeSnapshotClassName?: string;
}

export interface VolumeSnapshotStatus {
  boundVolumeSnapshotContentName?: string;
  /** RFC 3339. */
  creationTime?: string;
  readyToUse?: boolean;
  /** A Quantity string. */
  restoreSize?: string;
  error?: VolumeSnapshotError;
  volumeGroupSnapshotName?: string;
}

export interface VolumeSnapshot extends KubeObject {
  spec: VolumeSnapshotSpec;
  status?: VolumeSnapshotStatus;
}

export interface VolumeSnapshotContentSpec {
  /** The VolumeSnapshot this content is (to be) bound to: name, namespace and, once bound, uid. */
  volumeSnapshotRef: ObjectReference;
  deletionPolicy: SnapshotDeletionPolicy | string;
  driver: string;
  volumeSnapshotClassName?: string;
  /** Exactly one of the two: the volume to cut a snapshot of (dynamic) or an existing snapshot (pre-provisioned). */
  source: { volumeHandle?: string; snapshotHandle?: string };
  sourceVolumeMode?: PersistentVolumeMode | string;
}

export interface VolumeSnapshotContentStatus {
  snapshotHandle?: string;
  /** Nanoseconds since the epoch (int64 on the wire; as a JS number it keeps about a quarter microsecond, plenty for a creation time). */
  creationTime?: number;
  /** Bytes (int64 on the wire). */
  restoreSize?: number;
  readyToUse?: boolean;
  error?: VolumeSnapshotError;
  volumeGroupSnapshotHandle?: string;
}

export interface VolumeSnapshotContent extends KubeObject {
  spec: VolumeSnapshotContentSpec;
  status?: VolumeSnapshotContentStatus;
}

export interface VolumeSnapshotClass extends KubeObject {
  driver: string;
  parameters?: Record<string, string>;
  deletionPolicy: SnapshotDeletionPolicy | string;
}

/** On a VolumeSnapshotContent until its VolumeSnapshot lets go of it (external-snapshotter's name). */
export const FINALIZER_SNAPSHOT_CONTENT_BOUND = 'snapshot.storage.kubernetes.io/volumesnapshotcontent-bound-protection';
/** On a VolumeSnapshot bound to a content, so the content's deletionPolicy is carried out first. */
export const FINALIZER_SNAPSHOT_BOUND = 'snapshot.storage.kubernetes.io/volumesnapshot-bound-protection';
/** On a VolumeSnapshot while a claim is being restored from it. */
export const FINALIZER_SNAPSHOT_AS_SOURCE = 'snapshot.storage.kubernetes.io/volumesnapshot-as-source-protection';
/** On a claim while a snapshot of it is being cut. */
export const FINALIZER_PVC_AS_SNAPSHOT_SOURCE = 'snapshot.storage.kubernetes.io/pvc-as-source-protection';
/** On a claim while a clone of it is being provisioned (external-provisioner's name). */
export const FINALIZER_CLONING_PROTECTION = 'provisioner.storage.kubernetes.io/cloning-protection';

/** A VolumeSnapshotClass that names it "true" is its driver's default. */
export const ANN_DEFAULT_SNAPSHOT_CLASS = 'snapshot.storage.kubernetes.io/is-default-class';
/** On a content whose backend snapshot is being cut: it may exist on the backend even without a handle. */
export const ANN_SNAPSHOT_BEING_CREATED = 'snapshot.storage.kubernetes.io/volumesnapshot-being-created';
/** On a content whose VolumeSnapshot is being deleted: the backend snapshot may be deleted. */
export const ANN_SNAPSHOT_BEING_DELETED = 'snapshot.storage.kubernetes.io/volumesnapshot-being-deleted';
export const ANN_SNAPSHOT_DELETION_SECRET_NAME = 'snapshot.storage.kubernetes.io/deletion-secret-name';
export const ANN_SNAPSHOT_DELETION_SECRET_NAMESPACE = 'snapshot.storage.kubernetes.io/deletion-secret-namespace';
/** KEP-3141: on a content, lets a claim restored from it have another volumeMode than its source. */
export const ANN_ALLOW_VOLUME_MODE_CHANGE = 'snapshot.storage.kubernetes.io/allow-volume-mode-change';
/**
 * Ours: on a VolumeSnapshotContent this controller cut, an HMAC of driver, snapshot handle and
 * content name under the provenance key (as `pv-controller.io/csi-provenance` on PVs). A content
 * without a valid one is never the proof for deleting a backend snapshot that this controller
 * took; a pre-provisioned content's handle is deleted only under its own deletionPolicy, and only
 * inside the plugin's snapshot roots.
 */
export const ANN_SNAPSHOT_PROVENANCE = 'pv-controller.io/snapshot-provenance';

/** Prefixes of the names upstream gives what it creates (`snapcontent-<VolumeSnapshot uid>`, `snapshot-<uid>`). */
export const SNAPSHOT_CONTENT_NAME_PREFIX = 'snapcontent-';
export const SNAPSHOT_BACKEND_NAME_PREFIX = 'snapshot-';

/** CSI CreateSnapshot parameters (external-snapshotter's --extra-create-metadata). */
export const CSI_PARAM_SNAPSHOT_NAME = 'csi.storage.k8s.io/volumesnapshot/name';
export const CSI_PARAM_SNAPSHOT_NAMESPACE = 'csi.storage.k8s.io/volumesnapshot/namespace';
export const CSI_PARAM_SNAPSHOT_CONTENT_NAME = 'csi.storage.k8s.io/volumesnapshotcontent/name';
/**
 * The VolumeSnapshotClass keys naming the Secret of CreateSnapshot / DeleteSnapshot and of
 * ListSnapshots (templates: `${volumesnapshotcontent.name}`, `${volumesnapshot.namespace}`, and in
 * a name also `${volumesnapshot.name}`), as csi-snapshotter v8 reads them.
 */
export const CSI_PARAM_SNAPSHOTTER_SECRET_NAME = 'csi.storage.k8s.io/snapshotter-secret-name';
export const CSI_PARAM_SNAPSHOTTER_SECRET_NAMESPACE = 'csi.storage.k8s.io/snapshotter-secret-namespace';
export const CSI_PARAM_SNAPSHOTTER_LIST_SECRET_NAME = 'csi.storage.k8s.io/snapshotter-list-secret-name';
export const CSI_PARAM_SNAPSHOTTER_LIST_SECRET_NAMESPACE = 'csi.storage.k8s.io/snapshotter-list-secret-namespace';
/** The group-snapshot Secret keys: a VolumeSnapshotClass may carry them; they are stripped, never sent. */
export const CSI_PARAM_GROUP_SNAPSHOTTER_SECRET_KEYS = [
  'csi.storage.k8s.io/group-snapshotter-secret-name',
  'csi.storage.k8s.io/group-snapshotter-secret-namespace',
  'csi.storage.k8s.io/group-snapshotter-get-secret-name',
  'csi.storage.k8s.io/group-snapshotter-get-secret-namespace',
] as const;
