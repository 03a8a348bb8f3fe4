/**
 * The claim status steps of an expansion and a modification, as pure functions of the claim:
 * what upstream's resizers write (pkg/volume/util/resize_util.go for the in-tree expand
 * controller, external-resizer's resize_status.go and modify_status.go). Each returns a new
 * claim; the caller writes it to /status with the resourceVersion it read.
 */
import { ANN_STORAGE_RESIZER } from '@pv-controller/kube/annotations.js';
import type { ClaimResourceStatus, PersistentVolumeClaim, PersistentVolumeClaimCondition } from '@pv-controller/kube/types.js';

export const CONDITION_RESIZING = 'Resizing';
export const CONDITION_FS_RESIZE_PENDING = 'FileSystemResizePending';
export const CONDITION_CONTROLLER_RESIZE_ERROR = 'ControllerResizeError';
const CONDITION_NODE_RESIZE_ERROR = 'NodeResizeError';
export const CONDITION_MODIFYING = 'ModifyingVolume';
export const CONDITION_MODIFY_ERROR = 'ModifyVolumeError';

const RESIZE_CONDITIONS = [CONDITION_RESIZING, CONDITION_FS_RESIZE_PENDING, CONDITION_CONTROLLER_RESIZE_ERROR, CONDITION_NODE_RESIZE_ERROR];
const MODIFY_CONDITIONS = [CONDITION_MODIFYING, CONDITION_MODIFY_ERROR];

export const FS_RESIZE_PENDING_MESSAGE = 'Waiting for user to (re-)start a pod to finish file system resize of volume on node.';

/** The claim's storage resize status (KEP-1790), if any. */
export function storageResizeStatus(pvc: PersistentVolumeClaim): string | undefined {
  return pvc.status?.allocatedResourceStatuses?.storage;
}

function withStatus(pvc: PersistentVolumeClaim, change: (status: NonNullable<PersistentVolumeClaim['status']>) => void): PersistentVolumeClaim {
  const next = structuredClone(pvc);
  next.status ??= {};
  change(next.status);
  return next;
}

function condition(type: string, now: string, message?: string): PersistentVolumeClaimCondition {
  return { type, status: 'True', lastTransitionTime: now, ...(message ? { message } : {}) };
}

/**
 * MergeResizeConditionOnPVC: conditions of other kinds stay; of `family`, those given replace (an
 * unchanged status keeps the old one and its time), the others stay only with `keepOld`.
 */
function mergeConditions(
  old: PersistentVolumeClaimCondition[] | undefined,
  family: readonly string[],
  given: PersistentVolumeClaimCondition[],
  keepOld: boolean,
): PersistentVolumeClaimCondition[] | undefined {
  const merged: PersistentVolumeClaimCondition[] = [];
  const pending = new Map(given.map((c) => [c.type, c]));
  for (const c of old ?? []) {
    if (!family.includes(c.type)) merged.push(c);
    else if (pending.has(c.type)) {
      const replacement = pending.get(c.type) as PersistentVolumeClaimCondition;
      merged.push(replacement.status === c.status && replacement.message === c.message ? c : replacement);
      pending.delete(c.type);
    } else if (keepOld) merged.push(c);
  }
  merged.push(...pending.values());
  return merged.length > 0 ? merged : undefined;
}

function setConditions(status: NonNullable<PersistentVolumeClaim['status']>, conditions: PersistentVolumeClaimCondition[] | undefined): void {
  if (conditions) status.conditions = conditions;
  else delete status.conditions;
}

function setStorageStatus(status: NonNullable<PersistentVolumeClaim['status']>, value: ClaimResourceStatus | undefined): void {
  const statuses = { ...(status.allocatedResourceStatuses ?? {}) };
  if (value === undefined) delete statuses.storage;
  else statuses.storage = value;
  if (Object.keys(statuses).length > 0) status.allocatedResourceStatuses = statuses;
  else delete status.allocatedResourceStatuses;
}

/**
 * MarkControllerResizeInProgress: the size about to be asked of the plugin, recorded before it is
 * asked; with `resizer`, the claim also names who grows it (`volume.kubernetes.io/storage-resizer`,
 * as kube-controller-manager's MarkResizeInProgressWithResizer writes it in the same status write).
 */
