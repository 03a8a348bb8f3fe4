/**
 * How the lists, maps and structs of every kind we serve merge: one source for strategic merge
 * patch and server-side apply alike, read from the OpenAPI definitions kube-apiserver publishes
 * (definitions.json), whose markers come from the same Go type tags kube-apiserver merges by.
 *
 * - strategic merge patch: `x-kubernetes-patch-strategy` (`merge`, `retainKeys`, or both) and
 *   `x-kubernetes-patch-merge-key`. A list whose strategies hold no `merge` is replaced whole;
 *   with `merge` it merges by its merge key, or as a set of primitives without one.
 * - server-side apply: `x-kubernetes-list-type` (atomic | set | map), `-list-map-keys` and
 *   `-map-type` on the field, and `x-kubernetes-map-type: atomic` on a type (`+structType`).
 *   Structured-merge-diff's defaults hold where nothing is marked: a list is atomic, maps and
 *   structs are granular.
 *
 * A field with both kinds of marker (conditions, containers) carries both; where they differ the
 * Go types differ too (ports merge by containerPort under SMP, by containerPort and protocol
 * under SSA). Each definition's fields are indexed on its first lookup and kept.
 */
import { definitionNameOf, definitionSchema, referencedName, type GroupVersionKind, type Schema } from './definitions.js';

export type ListType = 'atomic' | 'set' | 'map';
export type MapType = 'atomic' | 'granular';

/** How one field merges, and what its value is. */
export interface FieldSemantics {
  /** Server-side apply: the list type; undefined for a list means atomic. */
  listType?: ListType;
  listMapKeys?: readonly string[];
  /** Server-side apply, for a map or struct field: atomic replaces it whole; granular overrides an atomic type. */
  mapType?: MapType;
  /** Strategic merge patch: the field's patch strategies (`merge`, `retainKeys`), as Go's patch meta lists them. */
  patchStrategies?: readonly string[];
  /** Strategic merge patch: the key a merging list of objects matches its elements by. */
  patchMergeKey?: string;
  /** The definition of the field's value: the struct itself, a list's items or a map's values. */
  definition?: string;
  /** The value is a map (additionalProperties) whose values are of `definition`. */
  isMap?: boolean;
}

const LIST_TYPES: readonly string[] = ['atomic', 'set', 'map'];
const MAP_TYPES: readonly string[] = ['atomic', 'granular'];

function valueDefinition(p: Schema): string | undefined {
  const inner = p.items ?? (typeof p.additionalProperties === 'object' ? p.additionalProperties : undefined);
  return referencedName(p) ?? (inner ? referencedName(inner) : undefined);
}

function semanticsOf(p: Schema): FieldSemantics {
  const listType = p['x-kubernetes-list-type'];
  const keys = p['x-kubernetes-list-map-keys'];
  const mapType = p['x-kubernetes-map-type'];
  const strategy = p['x-kubernetes-patch-strategy'];
  const mergeKey = p['x-kubernetes-patch-merge-key'];
  return {
    ...(typeof listType === 'string' && LIST_TYPES.includes(listType) ? { listType: listType as ListType } : {}),
    ...(Array.isArray(keys) ? { listMapKeys: keys.map(String) } : {}),
    ...(typeof mapType === 'string' && MAP_TYPES.includes(mapType) ? { mapType: mapType as MapType } : {}),
    ...(typeof strategy === 'string' ? { patchStrategies: strategy.split(',') } : {}),
    ...(typeof mergeKey === 'string' ? { patchMergeKey: mergeKey } : {}),
    definition: valueDefinition(p),
    ...(typeof p.additionalProperties === 'object' && p.properties === undefined ? { isMap: true } : {}),
  };
}

const byDefinition = new Map<string, Map<string, FieldSemantics>>();

function fieldsOf(definition: string): Map<string, FieldSemantics> {
  let fields = byDefinition.get(definition);
  if (fields === undefined) {
    fields = new Map(Object.entries(definitionSchema(definition)?.properties ?? {}).map(([name, p]) => [name, semanticsOf(p)]));
    byDefinition.set(definition, fields);
  }
  return fields;
}

/** How field `field` of definition `definition` merges; undefined when the definition has no such field. */
export function fieldSemantics(definition: string, field: string): FieldSemantics | undefined {
  return fieldsOf(definition).get(field);
}

/** A struct type whose values are replaced whole (`+structType=atomic`). */
export function isAtomicStruct(definition: string): boolean {
  return definitionSchema(definition)?.['x-kubernetes-map-type'] === 'atomic';
}

const mapValues = new Map<string, FieldSemantics>();
const kinds = new Map<string, FieldSemantics>();

/**
 * How member `key` of an object merges, the object being the value (or a list element) of a
 * field with semantics `of`: a field of its struct, or an entry of a map. undefined where the
 * schema does not reach (a patch merges anything there as a map, and replaces lists).
 */
export function memberSemantics(of: FieldSemantics | undefined, key: string): FieldSemantics | undefined {
  const definition = of?.definition;
  if (definition === undefined) return undefined;
  if (!of?.isMap) return fieldSemantics(definition, key);
  let values = mapValues.get(definition);
  if (values === undefined) mapValues.set(definition, (values = { definition }));
  return values;
}

/** The semantics of a whole object of a kind (its root struct); undefined for a kind without a definition. */
export function kindSemantics(gvk: GroupVersionKind): FieldSemantics | undefined {
  const key = `${gvk.group}/${gvk.version}/${gvk.kind}`;
  let root = kinds.get(key);
  if (root === undefined) {
    const definition = definitionNameOf(gvk);
    if (definition === undefined) return undefined;
    kinds.set(key, (root = { definition }));
  }
  return root;
}

/** Whether a strategic merge patch merges this list (rather than replacing it). */
export function mergesList(f: FieldSemantics | undefined): boolean {
  return f?.patchStrategies?.includes('merge') === true;
}
