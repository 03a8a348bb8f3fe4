/**
 * A custom resource's schema as OpenAPI definitions the merge semantics index reads
 * (openapi/merge-semantics.ts): every object schema becomes a definition of its own, named after
 * its place under the kind's root ("<root>.spec.source"), and each property points at its value's
 * definition, keeping its `x-kubernetes-list-type`, `-list-map-keys` and `-map-type` markers. So
 * server-side apply merges a custom resource's lists and maps by the same index, and the same
 * code, as a built-in kind's.
 */
import { registerDefinitions, type Schema } from '../../openapi/definitions.js';
import type { JSONSchemaProps } from './json-schema.js';

const MARKERS = ['x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type'] as const;

function markersOf(s: JSONSchemaProps): Schema {
  const out: Schema = {};
  for (const m of MARKERS) if (s[m] !== undefined) out[m] = s[m];
  return out;
}

const OBJECT_META = { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' };

/** Flattens `schema` into `out` under `name` (iteratively: the schema's depth is the CRD author's). */
function flatten(rootName: string, root: JSONSchemaProps, out: Map<string, Schema>): void {
  const queue: Array<[string, JSONSchemaProps]> = [[rootName, root]];
  while (queue.length > 0) {
    const [name, s] = queue.shift()!;
    const def: Schema = { type: 'object', ...markersOf(s) };
    if (s.properties) {
      def.properties = {};
      for (const [key, prop] of Object.entries(s.properties)) def.properties[key] = reference(`${name}.${key}`, prop, queue);
    }
    // The object's metadata (and an embedded resource's) merges as ObjectMeta does: finalizers as a set, owners by uid.
    if (name === rootName || s['x-kubernetes-embedded-resource'] === true) (def.properties ??= {}).metadata = OBJECT_META;
    if (typeof s.additionalProperties === 'object') def.additionalProperties = reference(`${name}.*`, s.additionalProperties, queue);
    out.set(name, def);
  }
}

/** A property's schema: its markers, and a reference to the definition of its object value (or its items' or values'). */
function reference(name: string, prop: JSONSchemaProps, queue: Array<[string, JSONSchemaProps]>): Schema {
  const out: Schema = { ...markersOf(prop), ...(prop.type !== undefined ? { type: prop.type } : {}) };
  if (prop.properties !== undefined) {
    queue.push([name, prop]);
    return { ...out, $ref: `#/definitions/${name}` };
  }
  if (typeof prop.additionalProperties === 'object') return { ...out, additionalProperties: reference(`${name}.*`, prop.additionalProperties, queue) };
  if (prop.items !== undefined) return { ...out, items: reference(`${name}[]`, prop.items, queue) };
  return out;
}

let generation = 0;

/**
 * Registers the definitions of one version's schema and returns its root's name. Each call gets
 * fresh names, so a CustomResourceDefinition that changes never reads its old markers.
 */
export function registerCustomDefinitions(group: string, version: string, kind: string, schema: JSONSchemaProps): string {
  generation += 1;
  const root = `custom.${generation}.${group}.${version}.${kind}`;
  const defs = new Map<string, Schema>();
  flatten(root, schema, defs);
  registerDefinitions(defs);
  return root;
}
