/**
 * PersistentVolumeClaim (core/v1): defaulting, validation, create/update/status strategies,
 * the DefaultStorageClass and StorageObjectInUseProtection admission, `kubectl get pvc` columns.
 */
import { FINALIZER_PVC_PROTECTION } from '@pv-controller/kube/annotations.js';
import type { KubeObject, PersistentVolumeClaim, StatusCause, StorageClass } from '@pv-controller/kube/types.js';
import { accessModesKey, defaultStorageClass, storageClassOfClaim } from '@pv-controller/kube/volume-helpers.js';
import { admitClaimResize, validateAllocatedResources } from './claim-resize.js';
import { validateClaimSpec, validateClaimUpdate } from './claim-validation.js';
import { ensureFinalizer, keepStored, nullUnsetConditionTimes, resourceInfo, roundResourceListToMilli } from '../common.js';
import { appendCauses, required } from '../../api/field-errors.js';
import { nameIsDNSSubdomain, validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';
import { AGE_COLUMN, NAME_COLUMN, age, canonicalQuantity, column, field } from '../printing.js';
import type { AdmissionContext, ResourceStrategy } from '../strategy.js';
import { validateNonNegativeQuantity } from './volume-validation.js';

const asPVC = (obj: KubeObject): PersistentVolumeClaim => {
  const pvc = obj as PersistentVolumeClaim;
  if (typeof pvc.spec !== 'object' || pvc.spec === null) pvc.spec = {};
  return pvc;
};

type ClaimSpec = PersistentVolumeClaim['spec'];

const isSet = (v: unknown): boolean => v !== undefined && v !== null;

/** NormalizeDataSources: when only one of dataSource/dataSourceRef is set (and the ref names no namespace), mirror it. */
function normalizeDataSources(spec: ClaimSpec): void {
  const { dataSource, dataSourceRef } = spec;
  if (isSet(dataSource) && !isSet(dataSourceRef)) {
    spec.dataSourceRef = { ...structuredClone(dataSource!) };
  } else if (isSet(dataSourceRef) && !isSet(dataSource) && !dataSourceRef!.namespace) {
    const copy: ClaimSpec['dataSource'] = { kind: dataSourceRef!.kind, name: dataSourceRef!.name };
    if (isSet(dataSourceRef!.apiGroup)) copy.apiGroup = dataSourceRef!.apiGroup;
    spec.dataSource = copy;
  }
}

/**
 * DropDisabledFields: CrossNamespaceVolumeDataSource is off (alpha), so a dataSourceRef naming a
 * namespace is dropped, unless the stored claim already had a dataSourceRef.
 */
function dropCrossNamespaceRef(spec: ClaimSpec, old: ClaimSpec | undefined): void {
  if (isSet(spec.dataSourceRef) && spec.dataSourceRef!.namespace && !isSet(old?.dataSourceRef)) delete spec.dataSourceRef;
}

/** A claim (core group) or a VolumeSnapshot: the only kinds dataSource alone ever took. */
function isClaimOrSnapshot(ds: NonNullable<ClaimSpec['dataSource']>): boolean {
  const group = ds.apiGroup ?? '';
  return (ds.kind === 'PersistentVolumeClaim' && group === '') || (ds.kind === 'VolumeSnapshot' && group === 'snapshot.storage.k8s.io');
}

/**
 * EnforceDataSourceBackwardsCompatibility (KEP-1495): on a create, or an update of a claim without
 * a data source, a dataSource of any other kind given without a dataSourceRef is dropped, as old
 * servers ignored it.
 */
function dropLegacyDataSource(spec: ClaimSpec, old: ClaimSpec | undefined): void {
  if (isSet(old?.dataSource) || isSet(old?.dataSourceRef) || isSet(spec.dataSourceRef)) return;
  if (isSet(spec.dataSource) && !isClaimOrSnapshot(spec.dataSource!)) delete spec.dataSource;
}

/** core/v1 writes a reference's apiGroup even when it has none (`"apiGroup": null`: no omitempty). */
function nullGroups(spec: ClaimSpec): void {
  for (const ref of [spec.dataSource, spec.dataSourceRef]) {
    if (isSet(ref) && ref!.apiGroup === undefined) ref!.apiGroup = null;
  }
}

/** kube-apiserver's data source preparation, in its order (prepareForCreate / prepareForUpdate). */
function prepareDataSources(spec: ClaimSpec, old: ClaimSpec | undefined): void {
  dropCrossNamespaceRef(spec, old);
  dropLegacyDataSource(spec, old);
  normalizeDataSources(spec);
  nullGroups(spec);
}

/** DefaultStorageClass admission: a claim with no class at all gets the (newest) default class. */
function admitDefaultStorageClass(pvc: PersistentVolumeClaim, ctx: AdmissionContext): void {
  if (storageClassOfClaim(pvc) !== undefined) return;
  const classes = ctx.list('storage.k8s.io', 'storageclasses') as StorageClass[];
  const chosen = defaultStorageClass(classes);
  if (chosen?.metadata.name) pvc.spec.storageClassName = chosen.metadata.name;
}

function validatePVC(obj: KubeObject): StatusCause[] {
  const pvc = asPVC(obj);
  return [...validateObjectMeta(pvc.metadata, true, nameIsDNSSubdomain), ...validateClaimSpec(pvc.spec)];
}

function validatePVCStatus(next: PersistentVolumeClaim, prev: PersistentVolumeClaim): StatusCause[] {
  const causes = validateObjectMetaUpdate(next.metadata, prev.metadata);
  if (!Array.isArray(next.spec.accessModes) || next.spec.accessModes.length === 0) causes.push(required('Spec.accessModes'));
  for (const [name, value] of Object.entries(next.status?.capacity ?? {})) {
    appendCauses(causes, validateNonNegativeQuantity(value, `status.capacity[${name}]`));
  }
  appendCauses(causes, validateAllocatedResources(next));
  return causes;
}

export const persistentVolumeClaimStrategy: ResourceStrategy = {
  info: resourceInfo({ group: '', version: 'v1', plural: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim',
    namespaced: true, shortNames: ['pvc'], hasStatus: true }),

  defaults(obj) {
    const pvc = asPVC(obj);
    if (pvc.spec.volumeMode === undefined || pvc.spec.volumeMode === null) pvc.spec.volumeMode = 'Filesystem';
    roundResourceListToMilli(pvc.spec.resources?.requests);
    roundResourceListToMilli(pvc.spec.resources?.limits);
    if (typeof pvc.status !== 'object' || pvc.status === null) pvc.status = {};
    roundResourceListToMilli(pvc.status.capacity);
    roundResourceListToMilli(pvc.status.allocatedResources);
    if (!pvc.status.phase) pvc.status.phase = 'Pending';
    nullUnsetConditionTimes(pvc.status, ['lastProbeTime', 'lastTransitionTime']);
  },

  prepareForCreate(obj, ctx) {
    const pvc = asPVC(obj);
    pvc.status = { phase: 'Pending' };
    prepareDataSources(pvc.spec, undefined);
    admitDefaultStorageClass(pvc, ctx);
    ensureFinalizer(pvc, FINALIZER_PVC_PROTECTION);
  },

  validateCreate: validatePVC,

  prepareForUpdate(next, prev) {
    keepStored(next, prev, 'status');
    prepareDataSources(asPVC(next).spec, asPVC(prev).spec);
  },

  validateUpdate(next, prev) {
    const pvc = asPVC(next);
    const old = asPVC(prev);
    return [...validateObjectMetaUpdate(pvc.metadata, old.metadata), ...validatePVC(pvc), ...validateClaimUpdate(pvc, old)];
  },

  admitUpdate(next, prev, ctx) {
    admitClaimResize(asPVC(next), asPVC(prev), ctx);
  },

  prepareForStatusUpdate(next, prev) {
    keepStored(next, prev, 'spec');
  },

  validateStatusUpdate(next, prev) {
    return validatePVCStatus(asPVC(next), asPVC(prev));
  },

  fields() {
    return {};
  },

  tableColumns: [
    NAME_COLUMN,
    column('Status', field('PersistentVolumeClaimStatus', 'phase')),
    column('Volume', field('PersistentVolumeClaimSpec', 'volumeName')),
    column('Capacity', field('PersistentVolumeClaimStatus', 'capacity')),
    column('Access Modes', field('PersistentVolumeClaimStatus', 'accessModes')),
    column('StorageClass', 'StorageClass of the pvc'),
    column('VolumeAttributesClass', 'VolumeAttributesClass of the pvc'),
    AGE_COLUMN,
    column('VolumeMode', field('PersistentVolumeClaimSpec', 'volumeMode'), { priority: 1 }),
  ],

  tableRow(obj, now) {
    const pvc = asPVC(obj);
    const phase = pvc.metadata.deletionTimestamp ? 'Terminating' : (pvc.status?.phase ?? '');
    const bound = Boolean(pvc.spec.volumeName);
    return [
      pvc.metadata.name ?? '',
      phase,
      pvc.spec.volumeName ?? '',
      bound ? canonicalQuantity(pvc.status?.capacity?.storage) : '',
      bound ? accessModesKey(pvc.status?.accessModes) : '',
      storageClassOfClaim(pvc) ?? '',
      pvc.spec.volumeAttributesClassName || '<unset>',
      age(pvc.metadata.creationTimestamp, now),
      pvc.spec.volumeMode ?? '<unset>',
    ];
  },
};
