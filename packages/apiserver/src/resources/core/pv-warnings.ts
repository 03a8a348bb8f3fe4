/**
 * The warnings kube-apiserver returns for a PersistentVolume it accepts (GetWarningsForPersistentVolume
 * in pkg/api/persistentvolume): deprecated annotations, the Recycle policy, and volume plugins that
 * are deprecated or no longer work.
 */
import type { KubeObject } from '@pv-controller/kube/types.js';

const DEPRECATED_ANNOTATIONS: [string, string][] = [
  ['volume.beta.kubernetes.io/storage-class', 'deprecated since v1.8; use "storageClassName" attribute instead'],
  ['volume.beta.kubernetes.io/mount-options', 'deprecated since v1.31; use "mountOptions" attribute instead'],
];

const DEPRECATED_SOURCES: [string, string][] = [
  ['cephfs', 'deprecated in v1.28, non-functional in v1.31+'],
  ['photonPersistentDisk', 'deprecated in v1.11, non-functional in v1.16+'],
  ['scaleIO', 'deprecated in v1.16, non-functional in v1.22+'],
  ['storageOS', 'deprecated in v1.22, non-functional in v1.25+'],
  ['glusterfs', 'deprecated in v1.25, non-functional in v1.26+'],
  ['rbd', 'deprecated in v1.28, non-functional in v1.31+'],
];

export function persistentVolumeWarnings(pv: KubeObject): string[] {
  const warnings: string[] = [];
  const annotations = pv.metadata.annotations ?? {};
  for (const [key, message] of DEPRECATED_ANNOTATIONS) {
    if (key in annotations) warnings.push(`metadata.annotations[${key}]: ${message}`);
  }
  const spec = (pv.spec ?? {}) as Record<string, unknown>;
  if (spec.persistentVolumeReclaimPolicy === 'Recycle') {
    warnings.push('spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.');
  }
  for (const [source, message] of DEPRECATED_SOURCES) if (spec[source] !== undefined) warnings.push(`spec.${source}: ${message}`);
  return warnings;
}
