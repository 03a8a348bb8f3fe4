/**
 * What `up` creates in a fresh cluster so a newcomer's first claim binds and first snapshot is
 * cut: a default StorageClass and a default VolumeSnapshotClass for the same driver. Done through
 * the API like any client, and only if absent, so an operator's own changes are never overwritten.
 */
import { CustomObjectsApi, StorageV1Api, type KubeConfig } from '@kubernetes/client-node';
import { ANN_DEFAULT_STORAGE_CLASS } from '@pv-controller/kube/annotations.js';
import { isAlreadyExists, isNotFound } from '@pv-controller/kube/errors.js';
import {
  ANN_DEFAULT_SNAPSHOT_CLASS,
  SNAPSHOT_API_VERSION,
  SNAPSHOT_GROUP,
  SNAPSHOT_RESOURCES,
  SNAPSHOT_VERSION,
  type VolumeSnapshotClass,
} from '@pv-controller/kube/snapshot-types.js';

export interface DefaultClassSpec {
  name: string;
  provisioner: string;
  reclaimPolicy?: 'Delete' | 'Retain';
}

/** Creates the class as the default unless a class of that name exists; returns whether it created it. */
export async function ensureDefaultStorageClass(kc: KubeConfig, spec: DefaultClassSpec): Promise<boolean> {
  const storage = kc.makeApiClient(StorageV1Api);
  try {
    await storage.readStorageClass({ name: spec.name });
    return false;
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  try {
    await storage.createStorageClass({
      body: {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: { name: spec.name, annotations: { [ANN_DEFAULT_STORAGE_CLASS]: 'true' } },
        provisioner: spec.provisioner,
        reclaimPolicy: spec.reclaimPolicy ?? 'Delete',
        volumeBindingMode: 'Immediate',
      },
    });
    return true;
  } catch (err) {
    if (isAlreadyExists(err)) return false;
    throw err;
  }
}

export interface DefaultSnapshotClassSpec {
  name: string;
  driver: string;
  deletionPolicy?: 'Delete' | 'Retain';
}

/**
 * Creates the VolumeSnapshotClass as its driver's default unless one of that name exists; returns
 * whether it created it. A VolumeSnapshot that names no class gets its driver's default.
 */
export async function ensureDefaultSnapshotClass(kc: KubeConfig, spec: DefaultSnapshotClassSpec): Promise<boolean> {
  const objects = kc.makeApiClient(CustomObjectsApi);
  const where = { group: SNAPSHOT_GROUP, version: SNAPSHOT_VERSION, plural: SNAPSHOT_RESOURCES.classes };
  try {
    await objects.getClusterCustomObject({ ...where, name: spec.name });
    return false;
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  const body: VolumeSnapshotClass = {
    apiVersion: SNAPSHOT_API_VERSION,
    kind: 'VolumeSnapshotClass',
    metadata: { name: spec.name, annotations: { [ANN_DEFAULT_SNAPSHOT_CLASS]: 'true' } },
    driver: spec.driver,
    deletionPolicy: spec.deletionPolicy ?? 'Delete',
  };
  try {
    await objects.createClusterCustomObject({ ...where, body });
    return true;
  } catch (err) {
    if (isAlreadyExists(err)) return false;
    throw err;
  }
}
