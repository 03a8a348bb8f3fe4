/**
 * ValidatePersistentVolumeClaimSpec and ValidatePersistentVolumeClaimUpdate (core validation.go):
 * spec immutable except a one-time volumeName, the class upgrade paths and storage growth while
 * Bound.
 */
import { ANN_BETA_STORAGE_CLASS } from '@pv-controller/kube/annotations.js';
import { isDNS1123Label, isDNS1123Subdomain } from '@pv-controller/kube/name-validation.js';
import { Quantity } from '@pv-controller/kube/quantity.js';
import type { PersistentVolumeClaim, PersistentVolumeClaimSpec, StatusCause } from '@pv-controller/kube/types.js';
import { hasAnnotation } from '@pv-controller/kube/volume-helpers.js';
import { validateAttributesClassRemoval } from './claim-resize.js';
import { diffText, jsonEqual } from '../common.js';
import { appendCauses, forbidden, immutable, invalid, invalidEach, notSupported, required } from '../../api/field-errors.js';
import {
  validateAccessModes,
  validateClassName,
  validateLabelSelector,
  validatePositiveQuantity,
  VOLUME_MODES,
} from './volume-validation.js';

interface DataSourceLike {
  apiGroup?: string | null;
  kind?: string;
  name?: string;
  namespace?: string | null;
}

function validateDataSource(ds: DataSourceLike, field: string, isRef: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!ds.name) causes.push(required(`${field}.name`));
  if (!ds.kind) causes.push(required(`${field}.kind`));
  const group = ds.apiGroup ?? '';
  if (!group && ds.kind !== 'PersistentVolumeClaim') {
    causes.push(invalid(field, ds.kind ?? '', "must be 'PersistentVolumeClaim' when referencing the default apiGroup"));
  }
  if (group) appendCauses(causes, invalidEach(`${field}.apiGroup`, group, isDNS1123Subdomain(group)));
  if (isRef && ds.namespace) appendCauses(causes, invalidEach(`${field}.namespace`, ds.namespace, isDNS1123Label(ds.namespace)));
  return causes;
}

/** isDataSourceEqualDataSourceRef: the API groups compared as pointers, so "" and absent differ. */
const sameGroup = (a: string | null | undefined, b: string | null | undefined): boolean =>
  (a === undefined || a === null) === (b === undefined || b === null) && (a ?? '') === (b ?? '');
const sameDataSource = (a: DataSourceLike, b: DataSourceLike): boolean => sameGroup(a.apiGroup, b.apiGroup) && a.kind === b.kind && a.name === b.name;

function validateDataSources(spec: PersistentVolumeClaimSpec): StatusCause[] {
  const causes: StatusCause[] = [];
  const ds = spec.dataSource as DataSourceLike | undefined;
  const ref = spec.dataSourceRef as DataSourceLike | undefined;
  if (ds) appendCauses(causes, validateDataSource(ds, 'spec.dataSource', false));
  if (ref) appendCauses(causes, validateDataSource(ref, 'spec.dataSourceRef', true));
  if (ref?.namespace) {
    if (ds) causes.push(invalidPath('spec', 'may not be specified when dataSourceRef.namespace is specified'));
  } else if (ds && ref && !sameDataSource(ds, ref)) {
    causes.push(invalidPath('spec', 'must match dataSourceRef'));
  }
  return causes;
}

/**
 * field.Invalid whose bad value is a *field.Path: kube-apiserver 1.37 renders that value as `{}`
 * (a struct without exported fields), not as the path.
 */
