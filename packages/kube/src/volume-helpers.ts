/**
 * Pure predicates about volumes, claims and classes that both the controller and the API server
 * use. Upstream names (component-helpers/storage/volume, pkg/volume/util) are given per function.
 */
import {
  ANN_BETA_DEFAULT_STORAGE_CLASS,
  ANN_BETA_STORAGE_CLASS,
  ANN_BOUND_BY_CONTROLLER,
  ANN_DEFAULT_STORAGE_CLASS,
} from './annotations.js';
import { Quantity } from './quantity.js';
import type {
  KubeObject,
  ObjectReference,
  PersistentVolume,
  PersistentVolumeAccessMode,
  PersistentVolumeClaim,
  StorageClass,
} from './types.js';

/** True iff the annotation key is present (any value, even ""). */
export function hasAnnotation(obj: KubeObject, key: string): boolean {
  const annotations = obj.metadata.annotations;
  return annotations !== undefined && annotations !== null && Object.hasOwn(annotations, key);
}

/** GetPersistentVolumeClass: the beta annotation (even "") wins over spec.storageClassName. */
export function storageClassOfVolume(pv: PersistentVolume): string {
  if (hasAnnotation(pv, ANN_BETA_STORAGE_CLASS)) return pv.metadata.annotations?.[ANN_BETA_STORAGE_CLASS] ?? '';
  return pv.spec.storageClassName ?? '';
}

/**
 * The claim's requested class: the beta annotation if present, else spec.storageClassName.
 * `undefined` means "no class requested" (nil: may get the default class), unlike "" which means
 * "explicitly no class". Use `?? ''` for matching (GetPersistentVolumeClaimClass).
 */
export function storageClassOfClaim(pvc: PersistentVolumeClaim): string | undefined {
  if (hasAnnotation(pvc, ANN_BETA_STORAGE_CLASS)) return pvc.metadata.annotations?.[ANN_BETA_STORAGE_CLASS] ?? '';
  const name = pvc.spec.storageClassName;
  return name === null ? undefined : name;
}

/** IsVolumeBoundToClaim: claimRef names the claim and its uid is empty or the claim's. */
export function isVolumeBoundToClaim(pv: PersistentVolume, pvc: PersistentVolumeClaim): boolean {
  const ref = pv.spec.claimRef;
  if (!ref) return false;
  if (ref.name !== pvc.metadata.name || ref.namespace !== pvc.metadata.namespace) return false;
  return !ref.uid || ref.uid === pvc.metadata.uid;
}

const ACCESS_MODE_ORDER: [PersistentVolumeAccessMode, string][] = [
  ['ReadWriteOnce', 'RWO'],
  ['ReadOnlyMany', 'ROX'],
  ['ReadWriteMany', 'RWX'],
  ['ReadWriteOncePod', 'RWOP'],
];

/**
 * GetAccessModesAsString: de-duplicated abbreviations in the fixed order RWO,ROX,RWX,RWOP,
 * joined by ",". Also the ACCESS MODES column of `kubectl get pv/pvc`. Unknown modes are ignored.
 */
export function accessModesKey(modes: readonly string[] | undefined): string {
  const have = new Set(modes ?? []);
  return ACCESS_MODE_ORDER.filter(([mode]) => have.has(mode))
    .map(([, short]) => short)
    .join(',');
}

/** Inverse of accessModesKey: "RWO,RWX" ⇒ ["ReadWriteOnce", "ReadWriteMany"]. */
export function accessModesFromKey(key: string): PersistentVolumeAccessMode[] {
  const parts = new Set(key.split(','));
  return ACCESS_MODE_ORDER.filter(([, short]) => parts.has(short)).map(([mode]) => mode);
}

/** Every wanted mode is among the ones we have (CheckAccessModes / index containment). */
export function accessModesContain(have: readonly string[] | undefined, want: readonly string[] | undefined): boolean {
  const set = new Set(have ?? []);
  return (want ?? []).every((m) => set.has(m));
}

function storageBytes(resources: Record<string, string> | undefined): bigint {
  const value = resources?.storage;
  return value === undefined || value === null ? 0n : Quantity.parse(value).toBytes();
}

/** spec.resources.requests.storage in bytes (0n when unset). Throws QuantityParseError if malformed. */
export function claimRequestBytes(pvc: PersistentVolumeClaim): bigint {
  return storageBytes(pvc.spec.resources?.requests);
}

/** spec.capacity.storage in bytes (0n when unset, as upstream treats a PV without capacity). */
export function volumeCapacityBytes(pv: PersistentVolume): bigint {
  return storageBytes(pv.spec.capacity);
}

/** spec.volumeMode, nil ⇒ Filesystem (GetVolumeMode / CheckVolumeModeMismatches). */
export function volumeModeOf(x: PersistentVolume | PersistentVolumeClaim): string {
  return x.spec.volumeMode || 'Filesystem';
}

/** A class marked default by the GA or beta annotation with the value "true". */
export function isDefaultStorageClass(sc: StorageClass): boolean {
  const a = sc.metadata.annotations ?? {};
  return a[ANN_DEFAULT_STORAGE_CLASS] === 'true' || a[ANN_BETA_DEFAULT_STORAGE_CLASS] === 'true';
}

/**
 * GetDefaultClass: among default classes the newest creationTimestamp wins, ties by name
 * ascending. undefined when there is no default class.
 */
export function defaultStorageClass(classes: readonly StorageClass[]): StorageClass | undefined {
  const defaults = classes.filter(isDefaultStorageClass);
  defaults.sort((a, b) => {
    const ta = Date.parse(a.metadata.creationTimestamp ?? '') || 0;
    const tb = Date.parse(b.metadata.creationTimestamp ?? '') || 0;
    if (ta !== tb) return tb - ta;
    const na = a.metadata.name ?? '';
    const nb = b.metadata.name ?? '';
    return na < nb ? -1 : na > nb ? 1 : 0;
  });
  return defaults[0];
}

/** The claimRef a volume bound to this claim carries (reference.GetReference(claim)). */
export function claimRefFor(pvc: PersistentVolumeClaim): ObjectReference {
  const ref: ObjectReference = { kind: 'PersistentVolumeClaim', apiVersion: 'v1' };
  if (pvc.metadata.namespace !== undefined) ref.namespace = pvc.metadata.namespace;
  if (pvc.metadata.name !== undefined) ref.name = pvc.metadata.name;
  if (pvc.metadata.uid !== undefined) ref.uid = pvc.metadata.uid;
  if (pvc.metadata.resourceVersion !== undefined) ref.resourceVersion = pvc.metadata.resourceVersion;
  return ref;
}

/**
 * A copy of the volume with its binding undone from the volume's side (upstream `unbindVolume`): a
 * claimRef the controller wrote (bound-by-controller) goes, with that annotation; a user's
 * pre-binding keeps the claim's name and loses the uid, so it stays reserved for that name.
 */
export function volumeWithoutBinding(pv: PersistentVolume): PersistentVolume {
  const next = structuredClone(pv);
  if (hasAnnotation(pv, ANN_BOUND_BY_CONTROLLER)) {
    delete next.spec.claimRef;
    const annotations = { ...next.metadata.annotations };
    delete annotations[ANN_BOUND_BY_CONTROLLER];
    if (Object.keys(annotations).length === 0) delete next.metadata.annotations;
    else next.metadata.annotations = annotations;
  } else if (next.spec.claimRef) {
    next.spec.claimRef = { ...next.spec.claimRef, uid: '' };
  }
  return next;
}
