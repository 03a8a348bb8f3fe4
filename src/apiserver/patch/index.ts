/**
 * PATCH bodies: picks merge, JSON or strategic merge patch by Content-Type (parameters such as
 * `; charset=utf-8` ignored) and applies it to a copy of the current object.
 */
import { BadRequestError, UnsupportedMediaTypeError } from '../../kube/errors.js';
import type { KubeObject } from '../../kube/types.js';
import type { ResourceStrategy } from '../resources/strategy.js';
import { applyJsonPatch } from './json.js';
import { cloneJson, isJsonObject, type JsonObject, type JsonValue } from './json-value.js';
import { applyMergePatch } from './merge.js';
import { patchMetaForKind } from './patch-meta.js';
import { applyStrategicMergePatch } from './strategic.js';

export const JSON_PATCH = 'application/json-patch+json';
export const MERGE_PATCH = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
export const APPLY_PATCH_YAML = 'application/apply-patch+yaml';
export const SUPPORTED_PATCH_TYPES = [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH] as const;

export { applyJsonPatch, PatchApplyError } from './json.js';
export { applyMergePatch } from './merge.js';
export { applyStrategicMergePatch } from './strategic.js';
export { patchMetaForKind, type PatchMeta } from './patch-meta.js';

/** The media type without parameters, lower-cased: "application/merge-patch+json; charset=utf-8" ⇒ "application/merge-patch+json". */
export function patchMediaType(contentType: string): string {
  return contentType.split(';')[0].trim().toLowerCase();
}

function decodeBody(patch: unknown): unknown {
  if (!(patch instanceof Uint8Array)) return patch;
  try {
    return JSON.parse(Buffer.from(patch).toString('utf8')) as unknown;
  } catch (err) {
    throw new BadRequestError(`error decoding patch: ${(err as Error).message}`);
  }
}

/**
 * Applies a PATCH body (already decoded JSON, or raw bytes) to `current`; returns a new object and
 * never mutates `current`. 415 for other content types (server-side apply included), 400 for a
 * malformed patch, 422 for a JSON patch that does not apply.
 */
export function applyPatch(contentType: string, current: KubeObject, patch: unknown, strategy: ResourceStrategy): KubeObject {
  const mediaType = patchMediaType(contentType);
  if (!(SUPPORTED_PATCH_TYPES as readonly string[]).includes(mediaType)) throw new UnsupportedMediaTypeError(contentType);
  const body = decodeBody(patch);
  const doc = cloneJson(current) as unknown as JsonObject;
  let result: JsonValue;
  if (mediaType === JSON_PATCH) result = applyJsonPatch(doc, body);
  else if (mediaType === MERGE_PATCH) result = applyMergePatch(doc, body);
  else result = applyStrategicMergePatch(doc, body, patchMetaForKind(strategy.info.kind));
  if (!isJsonObject(result)) {
    throw new BadRequestError('the patched object is not a JSON object');
  }
  if (!isJsonObject(result.metadata)) result.metadata = {};
  return result as unknown as KubeObject;
}
