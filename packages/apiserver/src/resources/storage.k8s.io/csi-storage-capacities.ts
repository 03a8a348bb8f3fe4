/**
 * CSIStorageCapacity (storage.k8s.io/v1): what a node agent says its node can still provision
 * for one StorageClass, which kube-scheduler reads for drivers whose CSIDriver has
 * `storageCapacity: true`. ValidateCSIStorageCapacity / ...Update as kube-apiserver: the class
 * name is a DNS subdomain, quantities are not negative, class and topology are immutable.
 */
import { isDNS1123Subdomain } from '@pv-controller/kube/name-validation.js';
import { compareQuantityStrings } from '@pv-controller/kube/quantity.js';
import type { KubeObject, LabelSelector, StatusCause } from '@pv-controller/kube/types.js';
import { jsonEqual, resourceInfo } from '../common.js';
import { appendCauses, immutable, invalid, invalidEach } from '../../api/field-errors.js';
import { nameIsDNSSubdomain, validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';
import { column, NAME_COLUMN } from '../printing.js';
import type { ResourceStrategy } from '../strategy.js';
import { validateLabelSelector } from '../core/volume-validation.js';

interface CSIStorageCapacity extends KubeObject {
  storageClassName?: string;
  capacity?: string;
  maximumVolumeSize?: string;
  nodeTopology?: LabelSelector;
}

const asCapacity = (obj: KubeObject): CSIStorageCapacity => obj as CSIStorageCapacity;

function notNegative(field: string, value: string | undefined): StatusCause[] {
  if (value === undefined || compareQuantityStrings(value, '0') >= 0) return [];
  return [invalid(field, value, 'must be greater than or equal to 0')];
}

function validateCapacity(obj: KubeObject): StatusCause[] {
  const c = asCapacity(obj);
  const causes = validateObjectMeta(c.metadata, true, nameIsDNSSubdomain);
  if (c.nodeTopology) appendCauses(causes, validateLabelSelector(c.nodeTopology, 'nodeTopology'));
  appendCauses(causes, invalidEach('storageClassName', c.storageClassName ?? '', isDNS1123Subdomain(c.storageClassName ?? '')));
  appendCauses(causes, notNegative('capacity', c.capacity), notNegative('maximumVolumeSize', c.maximumVolumeSize));
  return causes;
}

export const csiStorageCapacityStrategy: ResourceStrategy = {
  info: resourceInfo({ group: 'storage.k8s.io', version: 'v1', plural: 'csistoragecapacities', kind: 'CSIStorageCapacity', namespaced: true, hasStatus: false }),
  defaults() {},
  prepareForCreate() {},
  validateCreate: validateCapacity,
  prepareForUpdate() {},
  validateUpdate(next, prev) {
    const causes = [...validateCapacity(next), ...validateObjectMetaUpdate(next.metadata, prev.metadata)];
    const n = asCapacity(next);
    const p = asCapacity(prev);
    if (n.storageClassName !== p.storageClassName) causes.push(immutable('storageClassName', n.storageClassName));
    if (!jsonEqual(n.nodeTopology ?? null, p.nodeTopology ?? null)) causes.push(immutable('nodeTopology', n.nodeTopology));
    return causes;
  },
  fields() {
    return {};
  },
  // No printer upstream: the default table of name and creation time.
  tableColumns: [NAME_COLUMN, column('Created At', 'CreationTimestamp is a timestamp representing the server time when this object was created.', { type: 'date' })],
  tableRow(obj) {
    return [obj.metadata.name ?? '', obj.metadata.creationTimestamp ?? ''];
  },
};
