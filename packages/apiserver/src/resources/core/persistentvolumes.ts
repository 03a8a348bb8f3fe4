/**
 * PersistentVolume (core/v1): defaulting, validation (validation.go + pkg/volume/validation),
 * the create/update/status strategies and `kubectl get pv` columns.
 */
import { ANN_MOUNT_OPTIONS, FINALIZER_PV_PROTECTION } from '@pv-controller/kube/annotations.js';
import type { KubeObject, PersistentVolume, PersistentVolumeSpec, StatusCause } from '@pv-controller/kube/types.js';
import { accessModesKey, hasAnnotation, storageClassOfVolume } from '@pv-controller/kube/volume-helpers.js';
import { diffText, ensureFinalizer, keepStored, jsonEqual, resourceInfo, rfc3339Now, roundResourceListToMilli } from '../common.js';
import { appendCauses, forbidden, immutable, notSupported, required } from '../../api/field-errors.js';
import { nameIsDNSSubdomain, validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';
import { AGE_COLUMN, NAME_COLUMN, age, canonicalQuantity, column, field } from '../printing.js';
import { persistentVolumeWarnings } from './pv-warnings.js';
import type { ResourceStrategy } from '../strategy.js';
import {
  hostPathRootRecycle,
  MOUNT_OPTION_SOURCES,
  PV_SOURCE_KEYS,
  presentSources,
  validateVolumeSources,
} from './volume-sources.js';
import {
  validateAccessModes,
  validateClassName,
  validateNodeSelector,
  validatePositiveQuantity,
  VOLUME_MODES,
} from './volume-validation.js';

const PV_RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];

const asPV = (obj: KubeObject): PersistentVolume => {
  const pv = obj as PersistentVolume;
  if (typeof pv.spec !== 'object' || pv.spec === null) pv.spec = {};
  return pv;
};

function validateCapacity(spec: PersistentVolumeSpec): StatusCause[] {
  const capacity = spec.capacity ?? {};
  const keys = Object.keys(capacity);
  const causes: StatusCause[] = [];
  if (keys.length === 0) causes.push(required('spec.capacity'));
  if (!keys.includes('storage') || keys.length > 1) causes.push(notSupported('spec.capacity', spec.capacity ?? null, ['storage']));
  for (const k of keys) appendCauses(causes, validatePositiveQuantity(capacity[k], `spec.capacity[${k}]`));
  return causes;
}

function validateNodeAffinity(spec: PersistentVolumeSpec): StatusCause[] {
  if (spec.nodeAffinity === undefined || spec.nodeAffinity === null) return [];
  const req = spec.nodeAffinity.required;
  if (req === undefined || req === null) return [required('spec.nodeAffinity.required', 'must specify required node constraints')];
  return validateNodeSelector(req, 'spec.nodeAffinity.required');
}

function validatePVSpec(spec: PersistentVolumeSpec): StatusCause[] {
  const causes = validateAccessModes(spec.accessModes, 'spec.accessModes', undefined);
  appendCauses(causes, validateCapacity(spec));
  if (spec.storageClassName) appendCauses(causes, validateClassName(spec.storageClassName, 'spec.storageClassName'));
  if (spec.volumeMode !== undefined && spec.volumeMode !== null && !VOLUME_MODES.includes(spec.volumeMode)) {
    causes.push(notSupported('spec.volumeMode', spec.volumeMode, VOLUME_MODES));
  }
  const policy = spec.persistentVolumeReclaimPolicy;
  if (policy && !PV_RECLAIM_POLICIES.includes(policy)) {
    causes.push(notSupported('spec.persistentVolumeReclaimPolicy', policy, PV_RECLAIM_POLICIES));
  }
  appendCauses(causes, validateNodeAffinity(spec));
  appendCauses(causes, validateVolumeSources(spec, spec.nodeAffinity !== undefined && spec.nodeAffinity !== null));
  appendCauses(causes, hostPathRootRecycle(spec));
  const vac = spec.volumeAttributesClassName;
  if (vac !== undefined && vac !== null) {
    if (vac === '') causes.push(required('spec.volumeAttributesClassName', 'an empty string is disallowed'));
    else appendCauses(causes, validateClassName(vac, 'spec.volumeAttributesClassName'));
    if (!spec.csi) causes.push(required('spec.csi', 'has to be specified when using volumeAttributesClassName'));
  }
  return causes;
}

/** pkg/volume/validation: the beta mount-options annotation only on types that support it. */
function validateMountOptionAnnotation(pv: PersistentVolume): StatusCause[] {
  if (!hasAnnotation(pv, ANN_MOUNT_OPTIONS)) return [];
  if (presentSources(pv.spec).some((s) => MOUNT_OPTION_SOURCES.includes(s))) return [];
  return [forbidden(`metadata.annotations.${ANN_MOUNT_OPTIONS}`, 'may not specify mount options for this volume type')];
}

function validatePV(obj: KubeObject): StatusCause[] {
  const pv = asPV(obj);
  return [
    ...validateObjectMeta(pv.metadata, false, nameIsDNSSubdomain),
    ...validatePVSpec(pv.spec),
    ...validateMountOptionAnnotation(pv),
  ];
}

function volumeSourceOf(spec: PersistentVolumeSpec): Record<string, unknown> {
  const src: Record<string, unknown> = {};
  for (const k of PV_SOURCE_KEYS) if (spec[k] !== undefined && spec[k] !== null) src[k] = spec[k];
  return src;
}

