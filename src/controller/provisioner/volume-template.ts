/**
 * The PV a provisioned volume is published as (upstream `provisionClaimOperation`): pre-bound to the
 * claim by uid so only that claim can ever take it, marked as ours, with the class's policy.
 */
import {
  ANN_BOUND_BY_CONTROLLER,
  ANN_PROVISIONED_BY,
  ANN_RELEASED_TTL,
  ANN_VALUE_YES,
  FINALIZER_PV_CONTROLLER,
} from '@pv-controller/kube/annotations.js';
import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '@pv-controller/kube/types.js';
import { claimRefFor, storageClassOfClaim } from '@pv-controller/kube/volume-helpers.js';
import type { ProvisionedVolume, ProvisionRequest, VolumePlugin } from '../../plugins/api/core.js';

export const DEFAULT_RECLAIM_POLICY = 'Delete';

export interface VolumeTemplateInput {
  claim: PersistentVolumeClaim;
  storageClass: StorageClass;
  plugin: VolumePlugin;
  request: ProvisionRequest;
  provisioned: ProvisionedVolume;
}

export function provisionedVolume({ claim, storageClass, plugin, request, provisioned }: VolumeTemplateInput): PersistentVolume {
  const policy = storageClass.reclaimPolicy ?? DEFAULT_RECLAIM_POLICY;
  const pv: PersistentVolume = {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: {
      name: request.pvName,
      // The plugin's own annotations (a CSI volume's deletion Secret) never replace the controller's.
      annotations: { ...(provisioned.annotations ?? {}), [ANN_PROVISIONED_BY]: plugin.name, [ANN_BOUND_BY_CONTROLLER]: ANN_VALUE_YES },
    },
    spec: {
      ...structuredClone(provisioned.source),
      capacity: { storage: provisioned.capacity },
      accessModes: [...request.accessModes],
      claimRef: claimRefFor(claim),
      persistentVolumeReclaimPolicy: policy,
      storageClassName: storageClassOfClaim(claim) ?? '',
      volumeMode: request.volumeMode,
    },
  };
  if (policy === 'Delete') pv.metadata.finalizers = [FINALIZER_PV_CONTROLLER];
  // The class's time to live for Released volumes (docs/lifecycle.md), checked when it is used.
  const ttl = storageClass.metadata.annotations?.[ANN_RELEASED_TTL];
  if (ttl !== undefined) pv.metadata.annotations = { ...pv.metadata.annotations, [ANN_RELEASED_TTL]: ttl };
  if (provisioned.labels && Object.keys(provisioned.labels).length > 0) pv.metadata.labels = { ...provisioned.labels };
  if (request.mountOptions.length > 0) pv.spec.mountOptions = [...request.mountOptions];
  if (provisioned.nodeAffinity) pv.spec.nodeAffinity = structuredClone(provisioned.nodeAffinity);
  if (request.attributes !== undefined && claim.spec.volumeAttributesClassName) {
    pv.spec.volumeAttributesClassName = claim.spec.volumeAttributesClassName;
  }
  return pv;
}
