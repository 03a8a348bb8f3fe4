/**
 * CSIDriver (storage.k8s.io/v1, cluster-scoped): how kube-scheduler and kubelet treat a
 * driver; a node agent publishes one named after its provisioner with `storageCapacity: true`.
 * Defaults, validation and immutability as kube-apiserver (its message names
 * `spec.attachedRequired`, sic).
 */
import type { KubeObject, StatusCause } from '@pv-controller/kube/types.js';
import { resourceInfo } from '../common.js';
import { immutable, notSupported } from '../../api/field-errors.js';
import { nameIsDNSSubdomain, validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';
import { AGE_COLUMN, age, column, NAME_COLUMN } from '../printing.js';
import type { ResourceStrategy } from '../strategy.js';

interface CSIDriverSpec {
  attachRequired?: boolean;
  podInfoOnMount?: boolean;
  volumeLifecycleModes?: string[];
  storageCapacity?: boolean;
  fsGroupPolicy?: string;
  tokenRequests?: Array<{ audience: string; expirationSeconds?: number }>;
  requiresRepublish?: boolean;
  seLinuxMount?: boolean;
  preventPodSchedulingIfMissing?: boolean;
}

interface CSIDriver extends KubeObject {
  spec?: CSIDriverSpec;
}

const DEFAULTS: Required<Omit<CSIDriverSpec, 'tokenRequests'>> = {
  attachRequired: true,
  podInfoOnMount: false,
  volumeLifecycleModes: ['Persistent'],
  storageCapacity: false,
  fsGroupPolicy: 'ReadWriteOnceWithFSType',
  requiresRepublish: false,
  seLinuxMount: false,
  preventPodSchedulingIfMissing: false,
};
const LIFECYCLE_MODES = ['Persistent', 'Ephemeral'];
const FS_GROUP_POLICIES = ['ReadWriteOnceWithFSType', 'File', 'None'];

function validateDriver(obj: KubeObject): StatusCause[] {
  const spec = (obj as CSIDriver).spec ?? {};
  const causes = validateObjectMeta(obj.metadata, false, nameIsDNSSubdomain);
  (spec.volumeLifecycleModes ?? []).forEach((mode, i) => {
    if (!LIFECYCLE_MODES.includes(mode)) causes.push(notSupported(`spec.volumeLifecycleModes[${i}]`, mode, LIFECYCLE_MODES));
  });
  if (spec.fsGroupPolicy !== undefined && !FS_GROUP_POLICIES.includes(spec.fsGroupPolicy)) {
    causes.push(notSupported('spec.fsGroupPolicy', spec.fsGroupPolicy, FS_GROUP_POLICIES));
  }
  return causes;
}

export const csiDriverStrategy: ResourceStrategy = {
  info: resourceInfo({ group: 'storage.k8s.io', version: 'v1', plural: 'csidrivers', kind: 'CSIDriver', namespaced: false, hasStatus: false }),
  defaults(obj) {
    const driver = obj as CSIDriver;
    driver.spec = { ...structuredClone(DEFAULTS), ...(driver.spec ?? {}) };
  },
  prepareForCreate() {},
  validateCreate: validateDriver,
  prepareForUpdate() {},
  validateUpdate(next, prev) {
    const causes = [...validateDriver(next), ...validateObjectMetaUpdate(next.metadata, prev.metadata)];
    const n = (next as CSIDriver).spec ?? {};
    const p = (prev as CSIDriver).spec ?? {};
    if (n.attachRequired !== p.attachRequired) causes.push(immutable('spec.attachedRequired', n.attachRequired));
    if (JSON.stringify(n.volumeLifecycleModes) !== JSON.stringify(p.volumeLifecycleModes)) causes.push(immutable('spec.volumeLifecycleModes', n.volumeLifecycleModes));
    return causes;
  },
  fields() {
    return {};
  },
  tableColumns: [
    NAME_COLUMN,
    column('AttachRequired', 'attachRequired indicates this CSI volume driver requires an attach operation.', { type: 'boolean' }),
    column('PodInfoOnMount', 'podInfoOnMount indicates this CSI volume driver requires additional pod information during mount operations.', { type: 'boolean' }),
    column('StorageCapacity', 'storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity that the driver deployment will report.', { type: 'boolean' }),
    column('TokenRequests', 'tokenRequests indicates the CSI driver needs pods\' service account tokens it is mounting volume for to do necessary authentication.'),
    column('RequiresRepublish', 'requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to reflect any possible change in the mounted volume.', { type: 'boolean' }),
    column('Modes', 'Modes'),
    AGE_COLUMN,
  ],
  tableRow(obj, now) {
    const spec = (obj as CSIDriver).spec ?? {};
    const tokens = spec.tokenRequests?.length ? spec.tokenRequests.map((t) => t.audience).join(',') : '<unset>';
    return [
      obj.metadata.name ?? '',
      spec.attachRequired ?? true,
      spec.podInfoOnMount ?? false,
      spec.storageCapacity ?? false,
      tokens,
      spec.requiresRepublish ?? false,
      (spec.volumeLifecycleModes ?? []).join(','),
      age(obj.metadata.creationTimestamp, now),
    ];
  },
};
