/**
 * Strategic merge patch (`application/strategic-merge-patch+json`), the subset kubectl uses on
 * our kinds: maps merge (null deletes), lists follow the kind's published patch strategy and
 * merge key (`openapi/merge-semantics.ts`: replaced, a set of primitives, or merged by key), and
 * the directives `$patch` (replace | delete | merge), `$retainKeys`,
 * `$deleteFromPrimitiveList/<list>` and `$setElementOrder/<list>`.
 * Errors as kube-apiserver's interpretStrategicMergePatchError: bad directive shapes ⇒ 400,
 * content that contradicts `$retainKeys` ⇒ 422.
 */
import { BadRequestError } from '@pv-controller/kube/errors.js';
import { PatchApplyError } from './json.js';
import { identity, normalizeElementOrder } from './element-order.js';
import { cloneJson, isJsonObject, setKey, type JsonObject, type JsonValue } from './json-value.js';
import { kindSemantics, memberSemantics, mergesList, type FieldSemantics } from '../../openapi/merge-semantics.js';
import type { GroupVersionKind } from '../../openapi/definitions.js';

const PATCH_DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList/';
const SET_ELEMENT_ORDER = '$setElementOrder/';

const isDirectiveKey = (k: string): boolean =>
  k === PATCH_DIRECTIVE || k === RETAIN_KEYS || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER);

function badPatchType(value: unknown, where: JsonValue): BadRequestError {
  return new BadRequestError(`Unknown patch type: ${String(value)} in map: ${JSON.stringify(where)}`);
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
  const doomed = new Set(values.map(identity));
  original[key] = list.filter((item) => !doomed.has(identity(item)));
}

/** The merge key of a list's elements: the key's value for objects, the element itself for primitives. */
function mergeKeyOf(meta: FieldSemantics | undefined): (v: JsonValue) => JsonValue | undefined {
  const mergeKey = meta?.patchMergeKey;
  return (v) => (mergeKey !== undefined && isJsonObject(v) ? v[mergeKey] : v);
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

/** Merges `patch` into a copy of `original`, an object whose members merge as `memberSemantics(meta, key)` says. */
function strategicMergeMap(original: JsonObject, patch: JsonObject, meta: FieldSemantics | undefined): JsonObject {
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
    setKey(result, k, mergeValue(before, v, memberSemantics(meta, k)));
  }
  for (const [k, order] of orders) {
    const list = result[k];
    const server = Object.hasOwn(original, k) ? original[k] : undefined;
    if (Array.isArray(list)) result[k] = normalizeElementOrder(list, order, Array.isArray(server) ? server : [], mergeKeyOf(memberSemantics(meta, k)));
  }
  return result;
}

function mergeValue(original: JsonValue | undefined, patch: JsonValue, meta: FieldSemantics | undefined): JsonValue {
  if (isJsonObject(patch)) return strategicMergeMap(isJsonObject(original) ? original : {}, patch, meta);
  if (Array.isArray(patch)) {
    if (!mergesList(meta)) return cloneJson(patch);
    return mergeList(Array.isArray(original) ? original : [], patch, meta);
  }
  return patch;
}

function mergeList(original: JsonValue[], patch: JsonValue[], meta: FieldSemantics | undefined): JsonValue[] {
  const mergeKey = meta?.patchMergeKey;
  if (mergeKey === undefined) {
    const merged: JsonValue[] = [];
    const seen = new Set<string>();
    for (const item of [...original, ...patch]) {
      const key = identity(item);
      if (seen.has(key)) continue;
      seen.add(key);
      merged.push(cloneJson(item));
    }
    return normalizeElementOrder(merged, patch, original, (v) => v);
  }
  return mergeListByKey(original, patch, mergeKey, meta);
}

/** A merge-by-key patch list: its plain items, the keys its `$patch: delete` items name, and whether it replaces. */
function readListDirectives(patch: JsonValue[], mergeKey: string): { plain: JsonObject[]; deleted: Set<string>; replace: boolean } {
  const plain: JsonObject[] = [];
  const deleted = new Set<string>();
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
      deleted.add(identity(item[mergeKey]));
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw new BadRequestError('merging lists cannot yet be specified in the patch');
    } else {
      throw badPatchType(directive, item);
    }
  }
  return { plain, deleted, replace };
}

function mergeListByKey(original: JsonValue[], patch: JsonValue[], mergeKey: string, meta: FieldSemantics | undefined): JsonValue[] {
  const { plain, deleted, replace } = readListDirectives(patch, mergeKey);
  if (replace) return plain.map((p) => strategicMergeMap({}, p, meta));
  const keyOf = (o: JsonValue): string | undefined => (isJsonObject(o) ? identity(o[mergeKey]) : undefined);
  const result = cloneJson(original).filter((o) => {
    const key = keyOf(o);
    return key === undefined || !deleted.has(key);
  });
  const server = result.slice();
  const indexByKey = new Map<string, number>();
  result.forEach((o, i) => {
    const key = keyOf(o);
    if (key !== undefined && !indexByKey.has(key)) indexByKey.set(key, i);
  });
  for (const item of plain) {
    if (!Object.hasOwn(item, mergeKey)) throw noMergeKey(item, mergeKey);
    const key = identity(item[mergeKey]);
    const at = indexByKey.get(key);
    if (at !== undefined) {
      result[at] = strategicMergeMap(result[at] as JsonObject, item, meta);
    } else {
      indexByKey.set(key, result.length);
      result.push(strategicMergeMap({}, item, meta));
    }
  }
  return normalizeElementOrder(result, plain, server, (o) => (isJsonObject(o) ? o[mergeKey] : undefined));
}

function noMergeKey(item: JsonObject, mergeKey: string): BadRequestError {
  return new BadRequestError(`map: ${JSON.stringify(item)} does not contain declared merge key: ${mergeKey}`);
}

/** Applies a strategic merge patch to a document of kind `gvk`; returns a new object. */
export function applyStrategicMergePatch(doc: JsonObject, patch: unknown, gvk: GroupVersionKind): JsonObject {
  if (!isJsonObject(patch)) {
    throw new BadRequestError('json: cannot unmarshal non-object into Go value of type map[string]interface {}');
  }
  return strategicMergeMap(doc, patch, kindSemantics(gvk));
}
