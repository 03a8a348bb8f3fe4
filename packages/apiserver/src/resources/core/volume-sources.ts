/**
 * The PersistentVolumeSource part of ValidatePersistentVolumeSpec: exactly one volume type, and
 * the checks of the types this project provisions or is likely to see.
 */
import path from 'node:path';
import { isDNS1123Subdomain } from '@pv-controller/kube/name-validation.js';
import type { PersistentVolumeSpec, StatusCause } from '@pv-controller/kube/types.js';
import { appendCauses, forbidden, invalid, invalidEach, notSupported, required, tooLong } from '../../api/field-errors.js';
import { validateSecretReference } from './volume-validation.js';

/** Every volume type a PV may carry, in upstream's checking order, with its error path segment. */
export const PV_SOURCE_KEYS: readonly string[] = [
  'hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'glusterfs', 'flocker', 'nfs', 'rbd', 'quobyte',
  'cephfs', 'iscsi', 'cinder', 'fc', 'flexVolume', 'azureFile', 'vsphereVolume', 'photonPersistentDisk',
  'portworxVolume', 'azureDisk', 'scaleIO', 'local', 'storageos', 'csi',
];

/** Where upstream reports errors inside a source (GCE PD is validated under "persistentDisk"). */
const SOURCE_FIELD: Record<string, string> = { gcePersistentDisk: 'persistentDisk' };

const HOST_PATH_TYPES = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];

type Source = Record<string, unknown>;

function noBacksteps(p: string, field: string): StatusCause[] {
  return p.split('/').includes('..') ? [invalid(field, p, "must not contain '..'")] : [];
}

function hostPath(src: Source, field: string): StatusCause[] {
  const p = typeof src.path === 'string' ? src.path : '';
  if (!p) return [required(`${field}.path`)];
  const causes = noBacksteps(p, `${field}.path`);
  if (src.type !== undefined && src.type !== null && !HOST_PATH_TYPES.includes(String(src.type))) {
    causes.push(notSupported(`${field}.type`, src.type, HOST_PATH_TYPES));
  }
  return causes;
}

function nfs(src: Source, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!src.server) causes.push(required(`${field}.server`));
  const p = typeof src.path === 'string' ? src.path : '';
  if (!p) causes.push(required(`${field}.path`));
  else if (!path.posix.isAbsolute(p)) causes.push(invalid(`${field}.path`, p, 'must be an absolute path'));
  return causes;
}

function partitioned(idKey: string) {
  return (src: Source, field: string): StatusCause[] => {
    const causes: StatusCause[] = [];
    if (!src[idKey]) causes.push(required(`${field}.${idKey}`));
    const partition = src.partition;
    if (typeof partition === 'number' && (partition < 0 || partition > 255)) {
      causes.push(invalid(`${field}.partition`, partition, 'must be between 1 and 255, inclusive'));
    }
    return causes;
  };
}

function cinder(src: Source, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!src.volumeID) causes.push(required(`${field}.volumeID`));
  appendCauses(causes, validateSecretReference(src.secretRef, `${field}.secretRef`));
  return causes;
}

function local(src: Source, field: string): StatusCause[] {
  const p = typeof src.path === 'string' ? src.path : '';
  if (!p) return [required(`${field}.path`)];
  return noBacksteps(p, `${field}.path`);
}

const CSI_SECRET_REFS = [
  'controllerPublishSecretRef', 'nodeStageSecretRef', 'nodePublishSecretRef', 'controllerExpandSecretRef', 'nodeExpandSecretRef',
];

/** ValidateCSIDriverName: a CSI volume's driver, a CSINode driver's name. */
export function validateCSIDriverName(value: unknown, field: string): StatusCause[] {
  const driver = typeof value === 'string' ? value : '';
  if (!driver) return [required(field)];
  const causes = driver.length > 63 ? [tooLong(field, 63)] : [];
  return appendCauses(causes, invalidEach(field, driver, isDNS1123Subdomain(driver.toLowerCase())));
}

function csi(src: Source, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  appendCauses(causes, validateCSIDriverName(src.driver, `${field}.driver`));
  if (!src.volumeHandle) causes.push(required(`${field}.volumeHandle`));
  for (const ref of CSI_SECRET_REFS) appendCauses(causes, validateSecretReference(src[ref], `${field}.${ref}`));
  return causes;
}

const VALIDATORS: Record<string, (src: Source, field: string) => StatusCause[]> = {
  hostPath,
  nfs,
  gcePersistentDisk: partitioned('pdName'),
  awsElasticBlockStore: partitioned('volumeID'),
  cinder,
  local,
  csi,
};

/** The volume type keys present in a PV spec. */
export function presentSources(spec: PersistentVolumeSpec): string[] {
  return PV_SOURCE_KEYS.filter((k) => spec[k] !== undefined && spec[k] !== null);
}

/**
 * Exactly one volume type: the first is validated, each further one is Forbidden, none is
 * `spec: Required value: must specify a volume type`. `nodeAffinitySet` feeds the local-volume rule.
 */
export function validateVolumeSources(spec: PersistentVolumeSpec, nodeAffinitySet: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  const sources = presentSources(spec);
  sources.forEach((key, i) => {
    if (i > 0) {
      causes.push(forbidden(`spec.${key}`, 'may not specify more than 1 volume type'));
      return;
    }
    const validate = VALIDATORS[key];
    const src = spec[key];
    if (validate && typeof src === 'object' && src !== null) {
      appendCauses(causes, validate(src as Source, `spec.${SOURCE_FIELD[key] ?? key}`));
    }
    if (key === 'local' && !nodeAffinitySet) causes.push(required('spec.nodeAffinity', 'Local volume requires node affinity'));
  });
  if (sources.length === 0) causes.push(required('spec', 'must specify a volume type'));
  return causes;
}

/** Volume types that accept mount options (pkg/volume/validation checkMountOption). */
export const MOUNT_OPTION_SOURCES = [
  'gcePersistentDisk', 'awsElasticBlockStore', 'glusterfs', 'nfs', 'rbd', 'quobyte', 'iscsi', 'cinder', 'cephfs',
  'azureFile', 'vsphereVolume', 'azureDisk', 'photonPersistentDisk',
];

/** hostPath "/" with Recycle is forbidden. */
export function hostPathRootRecycle(spec: PersistentVolumeSpec): StatusCause[] {
  const p = spec.hostPath?.path;
  if (p && path.posix.normalize(p) === '/' && spec.persistentVolumeReclaimPolicy === 'Recycle') {
    return [forbidden('spec.persistentVolumeReclaimPolicy', "may not be 'recycle' for a hostPath mount of '/'")];
  }
  return [];
}
