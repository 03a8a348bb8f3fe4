/**
 * Why a claim with a data source is not provisioned (yet), in external-provisioner v6's words
 * (pkg/controller/controller.go: getSnapshotSource, getPVCSource, checkDriverCapabilities) where
 * it has some. Each is the detail of a ProvisioningFailed event (msgProvisionFailed).
 */
import { ANN_ALLOW_VOLUME_MODE_CHANGE } from '@pv-controller/kube/snapshot-types.js';

/** external-provisioner's wrapper around every source problem. */
export function msgSourceProblem(kind: string, name: string, detail: string): string {
  return `error getting handle for DataSource Type ${kind} by Name ${name}: ${detail}`;
}

export function msgCannotRestore(plugin: string): string {
  return `volume plugin ${plugin} does not support snapshot restore: it has no snapshot capability`;
}

export function msgCannotClone(plugin: string): string {
  return `volume plugin ${plugin} does not support clone operations`;
}

export function msgNoSnapshotAccess(name: string): string {
  return `error getting snapshot ${name} from api server: this controller has no client for snapshot.storage.k8s.io`;
}

export function msgSnapshotGetFailed(name: string, detail: string): string {
  return `error getting snapshot ${name} from api server: ${detail}`;
}

export function msgSnapshotNotFound(name: string): string {
  return msgSnapshotGetFailed(name, `volumesnapshots.snapshot.storage.k8s.io "${name}" not found`);
}

export const msgSnapshotDeleting = (name: string): string => `snapshot ${name} is being deleted`;
export const msgSnapshotNotBound = (name: string): string => `snapshot ${name} not bound`;
export const msgContentGetFailed = (content: string, name: string): string => `error getting snapshotcontent ${content} for snapshot ${name}`;
export const msgContentBoundElsewhere = (content: string, name: string): string =>
  `snapshotcontent ${content} for snapshot ${name} is bound to a different snapshot`;
export const msgContentOtherDriver = (content: string, name: string, className: string): string =>
  `snapshotcontent ${content} for snapshot ${name} is not handled by CSI driver of StorageClass ${className}`;
export const msgSnapshotNotReady = (name: string): string => `snapshot ${name} is not Ready`;
export const msgSnapshotNoHandle = (name: string): string => `snapshot handle ${name} is not available`;

export function msgRestoreTooSmall(requested: bigint, restoreSize: bigint, name: string): string {
  return `requested volume size ${requested} is less than the size ${restoreSize} for the source snapshot ${name}`;
}

const modeChangeDenied = (claimKey: string): string =>
  `requested volume ${claimKey} modifies the mode of the source volume but does not have permission to do so. `;

export function msgModeChangeNotAllowed(claimKey: string, content: string): string {
  return `${modeChangeDenied(claimKey)}${ANN_ALLOW_VOLUME_MODE_CHANGE} annotation is not present on snapshotcontent ${content}`;
}

export function msgModeChangeUnparsable(claimKey: string, value: string): string {
  return `${modeChangeDenied(claimKey)}failed to convert ${ANN_ALLOW_VOLUME_MODE_CHANGE} annotation value to boolean with error: strconv.ParseBool: parsing "${value}": invalid syntax`;
}

export function msgModeChangeFalse(claimKey: string, content: string): string {
  return `${modeChangeDenied(claimKey)}${ANN_ALLOW_VOLUME_MODE_CHANGE} is set to false on snapshotcontent ${content}`;
}

export function msgSourceClaimNotFound(name: string, namespace: string): string {
  return `error getting PVC ${name} (namespace "${namespace}") from api server: persistentvolumeclaim "${name}" not found`;
}

export const msgSourceClaimNotBound = (name: string, phase: string): string =>
  `the PVC DataSource ${name} must have a status of Bound.  Got phase ${phase === '' ? '""' : phase}`;
export const msgSourceClaimDeleting = (name: string): string => `the PVC DataSource ${name} is currently being deleted`;
export const msgSourceClassEmpty = (name: string): string => `the source PVC (${name}) storageclass cannot be empty`;
export const msgClaimClassEmpty = (name: string): string => `the requested PVC (${name}) storageclass cannot be empty`;
export const msgCloneOtherClass = (source: string, requested: string): string =>
  `the source PVC and destination PVCs must be in the same storage class for cloning.  Source is in ${source}, but new PVC is in ${requested}`;
export const msgCloneTooSmall = (requested: bigint, source: bigint): string =>
  `error, new PVC request must be greater than or equal in size to the specified PVC data source, requested ${requested} but source is ${source}`;
export const msgSourceNoVolume = (name: string): string => `volume name is empty in source PVC ${name}`;
export const MSG_SOURCE_VOLUME_INVALID = 'claim in dataSource not bound or invalid';

export function msgCloneModeMismatch(sourceMode: string, requestedMode: string): string {
  return `the source PVC and destination PVCs must have the same volume mode for cloning.  Source is ${sourceMode}, but new PVC requested ${requestedMode}`;
}
