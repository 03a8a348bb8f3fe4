/**
 * ValidateObjectMeta / ValidateObjectMetaUpdate (apimachinery/pkg/api/validation/objectmeta.go).
 * The registry itself enforces "no new finalizers while deleting"
 * and carries uid, creationTimestamp and resourceVersion, so those are not repeated here.
 */
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '@pv-controller/kube/name-validation.js';
import type { ObjectMeta, OwnerReference, StatusCause } from '@pv-controller/kube/types.js';
import { appendCauses, forbidden, immutable, invalid, invalidEach, invalidRendered, required, tooLong } from '../api/field-errors.js';

const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/** A name validation function: (name, isPrefix) ⇒ problems, like Go's ValidateNameFunc. */
type NameValidator = (name: string, prefix: boolean) => string[];

/** generateName may end in '-': upstream masks a trailing dash before checking the prefix. */
const maskTrailingDash = (name: string, prefix: boolean): string =>
  prefix && name.length > 1 && name.endsWith('-') ? `${name.slice(0, -1)}a` : name;

export const nameIsDNSSubdomain: NameValidator = (name, prefix) => isDNS1123Subdomain(maskTrailingDash(name, prefix));
export const nameIsDNSLabel: NameValidator = (name, prefix) => isDNS1123Label(maskTrailingDash(name, prefix));

/** Path segment names may not be "." or ".." nor contain "/" or "%" (ValidatePathSegmentName). */
export const nameIsPathSegment: NameValidator = (name, prefix) => {
  if (!prefix && (name === '.' || name === '..')) return [`may not be '${name}'`];
  for (const bad of ['/', '%']) if (name.includes(bad)) return [`may not contain '${bad}'`];
  return [];
};

export function validateLabels(labels: Record<string, string> | undefined, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const [k, v] of Object.entries(labels ?? {})) {
    appendCauses(causes, invalidEach(field, k, isQualifiedName(k)));
    appendCauses(causes, invalidEach(field, v, isValidLabelValue(String(v))));
  }
  return causes;
}

export function validateAnnotations(annotations: Record<string, string> | undefined, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  let size = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) {
    appendCauses(causes, invalidEach(field, k, isQualifiedName(k.toLowerCase())));
    size += Buffer.byteLength(k) + Buffer.byteLength(String(v));
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) causes.push(tooLong(field, TOTAL_ANNOTATION_SIZE_LIMIT));
  return causes;
}

