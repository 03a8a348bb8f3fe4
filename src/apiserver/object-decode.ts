/**
 * Turning a request body into an object the registry can work on, and the metadata rules every
 * resource shares (what create resets, what an update may not change, omitempty normalisation).
 */
import { BadRequestError, ConflictError, type ResourceIdentity } from '../kube/errors.js';
import type { KubeObject, ObjectMeta, StatusCause } from '../kube/types.js';
import { isRegisteredKind, schemaForKind } from './decode/schema.js';
import { decodeTyped, DecodeError } from './decode/typed-decoder.js';
import { decodeKindObject, type DecodedObject, type FieldValidation } from './field-validation.js';
import { isPlainObject } from './object-utils.js';
import type { ResourceInfo } from './resources/strategy.js';

export function apiVersionOf(info: ResourceInfo): string {
  return info.group ? `${info.group}/${info.version}` : info.version;
}

export function identityOf(info: ResourceInfo, name: string | undefined): ResourceIdentity {
  return info.group ? { group: info.group, kind: info.plural, name } : { kind: info.plural, name };
}

/** The kind and version a body says it is, as the 400 below names them. */
interface DataKind {
  kind: string;
  version: string;
}

/** The 400 kube-apiserver gives when a create/update body does not decode into its kind. */
export function cannotBeHandled(info: ResourceInfo, detail: string, data: DataKind = info): BadRequestError {
  return new BadRequestError(`${data.kind} in version "${data.version}" cannot be handled as a ${info.kind}: ${detail}`);
}

/** Go's package of the internal type a group's kinds convert to (events.k8s.io's Event is core's). */
export function internalPackage(group: string): string {
  return group === '' || group === 'events.k8s.io' ? 'core' : group.split('.')[0];
}

/**
 * kube-apiserver's decoder reads a body as the kind it names, then converts it to the endpoint's:
 * a kind its scheme does not know is "not registered"; another registered kind decodes (its own
 * type errors show) and then has no conversion; the endpoint's kind in another registered
 * version is refused by the version check after decoding.
 */
function requireEndpointKind(info: ResourceInfo, body: Record<string, unknown>): void {
  const apiVersion = typeof body.apiVersion === 'string' && body.apiVersion !== '' ? body.apiVersion : apiVersionOf(info);
  const kind = typeof body.kind === 'string' && body.kind !== '' ? body.kind : info.kind;
  if (apiVersion === apiVersionOf(info) && kind === info.kind) return;
  const slash = apiVersion.indexOf('/');
  const [group, version] = slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
  const data = { kind, version };
  if (!isRegisteredKind(group, version, kind)) {
    throw cannotBeHandled(info, `no kind "${kind}" is registered for version "${apiVersion}" in scheme "pkg/runtime/scheme.go:111"`, data);
  }
  if (kind === info.kind) {
    throw new BadRequestError(`the API version in the data (${apiVersion}) does not match the expected API version (${apiVersionOf(info)})`);
  }
  try {
    decodeTyped(body, schemaForKind(group, version, kind));
  } catch (err) {
    throw err instanceof DecodeError ? cannotBeHandled(info, err.message, data) : err;
  }
  throw cannotBeHandled(info, `converting (${version}.${kind}) to (${internalPackage(info.group)}.${info.kind}): unknown conversion`, data);
}

/**
 * Decodes a create/update body into a fresh object of the kind with kind, apiVersion and
 * namespace set; unknown fields are dropped (or refused under Strict) and reported back, a
 * value of the wrong type is refused, as kube-apiserver's decoder does. The body is not changed.
 */
export function decodeObject(
  info: ResourceInfo,
  body: unknown,
  namespace: string,
  fieldValidation: FieldValidation,
): DecodedObject {
  if (!isPlainObject(body)) throw new BadRequestError(`Object '${info.kind}' is missing in the request body`);
  requireEndpointKind(info, body);
  let decoded: DecodedObject;
  try {
    decoded = decodeKindObject(info, body, fieldValidation);
  } catch (err) {
    throw err instanceof DecodeError ? cannotBeHandled(info, err.message) : err;
  }
  setScope(info, decoded.object, namespace);
  return decoded;
}

/**
 * An object the server writes itself (bootstrap, the embedded controllers), decoded as the body
 * of a request would be: kube-apiserver's own writes go through its loopback client.
 */
export function decodeOwnWrite(info: ResourceInfo, object: KubeObject, namespace: string): DecodedObject {
  return decodeObject(info, object, namespace, 'Warn');
}

/** Sets `kind`/`apiVersion`/namespace on an object that came out of a patch. */
export function setScope(info: ResourceInfo, object: KubeObject, namespace: string): void {
  const meta = object.metadata;
  if (info.namespaced) {
    if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== namespace) {
      throw new BadRequestError('the namespace of the provided object does not match the namespace sent on the request');
    }
    meta.namespace = namespace;
  } else {
    delete meta.namespace;
  }
  object.apiVersion = apiVersionOf(info);
  object.kind = info.kind;
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
