/**
 * RFC 6902 JSON patch (`application/json-patch+json`): fast-json-patch applies the operations one
 * at a time, after the checks kube-apiserver's jsonpatch makes and fast-json-patch does not. A
 * patch has at most 10,000 operations, its copies may add at most 3 MiB in all (measured before
 * each copy is made, so `add` 1 KiB then `copy` it onto itself 19 times stops at ~3 MiB rather
 * than building 512 MiB), and every path it reads must name a member of the document (fast-json-
 * patch would follow inherited properties such as `/constructor` or `/list/length`).
 */
import fjp from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { ApiError, BadRequestError } from '../../kube/errors.js';
import { isJsonObject, type JsonValue } from './json-value.js';

/** kube-apiserver caps the number of operations in one JSON patch (maxJSONPatchOperations). */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

/** What a JSON patch's copies may add in all (kube-apiserver's JSONPatchMaxCopyBytes). */
export const MAX_JSON_PATCH_COPY_BYTES = 3 * 1024 * 1024;

/**
 * The 422 kube-apiserver returns when a well-formed patch cannot be applied (a failed `test`, a
 * missing path, too much copied): NewGenericServerResponse(422) with empty details; the reason
 * stays on the error for logs and tests, the client is not told it.
 */
export class PatchApplyError extends ApiError {
  constructor(readonly detail: string) {
    super(422, 'Invalid', 'the server rejected our request due to an error in our request', {}, true);
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
      `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${patch.length}`);
  }
  return patch as unknown as Operation[];
}

const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;

/** The value a JSON pointer names, following own members and in-range indexes only. */
function resolvePointer(doc: JsonValue, pointer: string): { value: JsonValue } | undefined {
  if (pointer === '') return { value: doc };
  if (!pointer.startsWith('/')) return undefined;
  let current: JsonValue = doc;
  for (const token of pointer.slice(1).split('/')) {
    const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current)) {
      if (!ARRAY_INDEX.test(key) || Number(key) >= current.length) return undefined;
      current = current[Number(key)];
    } else if (isJsonObject(current) && Object.hasOwn(current, key)) {
      current = current[key];
    } else {
      return undefined;
    }
  }
  return { value: current };
}

/** The pointer an operation must find in the document before it runs. */
function pointerItReads(op: Operation): string | undefined {
  switch (op.op) {
    case 'copy':
    case 'move':
      return op.from;
    case 'add':
      return op.path === '' ? undefined : op.path.slice(0, op.path.lastIndexOf('/'));
    default:
      return op.path;
  }
}

function jsonBytes(value: JsonValue): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}

/** What the copies of one patch have added so far. */
interface CopyBudget {
  used: number;
}

function chargeCopy(budget: CopyBudget, bytes: number): void {
  budget.used += bytes;
  if (budget.used > MAX_JSON_PATCH_COPY_BYTES) {
    throw new PatchApplyError(
      `Unable to complete the copy, the accumulated size increase of copy is ${budget.used}, exceeding the limit ${MAX_JSON_PATCH_COPY_BYTES}`,
    );
  }
}

/** Checks one operation, charges a copy before it is made, and applies it to `doc` (mutated). */
function applyOne(doc: JsonValue, op: Operation, index: number, budget: CopyBudget): JsonValue {
  fjp.validator(op, index);
  const read = pointerItReads(op);
  const found = read === undefined ? { value: doc } : resolvePointer(doc, read);
  if (!found) throw new PatchApplyError(`${op.op} operation does not apply: doc is missing path: ${read ?? ''}`);
  if (op.op === 'copy') chargeCopy(budget, jsonBytes(found.value));
  return fjp.applyOperation(doc, op, false, true, true, index).newDocument as JsonValue;
}

/**
 * Applies the operations to `doc`, which the caller owns and which is changed: 400 for a
 * malformed patch, 413 for too many operations, 422 when it does not apply or copies too much.
 */
export function applyJsonPatch(doc: JsonValue, patch: unknown): JsonValue {
  const ops = decodeOperations(patch);
  const budget: CopyBudget = { used: 0 };
  let current = doc;
  ops.forEach((op, index) => {
    current = withPatchErrors(() => applyOne(current, op, index, budget));
  });
  return current;
}

/** fast-json-patch's own refusals (a JsonPatchError, or its TypeError for `__proto__`) are 422s. */
function withPatchErrors<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof fjp.JsonPatchError) throw new PatchApplyError(err.message.split('\n')[0]);
    if (err instanceof TypeError && err.message.startsWith('JSON-Patch:')) throw new PatchApplyError(err.message);
    throw err;
  }
}