function invalidPath(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: {}: ${detail}`, field };
}

export function validateClaimSpec(spec: PersistentVolumeClaimSpec): StatusCause[] {
  const causes = validateAccessModes(spec.accessModes, 'spec.accessModes', 'at least 1 access mode is required');
  if (spec.selector !== undefined && spec.selector !== null) appendCauses(causes, validateLabelSelector(spec.selector, 'spec.selector'));
  const requests = spec.resources?.requests ?? {};
  if (!Object.hasOwn(requests, 'storage')) causes.push(required('spec.resources[storage]'));
  else appendCauses(causes, validatePositiveQuantity(requests.storage, 'spec.resources[storage]'));
  if (spec.storageClassName) appendCauses(causes, validateClassName(spec.storageClassName, 'spec.storageClassName'));
  if (spec.volumeMode !== undefined && spec.volumeMode !== null && !VOLUME_MODES.includes(spec.volumeMode)) {
    causes.push(notSupported('spec.volumeMode', spec.volumeMode, VOLUME_MODES));
  }
  appendCauses(causes, validateDataSources(spec));
  if (spec.volumeAttributesClassName) {
    appendCauses(causes, validateClassName(spec.volumeAttributesClassName, 'spec.volumeAttributesClassName'));
  }
  return causes;
}

function annotationOf(pvc: PersistentVolumeClaim): string | undefined {
  return hasAnnotation(pvc, ANN_BETA_STORAGE_CLASS) ? pvc.metadata.annotations?.[ANN_BETA_STORAGE_CLASS] : undefined;
}

/** Annotation ⇒ field upgrade: the old claim had the beta annotation and no field, the new field equals it. */
function isClassUpgradeFromAnnotation(next: PersistentVolumeClaim, prev: PersistentVolumeClaim): boolean {
  const oldAnn = annotationOf(prev);
  const newAnn = annotationOf(next);
  return oldAnn !== undefined && (newAnn === undefined || newAnn === oldAnn) &&
    (prev.spec.storageClassName === undefined || prev.spec.storageClassName === null) &&
    next.spec.storageClassName === oldAnn;
}

/** nil ⇒ value (retroactive default class): no beta annotation, old field nil, new field non-empty. */
function isClassSetFromNil(next: PersistentVolumeClaim, prev: PersistentVolumeClaim): boolean {
  return annotationOf(prev) === undefined &&
    (prev.spec.storageClassName === undefined || prev.spec.storageClassName === null) &&
    typeof next.spec.storageClassName === 'string' && next.spec.storageClassName.length > 0;
}

function quantityOf(v: string | undefined): Quantity {
  try {
    return Quantity.parse(v ?? '0');
  } catch {
    return Quantity.parse('0');
  }
}

/** The spec rules of ValidatePersistentVolumeClaimUpdate (metadata rules are run by the caller). */
export function validateClaimUpdate(next: PersistentVolumeClaim, prev: PersistentVolumeClaim): StatusCause[] {
  const causes: StatusCause[] = [];
  const nextSpec = structuredClone(next.spec) as PersistentVolumeClaimSpec;
  const prevSpec = structuredClone(prev.spec) as PersistentVolumeClaimSpec;
  if (!prev.spec.volumeName) {
    if (next.spec.volumeName === undefined) delete prevSpec.volumeName;
    else prevSpec.volumeName = next.spec.volumeName;
  }
  if (isClassUpgradeFromAnnotation(next, prev)) {
    delete nextSpec.storageClassName;
  } else {
    const oldAnn = annotationOf(prev) ?? '';
    const newAnn = annotationOf(next) ?? '';
    if (oldAnn !== newAnn) causes.push(immutable(`metadata.annotations.${ANN_BETA_STORAGE_CLASS}`, newAnn));
    if (isClassSetFromNil(next, prev)) delete nextSpec.storageClassName;
  }
  const bound = (next.status?.phase ?? '') === 'Bound';
  if (bound && nextSpec.resources?.requests) {
    const oldStorage = prev.spec.resources?.requests?.storage;
    if (oldStorage === undefined) delete nextSpec.resources.requests.storage;
    else nextSpec.resources.requests.storage = oldStorage;
  }
  // While Bound the class may change at all (to nil too: the removal rules below decide that).
  if (bound) {
    if (prevSpec.volumeAttributesClassName === undefined) delete nextSpec.volumeAttributesClassName;
    else nextSpec.volumeAttributesClassName = prevSpec.volumeAttributesClassName;
  }
  if (!jsonEqual(nextSpec, prevSpec)) {
    causes.push(forbidden('spec',
      'spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n' +
        diffText(prevSpec, nextSpec)));
  }
  const newSize = quantityOf(next.spec.resources?.requests?.storage);
  const oldSize = quantityOf(prev.spec.resources?.requests?.storage);
  // RecoverVolumeExpansionFailure (GA): a claim may come back down after a failed expansion, but
  // never to or below the capacity it has.
  if (newSize.cmp(oldSize) < 0 && newSize.cmp(quantityOf(prev.status?.capacity?.storage)) <= 0) {
    causes.push(forbidden('spec.resources.requests.storage', 'field can not be less than status.capacity'));
  }
  if ((next.spec.volumeMode ?? null) !== (prev.spec.volumeMode ?? null)) causes.push(immutable('volumeMode', next.spec.volumeMode));
  appendCauses(causes, validateAttributesClassRemoval(next, prev));
  return causes;
}
