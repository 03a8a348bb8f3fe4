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
import { ApiError, BadRequestError } from '@pv-controller/kube/errors.js';
import { jsonTypeOf } from '../../decode/typed-decoder.js';
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

/** kube-apiserver's 400 for a patch body that does not unmarshal into what its type needs. */
export function undecodablePatch(value: unknown, goType: string, prefix = 'error decoding patch: '): BadRequestError {
  return new BadRequestError(`${prefix}json: cannot unmarshal ${jsonTypeOf(value)} into Go value of type ${goType}`);
}

function decodeOperations(patch: unknown): Operation[] {
  // kube-apiserver unmarshals the body into []jsonPatchOp first: anything else is a 400.
  if (!Array.isArray(patch)) throw undecodablePatch(patch, '[]handlers.jsonPatchOp');
  const notAnOperation = patch.find((op) => !isJsonObject(op));
  if (notAnOperation !== undefined) throw undecodablePatch(notAnOperation, 'handlers.jsonPatchOp');
  if (patch.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new ApiError(413, 'RequestEntityTooLarge',
      `Request entity too large: The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${patch.length}`);
  }
  return patch as unknown as Operation[];
}

/** strconv.Atoi's syntax: an optional sign and decimal digits ("01", "+1" and "-1" included). */
const GO_INT = /^[+-]?[0-9]+$/;

const unescapeToken = (token: string): string => token.replace(/~1/g, '/').replace(/~0/g, '~');
const escapeToken = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * An array index as evanphx/json-patch (v4, negative indices on) reads it: Atoi, then a
 * negative index counts from the end. `insert` is add's rule (one past the end allowed, `-`
 * appends). Undefined where kube-apiserver answers "Unable to access invalid index".
 */
function arrayIndex(token: string, length: number, insert: boolean): number | undefined {
  if (insert && token === '-') return length;
  if (!GO_INT.test(token)) return undefined;
  const size = insert ? length + 1 : length;
  let index = Number(token);
  if (index < 0) index += size;
  return index >= 0 && index < size ? index : undefined;
}

/**
 * The pointer with every array index made canonical, following own members only (fast-json-
 * patch would follow inherited properties such as `/constructor` or `/list/length`, and reads
 * `01`, `-1` or an index past the end its own way). `insert`: the last token is where add puts
 * a new member, so its parent must be an object or array. Undefined when it names nothing.
 */
function canonicalPointer(doc: JsonValue, pointer: string, insert: boolean): string | undefined {
  if (pointer === '') return '';
  if (!pointer.startsWith('/')) return undefined;
  const tokens = pointer.slice(1).split('/').map(unescapeToken);
  let current: JsonValue = doc;
  const canonical: string[] = [];
  for (const [i, key] of tokens.entries()) {
    const last = i === tokens.length - 1;
    if (Array.isArray(current)) {
      const index = arrayIndex(key, current.length, insert && last);
      if (index === undefined) return undefined;
      canonical.push(String(index));
      current = current[index];
    } else if (isJsonObject(current) && (Object.hasOwn(current, key) || (insert && last))) {
      canonical.push(key);
      current = current[key];
    } else {
      return undefined;
    }
  }
  return `/${canonical.map(escapeToken).join('/')}`;
}

/** The operation with canonical pointers; 422 when its source or its destination's parent is missing. */
function canonicalOperation(doc: JsonValue, op: Operation): Operation {
  const missing = (pointer: string): PatchApplyError => new PatchApplyError(`${op.op} operation does not apply: doc is missing path: ${pointer}`);
  const writesNew = op.op === 'add' || op.op === 'copy' || op.op === 'move';
  // The whole document can be replaced or tested, never added to, removed, copied or moved.
  const path = op.path === '' && (writesNew || op.op === 'remove') ? undefined : canonicalPointer(doc, op.path, writesNew);
  if (path === undefined) throw missing(op.path);
  if (op.op !== 'copy' && op.op !== 'move') return { ...op, path };
  const from = op.from === '' ? undefined : canonicalPointer(doc, op.from, false);
  if (from === undefined) throw missing(op.from);
  // A value cannot move into itself: once removed, its destination's parent is gone.
  if (op.op === 'move' && path.startsWith(`${from}/`)) throw missing(op.path);
  return { ...op, path, from };
}

/** The value at a canonical pointer. */
function valueAt(doc: JsonValue, pointer: string): JsonValue {
  let current: JsonValue = doc;
  for (const token of pointer === '' ? [] : pointer.slice(1).split('/').map(unescapeToken)) {
    current = (Array.isArray(current) ? current[Number(token)] : (current as Record<string, JsonValue>)[token]);
  }
  return current;
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
  const canonical = canonicalOperation(doc, op);
  if (canonical.op === 'copy') chargeCopy(budget, jsonBytes(valueAt(doc, canonical.from)));
  return fjp.applyOperation(doc, canonical, false, true, true, index).newDocument as JsonValue;
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
