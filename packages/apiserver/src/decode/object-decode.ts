/**
 * Turning a request body into an object of the endpoint's kind that the registry can work on,
 * as kube-apiserver's decoder does (the metadata rules every write shares are meta-rules.ts).
 */
import { BadRequestError } from '@pv-controller/kube/errors.js';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { isRegisteredKind, schemaForKind } from './schema.js';
import { decodeTyped, DecodeError } from './typed-decoder.js';
import { decodeKindObject, type DecodedObject } from './field-validation.js';
import type { FieldValidation } from '../api/query-params.js';
import { isPlainObject } from '../resources/object-utils.js';
import { QualifiedInvalidError } from '../api/errors.js';
import { invalid } from '../api/field-errors.js';
import type { ResourceInfo } from '../resources/strategy.js';

export function apiVersionOf(info: ResourceInfo): string {
  return info.group ? `${info.group}/${info.version}` : info.version;
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
  if (info.custom !== undefined) {
    // A custom resource's body is read as unstructured JSON: only the names are compared.
    if (apiVersion !== apiVersionOf(info)) {
      throw new BadRequestError(`the API version in the data (${apiVersion}) does not match the expected API version (${apiVersionOf(info)})`);
    }
    // ValidateTypeMeta refuses it, under the kind the body names.
    const name = isPlainObject(body.metadata) && typeof body.metadata.name === 'string' ? body.metadata.name : undefined;
    throw new QualifiedInvalidError({ kind, group, ...(name !== undefined ? { name } : {}) }, [invalid('kind', kind, `must be ${info.kind}`)]);
  }
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
