/**
 * A patch result goes through the same typed decoder as a create or update body, so no patch
 * can store a field the kind does not have, a value of the wrong type, or anything nested
 * deeper than the limit. kube-apiserver reports a result that does not decode as a 422 on the
 * field "patch", quoting what it decoded: the patched object for merge and JSON patches, the
 * patch itself (as Go prints a map) for a strategic merge patch.
 */
import { ApiError } from '@pv-controller/kube/errors.js';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { goFormatValue, goQuote } from '../../decode/go-text.js';
import { DecodeError } from '../../decode/typed-decoder.js';
import { decodeKindObject, type DecodedObject } from '../../decode/field-validation.js';
import type { FieldValidation } from '../../api/query-params.js';
import type { ResourceInfo } from '../../resources/strategy.js';
import { patchMediaType, STRATEGIC_MERGE_PATCH } from './index.js';

function patchInvalid(value: string, detail: string): ApiError {
  const message = `Invalid value: ${goQuote(value)}: ${detail}`;
  return new ApiError(422, 'Invalid', ` "" is invalid: patch: ${message}`, {
    causes: [{ reason: 'FieldValueInvalid', message, field: 'patch' }],
  });
}

/** Decodes the patched object into its kind; 422 (as kube-apiserver) when it does not decode. */
export function decodePatchResult(
  info: ResourceInfo,
  contentType: string,
  patch: unknown,
  patched: KubeObject,
  level: FieldValidation,
): DecodedObject {
  try {
    return decodeKindObject(info, patched, level);
  } catch (err) {
    if (!(err instanceof DecodeError)) throw err;
    const strategic = patchMediaType(contentType) === STRATEGIC_MERGE_PATCH;
    throw patchInvalid(strategic ? goFormatValue(patch) : JSON.stringify(patched), err.message);
  }
}
