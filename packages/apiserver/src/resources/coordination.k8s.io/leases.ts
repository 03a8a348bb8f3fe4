/**
 * Lease (coordination.k8s.io/v1). acquireTime/renewTime are metav1.MicroTime, which the typed
 * decoder refuses without exactly six fractional digits, as a real server does (400).
 */
import type { KubeObject, Lease, StatusCause } from '@pv-controller/kube/types.js';
import { resourceInfo } from '../common.js';
import { invalid } from '../../api/field-errors.js';
import { nameIsDNSSubdomain, validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';
import { AGE_COLUMN, NAME_COLUMN, age, column, field } from '../printing.js';
import type { ResourceStrategy } from '../strategy.js';

function validateLease(obj: KubeObject): StatusCause[] {
  const lease = obj as Lease;
  const causes = validateObjectMeta(lease.metadata, true, nameIsDNSSubdomain);
  const spec = lease.spec ?? {};
  if (typeof spec.leaseDurationSeconds === 'number' && spec.leaseDurationSeconds <= 0) {
    causes.push(invalid('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0'));
  }
  if (typeof spec.leaseTransitions === 'number' && spec.leaseTransitions < 0) {
    causes.push(invalid('spec.leaseTransitions', spec.leaseTransitions, 'must be greater than or equal to 0'));
  }
  return causes;
}

export const leaseStrategy: ResourceStrategy = {
  info: resourceInfo({ group: 'coordination.k8s.io', version: 'v1', plural: 'leases', kind: 'Lease', namespaced: true,
    hasStatus: false }),
  deleteAnswersStatus: true,
  allowCreateOnUpdate: true,

  defaults() {},
  prepareForCreate() {},
  validateCreate: validateLease,
  prepareForUpdate() {},
  validateUpdate(next, prev) {
    return [...validateLease(next), ...validateObjectMetaUpdate(next.metadata, prev.metadata)];
  },
  fields() {
    return {};
  },

  tableColumns: [NAME_COLUMN, column('Holder', field('io.k8s.api.coordination.v1.LeaseSpec', 'holderIdentity')), AGE_COLUMN],

  tableRow(obj, now) {
    const lease = obj as Lease;
    return [lease.metadata.name ?? '', lease.spec?.holderIdentity ?? '', age(lease.metadata.creationTimestamp, now)];
  },
};