function validatePVUpdate(next: PersistentVolume, prev: PersistentVolume): StatusCause[] {
  const causes = validateObjectMetaUpdate(next.metadata, prev.metadata);
  const nextSource = volumeSourceOf(next.spec);
  const prevSource = volumeSourceOf(prev.spec);
  // A CSI controllerExpandSecretRef may be added when there was none.
  const prevCsi = prevSource.csi as Record<string, unknown> | undefined;
  const nextCsi = nextSource.csi as Record<string, unknown> | undefined;
  if (prevCsi && nextCsi && prevCsi.controllerExpandSecretRef === undefined && nextCsi.controllerExpandSecretRef !== undefined) {
    const rest = { ...nextCsi };
    delete rest.controllerExpandSecretRef;
    nextSource.csi = rest;
  }
  if (!jsonEqual(nextSource, prevSource)) {
    causes.push(forbidden('spec.persistentvolumesource',
      `spec.persistentvolumesource is immutable after creation\n${diffText(prevSource, nextSource)}`));
  }
  if ((next.spec.volumeMode ?? null) !== (prev.spec.volumeMode ?? null)) causes.push(immutable('volumeMode', next.spec.volumeMode));
  if (prev.spec.nodeAffinity !== undefined && prev.spec.nodeAffinity !== null && !jsonEqual(next.spec.nodeAffinity, prev.spec.nodeAffinity)) {
    causes.push(immutable('nodeAffinity', next.spec.nodeAffinity));
  }
  const prevVac = prev.spec.volumeAttributesClassName;
  if (prevVac && !next.spec.volumeAttributesClassName) {
    causes.push(forbidden('spec.volumeAttributesClassName', 'update from non-nil value to nil is forbidden'));
  }
  return causes;
}

/** Status strategy: a phase change stamps lastPhaseTransitionTime unless the client set a new one. */
function stampPhaseTransition(next: PersistentVolume, prev: PersistentVolume, now: string): void {
  const status = (next.status ??= {});
  const prevStatus = prev.status ?? {};
  const sent = status.lastPhaseTransitionTime;
  if (status.phase === prevStatus.phase) {
    if (!sent && prevStatus.lastPhaseTransitionTime) status.lastPhaseTransitionTime = prevStatus.lastPhaseTransitionTime;
  } else if (!sent || sent === prevStatus.lastPhaseTransitionTime) {
    status.lastPhaseTransitionTime = now;
  }
}

export const persistentVolumeStrategy: ResourceStrategy = {
  info: resourceInfo({ group: '', version: 'v1', plural: 'persistentvolumes', kind: 'PersistentVolume', namespaced: false,
    shortNames: ['pv'], hasStatus: true }),
  warnings: persistentVolumeWarnings,

  defaults(obj) {
    const pv = asPV(obj);
    if (!pv.spec.persistentVolumeReclaimPolicy) pv.spec.persistentVolumeReclaimPolicy = 'Retain';
    if (pv.spec.volumeMode === undefined || pv.spec.volumeMode === null) pv.spec.volumeMode = 'Filesystem';
    if (pv.spec.hostPath && pv.spec.hostPath.type === undefined) pv.spec.hostPath.type = '';
    roundResourceListToMilli(pv.spec.capacity);
    if (typeof pv.status !== 'object' || pv.status === null) pv.status = {};
    if (!pv.status.phase) pv.status.phase = 'Pending';
  },

  prepareForCreate(obj) {
    const pv = asPV(obj);
    pv.status = { phase: 'Pending', lastPhaseTransitionTime: pv.metadata.creationTimestamp ?? rfc3339Now() };
    ensureFinalizer(pv, FINALIZER_PV_PROTECTION);
  },

  validateCreate: validatePV,

  prepareForUpdate(next, prev) {
    keepStored(next, prev, 'status');
  },

  validateUpdate(next, prev) {
    return [...validatePV(next), ...validatePVUpdate(asPV(next), asPV(prev))];
  },

  prepareForStatusUpdate(next, prev, now) {
    keepStored(next, prev, 'spec');
    stampPhaseTransition(asPV(next), asPV(prev), now);
  },

  validateStatusUpdate(next, prev) {
    return validateObjectMetaUpdate(next.metadata, prev.metadata);
  },

  fields() {
    return {};
  },

  tableColumns: [
    NAME_COLUMN,
    column('Capacity', field('PersistentVolumeSpec', 'capacity')),
    column('Access Modes', field('PersistentVolumeSpec', 'accessModes')),
    column('Reclaim Policy', field('PersistentVolumeSpec', 'persistentVolumeReclaimPolicy')),
    column('Status', field('PersistentVolumeStatus', 'phase')),
    column('Claim', field('PersistentVolumeSpec', 'claimRef')),
    column('StorageClass', 'StorageClass of the pv'),
    column('VolumeAttributesClass', 'VolumeAttributesClass of the pv'),
    column('Reason', field('PersistentVolumeStatus', 'reason')),
    AGE_COLUMN,
    column('VolumeMode', field('PersistentVolumeSpec', 'volumeMode'), { priority: 1 }),
  ],

  tableRow(obj, now) {
    const pv = asPV(obj);
    const ref = pv.spec.claimRef;
    const claim = ref ? `${ref.namespace ?? ''}/${ref.name ?? ''}` : '';
    const phase = pv.metadata.deletionTimestamp ? 'Terminating' : (pv.status?.phase ?? '');
    return [
      pv.metadata.name ?? '',
      canonicalQuantity(pv.spec.capacity?.storage),
      accessModesKey(pv.spec.accessModes),
      pv.spec.persistentVolumeReclaimPolicy ?? '',
      phase,
      claim,
      storageClassOfVolume(pv),
      pv.spec.volumeAttributesClassName ?? '<unset>',
      pv.status?.reason ?? '',
      age(pv.metadata.creationTimestamp, now),
      pv.spec.volumeMode ?? '<unset>',
    ];
  },
};
