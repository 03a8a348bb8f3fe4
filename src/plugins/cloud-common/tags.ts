/**
 * The marks every cloud disk carries so a person can find it from the cloud console and the
 * controller can tell its own disks from anybody else's: the claim and PV it was made for, the
 * backing name, and the owning cluster.
 */
import {
  TAG_AWS_NAME,
  TAG_CLUSTER_OWNED,
  TAG_CLUSTER_PREFIX,
  TAG_CREATED_FOR_PVC_NAME,
  TAG_CREATED_FOR_PVC_NAMESPACE,
  TAG_CREATED_FOR_PV_NAME,
  TAG_CREATED_FOR_SNAPSHOT_CONTENT_NAME,
  TAG_CREATED_FOR_SNAPSHOT_NAME,
  TAG_CREATED_FOR_SNAPSHOT_NAMESPACE,
} from '@pv-controller/kube/annotations.js';
import { isBackingNameOfCluster } from '../naming.js';
import type { ProvisionRequest } from '../api/core.js';
import type { SnapshotRequest } from '../api/capabilities/snapshot.js';
import type { BackingVolume } from '../api/capabilities/backing-volumes.js';

export type Tags = Record<string, string>;

/** `kubernetes.io/cluster/<cluster-name>`. */
export function clusterTagKey(clusterName: string): string {
  return `${TAG_CLUSTER_PREFIX}${clusterName}`;
}

/**
 * The three created-for tags, the cluster tag and `Name` = backing name, laid over `fromClaim`
 * (the admin's annotation allow-list, annotation-tags.ts): ours always win.
 */
export function volumeTags(req: ProvisionRequest, fromClaim: Tags = {}): Tags {
  return {
    ...fromClaim,
    [TAG_AWS_NAME]: req.backingName,
    [TAG_CREATED_FOR_PVC_NAMESPACE]: req.claim.namespace,
    [TAG_CREATED_FOR_PVC_NAME]: req.claim.name,
    [TAG_CREATED_FOR_PV_NAME]: req.pvName,
    [clusterTagKey(req.clusterName)]: TAG_CLUSTER_OWNED,
  };
}

/** A snapshot's marks: `Name` = its snapshot name, the VolumeSnapshot and content it was cut for, the cluster tag. */
export function snapshotTags(req: SnapshotRequest): Tags {
  return {
    [TAG_AWS_NAME]: req.snapshotName,
    [TAG_CREATED_FOR_SNAPSHOT_NAMESPACE]: req.snapshot.namespace,
    [TAG_CREATED_FOR_SNAPSHOT_NAME]: req.snapshot.name,
    [TAG_CREATED_FOR_SNAPSHOT_CONTENT_NAME]: req.snapshot.contentName,
    [clusterTagKey(req.clusterName)]: TAG_CLUSTER_OWNED,
  };
}

/** Whether a disk's tags mark it as made by this cluster. */
export function isOwnedByCluster(tags: Tags, clusterName: string): boolean {
  return tags[clusterTagKey(clusterName)] === TAG_CLUSTER_OWNED;
}

/**
 * Whether a disk's tags mark it as made by the cluster `backingName` was made for: the disks a
 * delete without a PV (a claim deleted mid-provision) may remove, whichever cluster names them.
 */
export function isOwnedForBackingName(tags: Tags, backingName: string): boolean {
  return Object.entries(tags).some(
    ([key, value]) =>
      key.startsWith(TAG_CLUSTER_PREFIX) &&
      value === TAG_CLUSTER_OWNED &&
      isBackingNameOfCluster(backingName, key.slice(TAG_CLUSTER_PREFIX.length)),
  );
}

/** The tags of `wanted` that `actual` lacks or carries with another value. */
export function missingTags(actual: Tags, wanted: Tags): Tags {
  const missing: Tags = {};
  for (const [key, value] of Object.entries(wanted)) {
    if (actual[key] !== value) missing[key] = value;
  }
  return missing;
}

/** A BackingVolume record from a disk's id, name and tags. */
export function backingVolumeOf(id: string, backingName: string, tags: Tags): BackingVolume {
  const volume: BackingVolume = { backingName, id };
  if (tags[TAG_CREATED_FOR_PV_NAME] !== undefined) volume.pvName = tags[TAG_CREATED_FOR_PV_NAME];
  if (tags[TAG_CREATED_FOR_PVC_NAMESPACE] !== undefined) {
    volume.claimNamespace = tags[TAG_CREATED_FOR_PVC_NAMESPACE];
  }
  if (tags[TAG_CREATED_FOR_PVC_NAME] !== undefined) volume.claimName = tags[TAG_CREATED_FOR_PVC_NAME];
  return volume;
}

/** Parses the `true`/`false` spellings Go's strconv.ParseBool accepts; undefined otherwise. */
export function parseGoBool(value: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}
