/**
 * What `up` creates in a fresh cluster so a newcomer's first claim binds: a default
 * StorageClass. Done through the API like any client, and only if absent, so an operator's
 * own changes to it are never overwritten.
 */
import { StorageV1Api, type KubeConfig } from '@kubernetes/client-node';
import { ANN_DEFAULT_STORAGE_CLASS } from '@pv-controller/kube/annotations.js';
import { isAlreadyExists, isNotFound } from '@pv-controller/kube/errors.js';

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
