/**
 * How each field of a built-in kind merges, read from its OpenAPI v3 schema the way
 * kube-openapi's schemaconv (pkg/schemaconv/smd.go, openapi.go) turns it into a
 * structured-merge-diff schema for server-side apply, plus the strategic-merge-patch metadata
 * (`x-kubernetes-patch-merge-key` / `-strategy`).
 *
 * - lists: `x-kubernetes-list-type` (atomic | set | map with `x-kubernetes-list-map-keys`);
 *   without it a `merge` patch strategy makes a map keyed by the patch merge key (or a set
 *   without one); otherwise atomic.
 * - objects with properties (structs) and with additionalProperties (maps): granular unless
 *   `x-kubernetes-map-type: atomic`, on the type or on the field that references it.
 * - untyped: a schema without a type (Quantity, IntOrString) or an object without properties
 *   or additionalProperties (FieldsV1, RawExtension): the value decides (structured-merge-diff's
 *   "deduced" type: objects merge granularly, lists are atomic, anything else is a scalar).
 */
import { definitionNameOf, definitionsFile, referencedName, type GroupVersionKind, type Schema } from './definitions.js';

export type ListType = 'atomic' | 'set' | 'map';
export type MapType = 'atomic' | 'granular';

export type FieldShape =
  | { type: 'scalar'; scalar: 'string' | 'integer' | 'number' | 'boolean' }
  | { type: 'untyped' }
  | { type: 'struct'; mapType: MapType; fields: string[] }
  | { type: 'map'; mapType: MapType }
  | { type: 'list'; listType: ListType; keys: string[] };

export interface PatchMeta {
  patchStrategy?: string;
  patchMergeKey?: string;
}

/** One step into a value: a field or map key (string) or a list element (number or `[]`). */
export type PathSegment = string | number;

/**
 * A position in a kind's schema: the schema at that position, and the extensions of the
 * reference site (a property that names another definition carries its own list/map type,
 * patch strategy and description).
 */
export class StructureNode {
  constructor(
    private readonly schemas: Record<string, Schema>,
    /** The schema at the reference site (the property itself). */
    readonly site: Schema,
    /** The definition name when the site references one. */
    readonly definition: string | undefined,
  ) {}

  /** The schema the value is checked against: the referenced definition, or the site's own schema. */
  get schema(): Schema {
    return this.definition !== undefined ? (this.schemas[this.definition] ?? {}) : this.site;
  }

  /** The field's description as kube-apiserver publishes it (the site's, else the type's). */
  get description(): string | undefined {
    return this.site.description ?? this.schema.description;
  }

  get shape(): FieldShape {
    return shapeOf(this.site, this.schema);
  }

  get patchMeta(): PatchMeta {
    const meta: PatchMeta = {};
    const strategy = this.site['x-kubernetes-patch-strategy'];
    const key = this.site['x-kubernetes-patch-merge-key'];
    if (typeof strategy === 'string') meta.patchStrategy = strategy;
    if (typeof key === 'string') meta.patchMergeKey = key;
    return meta;
  }

  /** A struct field or map value; undefined when the name is no field and the type has no map values. */
  field(name: string): StructureNode | undefined {
    const schema = this.schema;
    const property = schema.properties?.[name];
    if (property) return nodeFor(this.schemas, property);
    if (typeof schema.additionalProperties === 'object') return nodeFor(this.schemas, schema.additionalProperties);
    return undefined;
  }

  /** The element of a list; undefined for anything else. */
  element(): StructureNode | undefined {
    const items = this.schema.items;
    return items ? nodeFor(this.schemas, items) : undefined;
  }

  /** The node at a path below this one ([] for itself). */
  at(path: readonly PathSegment[]): StructureNode | undefined {
    if (path.length === 0) return this;
    const [segment, ...rest] = path;
    const next = typeof segment === 'number' || segment === '[]' ? this.element() : this.field(segment);
    return next?.at(rest);
  }
}

function nodeFor(schemas: Record<string, Schema>, site: Schema): StructureNode {
  return new StructureNode(schemas, site, referencedName(site));
}

function mapTypeOf(site: Schema, schema: Schema): MapType {
  const value = site['x-kubernetes-map-type'] ?? schema['x-kubernetes-map-type'];
  return value === 'atomic' ? 'atomic' : 'granular';
}

function listShapeOf(site: Schema): FieldShape {
  const listType = site['x-kubernetes-list-type'];
  if (listType === 'set') return { type: 'list', listType: 'set', keys: [] };
  if (listType === 'map') {
    const keys = site['x-kubernetes-list-map-keys'];
    return { type: 'list', listType: 'map', keys: Array.isArray(keys) ? keys.map(String) : [] };
  }
  if (listType !== undefined) return { type: 'list', listType: 'atomic', keys: [] };
  const strategy = site['x-kubernetes-patch-strategy'];
  if (strategy === 'merge' || strategy === 'merge,retainKeys') {
    const key = site['x-kubernetes-patch-merge-key'];
    return typeof key === 'string' ? { type: 'list', listType: 'map', keys: [key] } : { type: 'list', listType: 'set', keys: [] };
  }
  return { type: 'list', listType: 'atomic', keys: [] };
}

function shapeOf(site: Schema, schema: Schema): FieldShape {
  switch (schema.type) {
    case 'array':
      return listShapeOf(site.type === 'array' ? site : schema);
    case 'object': {
      const fields = Object.keys(schema.properties ?? {});
      if (fields.length > 0) return { type: 'struct', mapType: mapTypeOf(site, schema), fields };
      if (typeof schema.additionalProperties === 'object') return { type: 'map', mapType: mapTypeOf(site, schema) };
      return { type: 'untyped' };
    }
    case 'string':
    case 'integer':
    case 'number':
    case 'boolean':
      return { type: 'scalar', scalar: schema.type };
    default:
      return { type: 'untyped' };
  }
}

/** The root of a kind's schema ("PersistentVolume" in "" v1), undefined for a kind with no definition. */
export function structureOf(gvk: GroupVersionKind): StructureNode | undefined {
  const name = definitionNameOf(gvk);
  if (name === undefined) return undefined;
  const schemas = definitionsFile().schemas;
  return new StructureNode(schemas, { $ref: `#/components/schemas/${name}` }, name);
}

/** The node at a field path of a kind (["spec", "accessModes"]), undefined when the path leaves the schema. */
export function fieldStructure(gvk: GroupVersionKind, path: readonly PathSegment[]): StructureNode | undefined {
  return structureOf(gvk)?.at(path);
}
