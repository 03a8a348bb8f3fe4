/**
 * PATCH bodies: picks merge, JSON or strategic merge patch by Content-Type (parameters such as
 * `; charset=utf-8` ignored) and applies it to a copy of the current object.
 */
import { ApiError, BadRequestError, RequestEntityTooLargeError, UnsupportedMediaTypeError } from '@pv-controller/kube/errors.js';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { inspectValue, parseRequestBody } from '../../decode/request-body.js';
import { MAX_NESTING_DEPTH } from '../../decode/typed-decoder.js';
import { MAX_BODY_BYTES } from '../../api/http-io.js';
import type { ResourceStrategy } from '../../resources/strategy.js';
import { applyJsonPatch, undecodablePatch } from './json.js';
import { cloneJson, isJsonObject, type JsonObject, type JsonValue } from './json-value.js';
import { applyMergePatch } from './merge.js';
import { applyStrategicMergePatch } from './strategic.js';

export const JSON_PATCH = 'application/json-patch+json';
export const MERGE_PATCH = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
export const APPLY_PATCH_YAML = 'application/apply-patch+yaml';
export const SUPPORTED_PATCH_TYPES = [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH_YAML] as const;

/** Server-side apply: its body is a configuration, merged by the field manager (`apply/`), not here. */
export function isApplyPatch(contentType: string): boolean {
  return patchMediaType(contentType) === APPLY_PATCH_YAML;
}

export { applyJsonPatch, PatchApplyError } from './json.js';
export { applyMergePatch } from './merge.js';
export { applyStrategicMergePatch } from './strategic.js';

/** The media type without parameters, lower-cased: "application/merge-patch+json; charset=utf-8" ⇒ "application/merge-patch+json". */
export function patchMediaType(contentType: string): string {
  return contentType.split(';')[0].trim().toLowerCase();
}

/**
 * A PATCH body as JSON: raw bytes are parsed, and any body is held to the nesting limit every
 * request body has (400 "invalid JSON patch", as kube-apiserver answers for a body it cannot
 * read), so the recursive patch code never sees more. 415 for a patch type we do not apply.
 */
export function parsePatchBody(contentType: string, patch: unknown): unknown {
  requirePatchContentType(contentType);
  if (patch instanceof Uint8Array) return parseRequestBody(patch, { role: 'patch' });
  if (inspectValue(patch, MAX_NESTING_DEPTH) !== undefined) throw new BadRequestError('invalid JSON patch');
  return patch;
}

/** The patch types kube-apiserver's custom resource handler takes: no strategic merge patch, as there is no Go type. */
const CUSTOM_RESOURCE_PATCH_TYPES = [JSON_PATCH, MERGE_PATCH, APPLY_PATCH_YAML];

/** 415 for a PATCH whose Content-Type is no patch type served here; `custom`: of a custom resource, in its handler's words. */
export function requirePatchContentType(contentType: string, custom = false): string {
  const mediaType = patchMediaType(contentType);
  if (custom && !CUSTOM_RESOURCE_PATCH_TYPES.includes(mediaType)) {
    const accepted = CUSTOM_RESOURCE_PATCH_TYPES.join(', ');
    throw new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted}`);
  }
  if (!(SUPPORTED_PATCH_TYPES as readonly string[]).includes(mediaType)) throw new UnsupportedMediaTypeError();
  return mediaType;
}

/**
 * A patched object may be no larger than a body a PUT may send. Merge and strategic patches
 * only add what their body holds, and a JSON patch's copies are bounded while it applies, so the
 * result is at most a few MiB before it is measured here.
 */
export const MAX_PATCHED_OBJECT_BYTES = MAX_BODY_BYTES;

function requireWithinObjectLimit(result: JsonValue): void {
  if (Buffer.byteLength(JSON.stringify(result)) > MAX_PATCHED_OBJECT_BYTES) {
    throw new RequestEntityTooLargeError(MAX_PATCHED_OBJECT_BYTES);
  }
}

/**
 * Merge and strategic merge patches are unmarshalled into a map first: any other JSON is a 400
 * (a `null` merge patch is "Invalid JSON Patch"; a `null` strategic one changes nothing).
 */
function requireMapPatch(body: unknown, prefix: string): JsonObject {
  if (isJsonObject(body)) return body;
  if (body === null) throw new BadRequestError('Invalid JSON Patch');
  throw undecodablePatch(body, 'map[string]interface {}', prefix);
}

/**
 * Applies a PATCH body (already decoded JSON, or raw bytes) to `current`; returns a new object and
 * never mutates `current`. 415 for other content types (server-side apply is not a patch here), 400 for a
 * malformed patch, 422 for a JSON patch that does not apply or copies too much, 413 for a result
 * larger than a request body may be.
 */
export function applyPatch(contentType: string, current: KubeObject, patch: unknown, strategy: ResourceStrategy): KubeObject {
  const mediaType = requirePatchContentType(contentType);
  if (mediaType === APPLY_PATCH_YAML) throw new UnsupportedMediaTypeError();
  const body = patch instanceof Uint8Array ? parsePatchBody(contentType, patch) : patch;
  const doc = cloneJson(current) as unknown as JsonObject;
  let result: JsonValue;
  if (mediaType === JSON_PATCH) result = applyJsonPatch(doc, body);
  else if (mediaType === MERGE_PATCH) result = applyMergePatch(doc, requireMapPatch(body, 'error decoding patch: '));
  else result = body === null ? doc : applyStrategicMergePatch(doc, requireMapPatch(body, ''), strategy.info);
  if (!isJsonObject(result)) {
    throw new BadRequestError('the patched object is not a JSON object');
  }
  requireWithinObjectLimit(result);
  if (!isJsonObject(result.metadata)) result.metadata = {};
  return result as unknown as KubeObject;
}