function validateFinalizers(finalizers: string[] | undefined, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const f of finalizers ?? []) appendCauses(causes, invalidEach(field, f, isQualifiedName(String(f))));
  const list = finalizers ?? [];
  if (list.includes('orphan') && list.includes('foregroundDeletion')) {
    causes.push(invalid(field, list, 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return causes;
}

/** An OwnerReference as Go's encoding/json writes it: fields in struct order, the optional ones only when set. */
function ownerReferenceJson(ref: OwnerReference): string {
  const go: Record<string, unknown> = { apiVersion: ref.apiVersion ?? '', kind: ref.kind ?? '', name: ref.name ?? '', uid: ref.uid ?? '' };
  if (typeof ref.controller === 'boolean') go.controller = ref.controller;
  if (typeof ref.blockOwnerDeletion === 'boolean') go.blockOwnerDeletion = ref.blockOwnerDeletion;
  return JSON.stringify(go);
}

/** schema.ParseGroupVersion: the version, or undefined when the string is not a group version. */
function versionOf(apiVersion: string): string | undefined {
  if (apiVersion === '/') return '';
  const parts = apiVersion.split('/');
  return parts.length > 2 ? undefined : parts[parts.length - 1];
}

/** validateOwnerReference: each missing field is required, a version must parse, an Event owns nothing. */
function validateOwnerReference(ref: OwnerReference, at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const apiVersion = ref.apiVersion ?? '';
  const version = versionOf(apiVersion);
  if (apiVersion === '') causes.push(required(`${at}.apiVersion`, 'must not be empty'));
  else if (!version) causes.push(invalid(`${at}.apiVersion`, apiVersion, 'must be <group>/<version> or <version>'));
  for (const key of ['kind', 'name', 'uid'] as const) if (!ref[key]) causes.push(required(`${at}.${key}`, 'must not be empty'));
  if (apiVersion === 'v1' && ref.kind === 'Event') {
    causes.push(invalidRendered(at, ownerReferenceJson(ref), '/v1, Kind=Event is disallowed from being an owner'));
  }
  return causes;
}

/**
 * ValidateOwnerReferences. Every controller reference after the first is an error that prints the
 * whole list, as upstream's does; the list is rendered once for all of them (it was rendered per
 * error: quadratic, and at 3,700 references a string too long for V8 that ended the process).
 */
function validateOwnerReferences(meta: ObjectMeta, field: string): StatusCause[] {
  const refs = meta.ownerReferences ?? [];
  const causes: StatusCause[] = [];
  let firstController = '';
  let rendered: string | undefined;
  refs.forEach((ref, i) => {
    appendCauses(causes, validateOwnerReference(ref, `${field}[${i}]`));
    if (ref.controller !== true) return;
    const current = `${ref.kind ?? ''}/${ref.name ?? ''}`;
    if (!firstController) {
      firstController = current;
      return;
    }
    rendered ??= `[${refs.map(ownerReferenceJson).join(',')}]`;
    causes.push(invalidRendered(field, rendered,
      `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`));
  });
  return causes;
}

function validateMetaContents(meta: ObjectMeta): StatusCause[] {
  const causes: StatusCause[] = [];
  if (typeof meta.generation === 'number' && meta.generation < 0) {
    causes.push(invalid('metadata.generation', meta.generation, 'must be greater than or equal to 0'));
  }
  appendCauses(causes, validateLabels(meta.labels, 'metadata.labels'));
  appendCauses(causes, validateAnnotations(meta.annotations, 'metadata.annotations'));
  appendCauses(causes, validateOwnerReferences(meta, 'metadata.ownerReferences'));
  appendCauses(causes, validateFinalizers(meta.finalizers, 'metadata.finalizers'));
  return causes;
}

/** ValidateObjectMeta for a new object. */
export function validateObjectMeta(meta: ObjectMeta, namespaced: boolean, nameFn: NameValidator): StatusCause[] {
  const causes: StatusCause[] = [];
  if (meta.generateName) appendCauses(causes, invalidEach('metadata.generateName', meta.generateName, nameFn(meta.generateName, true)));
  if (!meta.name) causes.push(required('metadata.name', 'name or generateName is required'));
  else appendCauses(causes, invalidEach('metadata.name', meta.name, nameFn(meta.name, false)));
  if (namespaced) {
    if (!meta.namespace) causes.push(required('metadata.namespace'));
    else appendCauses(causes, invalidEach('metadata.namespace', meta.namespace, isDNS1123Label(meta.namespace)));
  } else if (meta.namespace) {
    causes.push(forbidden('metadata.namespace', 'not allowed on this type'));
  }
  appendCauses(causes, validateMetaContents(meta));
  return causes;
}

/**
 * ValidateObjectMetaUpdate's own rules: identity immutable, generation never decreases. The
 * syntax of labels/annotations/finalizers is re-checked by each strategy's create validation,
 * which its update validation runs too (so no cause is reported twice).
 */
export function validateObjectMetaUpdate(next: ObjectMeta, prev: ObjectMeta): StatusCause[] {
  const causes: StatusCause[] = [];
  if ((next.generation ?? 0) < (prev.generation ?? 0)) {
    causes.push(invalid('metadata.generation', next.generation ?? 0, 'must not be decremented'));
  }
  if ((next.name ?? '') !== (prev.name ?? '')) causes.push(immutable('metadata.name', next.name ?? ''));
  if ((next.namespace ?? '') !== (prev.namespace ?? '')) causes.push(immutable('metadata.namespace', next.namespace ?? ''));
  return causes;
}