export function markResizeInProgress(pvc: PersistentVolumeClaim, size: string, now: string, resizer?: string): PersistentVolumeClaim {
  const next = withStatus(pvc, (s) => {
    setConditions(s, mergeConditions(s.conditions, RESIZE_CONDITIONS, [condition(CONDITION_RESIZING, now)], false));
    setStorageStatus(s, 'ControllerResizeInProgress');
    s.allocatedResources = { ...(s.allocatedResources ?? {}), storage: size };
  });
  if (resizer !== undefined) next.metadata.annotations = { ...(next.metadata.annotations ?? {}), [ANN_STORAGE_RESIZER]: resizer };
  return next;
}

/** MarkForFSResize: the volume has grown; the filesystem grows when a node mounts it. */
export function markNodeExpansionPending(pvc: PersistentVolumeClaim, now: string): PersistentVolumeClaim {
  return withStatus(pvc, (s) => {
    const pending = condition(CONDITION_FS_RESIZE_PENDING, now, FS_RESIZE_PENDING_MESSAGE);
    setConditions(s, mergeConditions(s.conditions, RESIZE_CONDITIONS, [pending], true));
    setStorageStatus(s, 'NodeResizePending');
  });
}

/** MarkResizeFinished: the claim has its new capacity, and no resize status or condition is left. */
export function markResizeFinished(pvc: PersistentVolumeClaim, capacity: string): PersistentVolumeClaim {
  return withStatus(pvc, (s) => {
    s.capacity = { ...(s.capacity ?? {}), storage: capacity };
    setStorageStatus(s, undefined);
    setConditions(s, mergeConditions(s.conditions, RESIZE_CONDITIONS, [], false));
  });
}

/**
 * A failed controller expansion: ControllerResizeError with the plugin's message; a final failure
 * also marks the size ControllerResizeInfeasible, which lets the user ask for less (KEP-1790).
 */
export function markResizeFailed(pvc: PersistentVolumeClaim, message: string, final: boolean, now: string): PersistentVolumeClaim {
  return withStatus(pvc, (s) => {
    const failed = condition(CONDITION_CONTROLLER_RESIZE_ERROR, now, message);
    setConditions(s, mergeConditions(s.conditions, RESIZE_CONDITIONS, [failed], false));
    if (final) setStorageStatus(s, 'ControllerResizeInfeasible');
  });
}

/** A modification started (InProgress, target recorded) or waiting for its class to exist (Pending). */
export function markModifyStatus(pvc: PersistentVolumeClaim, status: 'Pending' | 'InProgress', target: string, now: string): PersistentVolumeClaim {
  return withStatus(pvc, (s) => {
    s.modifyVolumeStatus = { targetVolumeAttributesClassName: target, status };
    if (status === 'InProgress') {
      const modifying = condition(CONDITION_MODIFYING, now, 'ModifyVolume operation in progress.');
      setConditions(s, mergeConditions(s.conditions, MODIFY_CONDITIONS, [modifying], true));
    }
  });
}

/** A failed modification: ModifyVolumeError; a final one marks the target Infeasible. */
export function markModifyFailed(pvc: PersistentVolumeClaim, message: string, final: boolean, now: string): PersistentVolumeClaim {
  return withStatus(pvc, (s) => {
    const failed = condition(CONDITION_MODIFY_ERROR, now, `ModifyVolume failed with error: ${message}. Waiting for retry.`);
    setConditions(s, mergeConditions(s.conditions, MODIFY_CONDITIONS, [failed], true));
    if (final && s.modifyVolumeStatus) s.modifyVolumeStatus = { ...s.modifyVolumeStatus, status: 'Infeasible' };
  });
}

/** The volume has the class's attributes: it becomes the claim's current class. */
export function markModifyFinished(pvc: PersistentVolumeClaim, target: string): PersistentVolumeClaim {
  return withStatus(pvc, (s) => {
    s.currentVolumeAttributesClassName = target;
    delete s.modifyVolumeStatus;
    setConditions(s, mergeConditions(s.conditions, MODIFY_CONDITIONS, [], false));
  });
}
