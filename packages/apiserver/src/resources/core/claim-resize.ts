/**
 * What kube-apiserver checks when a claim changes size or attributes after birth:
 * - the PersistentVolumeClaimResize admission plugin
 *   (plugin/pkg/admission/storage/persistentvolume/resize): growing a claim needs it Bound and its
 *   StorageClass to allow expansion, else 403;
 * - the KEP-1790 status fields of ValidatePersistentVolumeClaimStatusUpdate (RecoverVolumeExpansionFailure
 *   is GA): allocatedResources and allocatedResourceStatuses, each key a qualified name whose
 *   native form may only be `storage`, each status one of five values.
 */
import { ApiError } from '@pv-controller/kube/errors.js';
import { isQualifiedName } from '@pv-controller/kube/name-validation.js';
import { Quantity } from '@pv-controller/kube/quantity.js';
import type { PersistentVolumeClaim, StatusCause, StorageClass } from '@pv-controller/kube/types.js';
import { storageClassOfClaim } from '@pv-controller/kube/volume-helpers.js';
import { appendCauses, forbidden, invalidEach, notSupported } from '../../api/field-errors.js';
import type { AdmissionContext } from '../strategy.js';
import { validateNonNegativeQuantity } from './volume-validation.js';

/** core.ClaimResourceStatus values, sorted as sets.List prints them. */
const CLAIM_RESOURCE_STATUSES = [
  'ControllerResizeInProgress',
  'ControllerResizeInfeasible',
  'NodeResizeInProgress',
  'NodeResizeInfeasible',
  'NodeResizePending',
] as const;

function storageRequest(pvc: PersistentVolumeClaim): Quantity {
  try {
    return Quantity.parse(pvc.spec.resources?.requests?.storage ?? '0');
  } catch {
    return Quantity.parse('0');
  }
}

function forbiddenClaim(name: string, detail: string): ApiError {
  return new ApiError(403, 'Forbidden', `persistentvolumeclaims "${name}" is forbidden: ${detail}`, {
    name,
    kind: 'persistentvolumeclaims',
  });
}

/** PersistentVolumeClaimResize: only a growth is checked; a claim of no class, or another class, may not grow. */
export function admitClaimResize(next: PersistentVolumeClaim, prev: PersistentVolumeClaim, ctx: AdmissionContext): void {
  if (storageRequest(next).cmp(storageRequest(prev)) <= 0) return;
  const name = next.metadata.name ?? '';
  if (prev.status?.phase !== 'Bound') throw forbiddenClaim(name, 'Only bound persistent volume claims can be expanded');
  if (!allowsResize(next, prev, ctx)) {
    throw forbiddenClaim(name,
      'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
  }
}

function allowsResize(next: PersistentVolumeClaim, prev: PersistentVolumeClaim, ctx: AdmissionContext): boolean {
  const className = storageClassOfClaim(next) ?? '';
  if (className === '' || className !== (storageClassOfClaim(prev) ?? '')) return false;
  const sc = ctx.get('storage.k8s.io', 'storageclasses', '', className) as StorageClass | undefined;
  return sc?.allowVolumeExpansion === true;
}

/** helper.IsNativeResource: unprefixed, or in the kubernetes.io domain. */
const isNativeResource = (name: string): boolean => !name.includes('/') || name.includes('kubernetes.io/');

function validateResourceKey(key: string, field: string): StatusCause[] {
  const problems = invalidEach(field, key, isQualifiedName(key));
  if (problems.length > 0) return problems;
  return isNativeResource(key) && key !== 'storage' ? [notSupported(field, key, ['storage'])] : [];
}

/** The allocatedResourceStatuses and allocatedResources rules of a claim's status update. */
export function validateAllocatedResources(pvc: PersistentVolumeClaim): StatusCause[] {
  const causes: StatusCause[] = [];
  const statusPath = 'status.allocatedResourceStatuses';
  for (const [key, value] of Object.entries(pvc.status?.allocatedResourceStatuses ?? {})) {
    appendCauses(causes, validateResourceKey(key, statusPath));
    if (!(CLAIM_RESOURCE_STATUSES as readonly string[]).includes(value)) causes.push(notSupported(statusPath, key, CLAIM_RESOURCE_STATUSES));
  }
  for (const [key, value] of Object.entries(pvc.status?.allocatedResources ?? {})) {
    const keyProblems = validateResourceKey(key, 'status.allocatedResources');
    if (keyProblems.length > 0) {
      appendCauses(causes, keyProblems);
      continue;
    }
    appendCauses(causes, validateNonNegativeQuantity(value, `status.allocatedResources[${key}]`));
  }
  return causes;
}

/** Forbid removing a VolumeAttributesClass once one has been applied (status.currentVolumeAttributesClassName set). */
export function validateAttributesClassRemoval(next: PersistentVolumeClaim, prev: PersistentVolumeClaim): StatusCause[] {
  const before = prev.spec.volumeAttributesClassName;
  const after = next.spec.volumeAttributesClassName;
  if (before === after || prev.status?.currentVolumeAttributesClassName === undefined) return [];
  const field = 'spec.volumeAttributesClassName';
  if (after === undefined || after === null) {
    return [forbidden(field, 'update to nil is forbidden when status.currentVolumeAttributesClassName is not nil')];
  }
  if (after === '') {
    return [forbidden(field, 'update to empty string is forbidden when status.currentVolumeAttributesClassName is not nil')];
  }
  return [];
}
