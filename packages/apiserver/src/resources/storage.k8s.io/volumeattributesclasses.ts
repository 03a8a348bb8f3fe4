/**
 * VolumeAttributesClass (storage.k8s.io/v1, KEP-3751): ValidateVolumeAttributesClass and
 * ValidateVolumeAttributesClassUpdate (driverName and parameters are fixed at birth, since
 * claims already modified to the class would no longer match it), the vac-protection finalizer
 * StorageObjectInUseProtection adds, `kubectl get vac` columns.
 */
import { FINALIZER_VAC_PROTECTION } from '@pv-controller/kube/annotations.js';
import type { KubeObject, StatusCause, VolumeAttributesClass } from '@pv-controller/kube/types.js';
import { ensureFinalizer, jsonEqual, resourceInfo } from '../common.js';
import { forbidden } from '../../api/field-errors.js';
import { nameIsDNSSubdomain, validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';
import { AGE_COLUMN, NAME_COLUMN, age, column } from '../printing.js';
import { validateParameters, validateProvisioner } from './storageclasses.js';
import type { ResourceStrategy } from '../strategy.js';

const asVAC = (obj: KubeObject): VolumeAttributesClass => obj as VolumeAttributesClass;

function validateVAC(obj: KubeObject): StatusCause[] {
  const vac = asVAC(obj);
  return [
    ...validateObjectMeta(vac.metadata, false, nameIsDNSSubdomain),
    ...validateProvisioner(vac.driverName, 'driverName'),
    ...validateParameters(vac.parameters),
  ];
}

function validateVACUpdate(next: VolumeAttributesClass, prev: VolumeAttributesClass): StatusCause[] {
  const causes = validateObjectMetaUpdate(next.metadata, prev.metadata);
  if (next.driverName !== prev.driverName) causes.push(forbidden('driverName', 'updates to driverName are forbidden.'));
  if (!jsonEqual(next.parameters ?? {}, prev.parameters ?? {})) causes.push(forbidden('parameters', 'updates to parameters are forbidden.'));
  return causes;
}

export const volumeAttributesClassStrategy: ResourceStrategy = {
  info: resourceInfo({ group: 'storage.k8s.io', version: 'v1', plural: 'volumeattributesclasses', kind: 'VolumeAttributesClass',
    namespaced: false, shortNames: ['vac'], hasStatus: false }),
  defaults() {},
  prepareForCreate(obj) {
    ensureFinalizer(obj, FINALIZER_VAC_PROTECTION);
  },
  validateCreate: validateVAC,
  prepareForUpdate() {},
  validateUpdate(next, prev) {
    return [...validateVACUpdate(asVAC(next), asVAC(prev)), ...validateVAC(next)];
  },
  fields() {
    return {};
  },
  tableColumns: [
    NAME_COLUMN,
    column('DriverName', 'driverName is the name of the CSI driver This field is immutable.'),
    AGE_COLUMN,
  ],
  tableRow(obj, now) {
    const vac = asVAC(obj);
    return [vac.metadata.name ?? '', vac.driverName ?? '', age(vac.metadata.creationTimestamp, now)];
  },
};
