/**
 * Strategic merge patch (`application/strategic-merge-patch+json`), the subset kubectl uses on
 * our kinds: maps merge (null deletes), lists follow the patch meta (atomic, primitive set, or
 * merge by key), and the directives `$patch` (replace | delete | merge), `$retainKeys`,
 * `$deleteFromPrimitiveList/<list>` and `$setElementOrder/<list>`.
 * Errors as kube-apiserver's interpretStrategicMergePatchError: bad directive shapes ⇒ 400,
 * content that contradicts `$retainKeys` ⇒ 422.
 */
import { BadRequestError } from '../../kube/errors.js';
import { PatchApplyError } from './json.js';
import { cloneJson, isJsonObject, setKey, type JsonObject, type JsonValue } from './json-value.js';
import type { PatchMeta } from './patch-meta.js';

const PATCH_DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList/';
const SET_ELEMENT_ORDER = '$setElementOrder/';

const isDirectiveKey = (k: string): boolean =>
  k === PATCH_DIRECTIVE || k === RETAIN_KEYS || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER);

function badPatchType(value: unknown, where: JsonValue): BadRequestError {
  return new BadRequestError(`Unknown patch type: ${String(value)} in map: ${JSON.stringify(where)}`);
}

/** Deep equality of JSON values (merge keys may be any JSON scalar). */
function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  const retain = patch[RETAIN_KEYS];
  if (!Array.isArray(retain) || !retain.every((k) => typeof k === 'string')) {
    throw new BadRequestError('invalid patch format of retainKeys');
  }
  const keep = new Set(retain as string[]);
  for (const k of Object.keys(patch)) {
    if (!isDirectiveKey(k) && !keep.has(k)) throw new PatchApplyError("patch content doesn't match retainKeys list");
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

function deleteFromPrimitiveList(original: JsonObject, key: string, values: JsonValue): void {
  if (!Array.isArray(values)) throw new BadRequestError('invalid patch format of primitive list');
  const list = original[key];
  if (!Array.isArray(list)) return;
  original[key] = list.filter((item) => !values.some((v) => jsonEqual(v, item)));
}

/** Orders `list` as `order` names its elements; elements not named keep their order after them. */
function applyElementOrder(list: JsonValue[], order: JsonValue[], meta: PatchMeta | undefined): JsonValue[] {
  const keyOf = (v: JsonValue): JsonValue | undefined =>
    meta?.mergeKey && isJsonObject(v) ? v[meta.mergeKey] : v;
  const rank = (v: JsonValue): number => {
    const key = keyOf(v);
    const i = order.findIndex((o) => jsonEqual(keyOf(o), key));
    return i < 0 ? order.length : i;
  };
  return list
    .map((v, i) => ({ v, i, r: rank(v) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((e) => e.v);
}

/** `$patch` on a map: replace ⇒ the patch itself, delete ⇒ {}, merge ⇒ ordinary merge. */
function mapDirective(patch: JsonObject): JsonObject | undefined {
  if (!Object.hasOwn(patch, PATCH_DIRECTIVE)) return undefined;
  const directive = patch[PATCH_DIRECTIVE];
  if (directive === 'replace') {
    const replaced = cloneJson(patch);
    delete replaced[PATCH_DIRECTIVE];
    return replaced;
  }
  if (directive === 'delete') return {};
  if (directive === 'merge') return undefined;
  throw badPatchType(directive, patch);
}

/** Merges `patch` into a copy of `original` following `meta`. */
export function strategicMergeMap(original: JsonObject, patch: JsonObject, meta: PatchMeta | undefined): JsonObject {
  const direct = mapDirective(patch);
  if (direct) return direct;
  const result = cloneJson(original);
  if (Object.hasOwn(patch, RETAIN_KEYS)) applyRetainKeys(result, patch);
  const orders = new Map<string, JsonValue[]>();
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith(DELETE_FROM_PRIMITIVE_LIST)) deleteFromPrimitiveList(result, k.slice(DELETE_FROM_PRIMITIVE_LIST.length), v);
    else if (k.startsWith(SET_ELEMENT_ORDER)) {
      if (!Array.isArray(v)) throw new BadRequestError('invalid patch format of setElementOrder list');
      orders.set(k.slice(SET_ELEMENT_ORDER.length), v);
    }
  }
  for (const [k, v] of Object.entries(patch)) {
    if (isDirectiveKey(k)) continue;
    if (v === null) {
      delete result[k];
      continue;
    }
    const before = Object.hasOwn(result, k) ? result[k] : undefined;
    setKey(result, k, mergeValue(before, v, meta?.fields?.[k]));
  }
  for (const [k, order] of orders) {
    const list = result[k];
    if (Array.isArray(list)) result[k] = applyElementOrder(list, order, meta?.fields?.[k]);
  }
  return result;
}

function mergeValue(original: JsonValue | undefined, patch: JsonValue, meta: PatchMeta | undefined): JsonValue {
  if (isJsonObject(patch)) return strategicMergeMap(isJsonObject(original) ? original : {}, patch, meta);
  if (Array.isArray(patch)) {
    if (meta?.listStrategy !== 'merge') return cloneJson(patch);
    return mergeList(Array.isArray(original) ? original : [], patch, meta);
  }
  return patch;
}

function mergeList(original: JsonValue[], patch: JsonValue[], meta: PatchMeta): JsonValue[] {
  if (!meta.mergeKey) {
    const merged: JsonValue[] = [];
    for (const item of [...original, ...patch]) if (!merged.some((m) => jsonEqual(m, item))) merged.push(cloneJson(item));
    return merged;
  }
  return mergeListByKey(original, patch, meta.mergeKey, meta);
}

function mergeListByKey(original: JsonValue[], patch: JsonValue[], mergeKey: string, meta: PatchMeta): JsonValue[] {
  let result = cloneJson(original);
  const plain: JsonObject[] = [];
  let replace = false;
  for (const item of patch) {
    if (!isJsonObject(item)) throw new BadRequestError(`unable to find api field in struct for the list of ${mergeKey}`);
    if (!Object.hasOwn(item, PATCH_DIRECTIVE)) {
      plain.push(item);
      continue;
    }
    const directive = item[PATCH_DIRECTIVE];
    if (directive === 'delete') {
      if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
      result = result.filter((o) => !(isJsonObject(o) && jsonEqual(o[mergeKey], item[mergeKey])));
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw new BadRequestError('merging lists cannot yet be specified in the patch');
    } else {
      throw badPatchType(directive, item);
    }
  }
  if (replace) return plain.map((p) => strategicMergeMap({}, p, meta));
  for (const item of plain) {
    if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
    const at = result.findIndex((o) => isJsonObject(o) && jsonEqual(o[mergeKey], item[mergeKey]));
    if (at >= 0) result[at] = strategicMergeMap(result[at] as JsonObject, item, meta);
    else result.push(strategicMergeMap({}, item, meta));
  }
  return result;
}

function noMergeKey(item: JsonObject, mergeKey: string): BadRequestError {
  return new BadRequestError(`map: ${JSON.stringify(item)} does not contain declared merge key: ${mergeKey}`);
}

/** Applies a strategic merge patch to a document; returns a new object. */
export function applyStrategicMergePatch(doc: JsonObject, patch: unknown, meta: PatchMeta): JsonObject {
  if (!isJsonObject(patch)) {
    throw new BadRequestError('json: cannot unmarshal non-object into Go value of type map[string]interface {}');
  }
  return strategicMergeMap(doc, patch, meta);
}
