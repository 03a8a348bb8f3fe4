/**
 * ValidateObjectMeta / ValidateObjectMetaUpdate (apimachinery/pkg/api/validation/objectmeta.go).
 * The registry itself enforces "no new finalizers while deleting"
 * and carries uid, creationTimestamp and resourceVersion, so those are not repeated here.
 */
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '../../kube/name-validation.js';
import type { ObjectMeta, StatusCause } from '../../kube/types.js';
import { forbidden, immutable, invalid, invalidEach, required, tooLong } from './field-errors.js';

export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/** A name validation function: (name, isPrefix) ⇒ problems, like Go's ValidateNameFunc. */
export type NameValidator = (name: string, prefix: boolean) => string[];

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
    causes.push(...invalidEach(field, k, isQualifiedName(k)));
    causes.push(...invalidEach(field, v, isValidLabelValue(String(v))));
  }
  return causes;
}

export function validateAnnotations(annotations: Record<string, string> | undefined, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  let size = 0;
  for (const [k, v] of Object.entries(annotations ?? {})) {
    causes.push(...invalidEach(field, k, isQualifiedName(k.toLowerCase())));
    size += Buffer.byteLength(k) + Buffer.byteLength(String(v));
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) causes.push(tooLong(field, TOTAL_ANNOTATION_SIZE_LIMIT));
  return causes;
}

export function validateFinalizers(finalizers: string[] | undefined, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const f of finalizers ?? []) causes.push(...invalidEach(field, f, isQualifiedName(String(f))));
  const list = finalizers ?? [];
  if (list.includes('orphan') && list.includes('foregroundDeletion')) {
    causes.push(invalid(field, list, 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  return causes;
}

export function validateOwnerReferences(meta: ObjectMeta, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  let firstController = '';
  for (const ref of meta.ownerReferences ?? []) {
    const version = (ref.apiVersion ?? '').split('/').pop() ?? '';
    if (!version) causes.push(invalid(`${field}.apiVersion`, ref.apiVersion ?? '', 'version must not be empty'));
    if (!ref.kind) causes.push(invalid(`${field}.kind`, ref.kind ?? '', 'kind must not be empty'));
    if (!ref.name) causes.push(invalid(`${field}.name`, ref.name ?? '', 'name must not be empty'));
    if (!ref.uid) causes.push(invalid(`${field}.uid`, ref.uid ?? '', 'uid must not be empty'));
    if (ref.controller === true) {
      const current = `${ref.kind}/${ref.name}`;
      if (firstController) {
        causes.push(invalid(field, meta.ownerReferences,
          `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`));
      } else {
        firstController = current;
      }
    }
  }
  return causes;
}

function validateMetaContents(meta: ObjectMeta): StatusCause[] {
  const causes: StatusCause[] = [];
  if (typeof meta.generation === 'number' && meta.generation < 0) {
    causes.push(invalid('metadata.generation', meta.generation, 'must be greater than or equal to 0'));
  }
  causes.push(...validateLabels(meta.labels, 'metadata.labels'));
  causes.push(...validateAnnotations(meta.annotations, 'metadata.annotations'));
  causes.push(...validateOwnerReferences(meta, 'metadata.ownerReferences'));
  causes.push(...validateFinalizers(meta.finalizers, 'metadata.finalizers'));
  return causes;
}

/** ValidateObjectMeta for a new object. */
export function validateObjectMeta(meta: ObjectMeta, namespaced: boolean, nameFn: NameValidator): StatusCause[] {
  const causes: StatusCause[] = [];
  if (meta.generateName) causes.push(...invalidEach('metadata.generateName', meta.generateName, nameFn(meta.generateName, true)));
  if (!meta.name) causes.push(required('metadata.name', 'name or generateName is required'));
  else causes.push(...invalidEach('metadata.name', meta.name, nameFn(meta.name, false)));
  if (namespaced) {
    if (!meta.namespace) causes.push(required('metadata.namespace'));
    else causes.push(...invalidEach('metadata.namespace', meta.namespace, isDNS1123Label(meta.namespace)));
  } else if (meta.namespace) {
    causes.push(forbidden('metadata.namespace', 'not allowed on this type'));
  }
  causes.push(...validateMetaContents(meta));
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
