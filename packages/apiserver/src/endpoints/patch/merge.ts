/** RFC 7386 JSON merge patch (`application/merge-patch+json`). */
import { cloneJson, isJsonObject, setKey, type JsonValue } from './json-value.js';

/**
 * Applies a merge patch: objects merge recursively, `null` deletes a key, anything else
 * (arrays included) replaces. Returns a new value; neither argument is mutated.
 */
export function applyMergePatch(target: unknown, patch: unknown): JsonValue {
  if (!isJsonObject(patch)) return cloneJson(patch as JsonValue);
  const result = isJsonObject(target) ? cloneJson(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else setKey(result, key, applyMergePatch(Object.hasOwn(result, key) ? result[key] : undefined, value));
  }
  return result;
}
