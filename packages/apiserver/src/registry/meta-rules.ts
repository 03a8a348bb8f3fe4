/**
 * The metadata rules every resource shares, as kube-apiserver's generic registry applies them:
 * what create resets, what an update may not change, omitempty normalisation, the name and uid
 * an update must agree with, and the finalizers a deleting object may not gain.
 */
import { BadRequestError, ConflictError, type ResourceIdentity } from '@pv-controller/kube/errors.js';
import type { KubeObject, ObjectMeta, StatusCause } from '@pv-controller/kube/types.js';
import type { ResourceInfo } from '../resources/strategy.js';

export function identityOf(info: ResourceInfo, name: string | undefined): ResourceIdentity {
  return info.group ? { group: info.group, kind: info.plural, name } : { kind: info.plural, name };
}

export function requireNameMatchesUrl(meta: ObjectMeta, urlName: string): void {
  if (meta.name !== undefined && meta.name !== '' && meta.name !== urlName) {
    throw new BadRequestError(`the name of the object (${meta.name}) does not match the name on the URL (${urlName})`);
  }
  meta.name = urlName;
}

/** Drops empty optional metadata so `[]` vs absent never makes a write look like a change. */
function normalizeMeta(meta: ObjectMeta): void {
  for (const key of ['finalizers', 'ownerReferences', 'managedFields'] as const) {
    const v = meta[key];
    if (Array.isArray(v) && v.length === 0) delete meta[key];
  }
  for (const key of ['labels', 'annotations'] as const) {
    const v = meta[key];
    if (v && Object.keys(v).length === 0) delete meta[key];
  }
  delete meta.selfLink;
  delete meta.managedFields;
}

/**
 * What the server owns on create: identity, timestamps, nothing of deletion, and generation 1
 * where the strategy tracks it (elsewhere BeforeCreate leaves generation as sent).
 */
export function resetMetaForCreate(meta: ObjectMeta, uid: string, now: string, tracksGeneration: boolean): void {
  meta.uid = uid;
  meta.creationTimestamp = now;
  if (tracksGeneration) meta.generation = 1;
  delete meta.resourceVersion;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  normalizeMeta(meta);
}

/** Copies what an update may not change from the stored object. */
export function carrySystemMeta(next: ObjectMeta, prev: ObjectMeta): void {
  next.uid = prev.uid;
  next.creationTimestamp = prev.creationTimestamp;
  if (prev.generation !== undefined) next.generation = prev.generation;
  else delete next.generation;
  next.resourceVersion = prev.resourceVersion;
  if (prev.deletionTimestamp !== undefined) next.deletionTimestamp = prev.deletionTimestamp;
  else delete next.deletionTimestamp;
  if (prev.deletionGracePeriodSeconds !== undefined) next.deletionGracePeriodSeconds = prev.deletionGracePeriodSeconds;
  else delete next.deletionGracePeriodSeconds;
  if (prev.generateName !== undefined && next.generateName === undefined) next.generateName = prev.generateName;
  normalizeMeta(next);
}

/** 409 when the body names another uid than the stored object's (the uid precondition). */
export function checkUidPrecondition(info: ResourceInfo, want: string | undefined, prev: KubeObject): void {
  const have = prev.metadata.uid;
  if (want === undefined || want === '' || want === have) return;
  throw preconditionFailed(info, prev, `UID in precondition: ${want}, UID in object meta: ${have ?? ''}`);
}

export function preconditionFailed(info: ResourceInfo, obj: KubeObject, detail: string): ConflictError {
  const id = identityOf(info, obj.metadata.name);
  const qualified = info.group ? `${info.plural}.${info.group}` : info.plural;
  return new ConflictError(
    id,
    `Operation cannot be fulfilled on ${qualified} "${obj.metadata.name ?? ''}": Precondition failed: ${detail}`,
  );
}

/** ValidateObjectMetaUpdate's finalizer rule: none may be added once deletion started. */
export function finalizerAdditionCauses(next: ObjectMeta, prev: ObjectMeta): StatusCause[] {
  if (prev.deletionTimestamp === undefined) return [];
  const before = new Set(prev.finalizers ?? []);
  const added = (next.finalizers ?? []).filter((f) => !before.has(f));
  if (added.length === 0) return [];
  // Go's %#v of the []string of new finalizers.
  const list = `[]string{${added.map((f) => JSON.stringify(f)).join(', ')}}`;
  return [
    {
      reason: 'FieldValueForbidden',
      message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${list}`,
      field: 'metadata.finalizers',
    },
  ];
}
