/** RFC 6902 JSON patch (`application/json-patch+json`) through fast-json-patch. */
import fjp from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { ApiError, BadRequestError } from '../../kube/errors.js';
import { isJsonObject, type JsonValue } from './json-value.js';

/** kube-apiserver caps the number of operations in one JSON patch. */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

/**
 * The 422 kube-apiserver returns when a well-formed JSON patch cannot be applied (a failed
 * `test`, a missing path): NewGenericServerResponse(422) with the reason as a cause.
 */
export class PatchApplyError extends ApiError {
  constructor(detail: string) {
    super(422, 'Invalid', 'the server rejected our request due to an error in our request', {
      causes: [{ reason: 'UnexpectedServerResponse', message: detail }],
    });
  }
}

function decodeOperations(patch: unknown): Operation[] {
  // Go's DecodePatch unmarshals into []map: anything else is a 400.
  if (!Array.isArray(patch)) {
    throw new BadRequestError('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  }
  if (!patch.every(isJsonObject)) {
    throw new BadRequestError('json: cannot unmarshal non-object into Go value of type jsonpatch.Operation');
  }
  if (patch.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new ApiError(413, 'RequestEntityTooLarge',
      `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${patch.length}`);
  }
  return patch as unknown as Operation[];
}

/** Applies the operations to a copy of `doc`: 400 for a malformed patch, 422 when it does not apply. */
export function applyJsonPatch(doc: JsonValue, patch: unknown): JsonValue {
  const ops = decodeOperations(patch);
  try {
    return fjp.applyPatch(doc, ops, true, false, true).newDocument as JsonValue;
  } catch (err) {
    if (err instanceof fjp.JsonPatchError) throw new PatchApplyError(err.message.split('\n')[0]);
    throw err;
  }
}
