/**
 * A custom resource's structural schema as the typed shape server-side apply walks
 * (registry/apply/apply-type.ts): objects with properties are structs (open to unknown fields
 * where `x-kubernetes-preserve-unknown-fields` says so), objects with additionalProperties maps,
 * arrays lists, `x-kubernetes-int-or-string` and the JSON types leaves, anything else free-form.
 * metadata is ObjectMeta's schema, at the root and in embedded resources. Built once per schema.
 */
import type { JSONSchemaProps } from '../resources/custom/json-schema.js';
import type { ResourceInfo } from '../resources/strategy.js';
import { decodeSchemaFor, objectMetaSchema, type FieldSchema, type StructSchema, type TypeSchema } from './schema.js';

function leafOf(s: JSONSchemaProps): TypeSchema {
  if (s['x-kubernetes-int-or-string'] === true) return { kind: 'intOrString' };
  switch (s.type) {
    case 'string': return { kind: 'string' };
    case 'boolean': return { kind: 'bool' };
    case 'integer': return { kind: 'int64' };
    case 'number': return { kind: 'float64' };
    default: return { kind: 'free' };
  }
}

function structOf(s: JSONSchemaProps, name: string, embedded: boolean): StructSchema {
  const fields = new Map<string, FieldSchema>();
  if (embedded) {
    fields.set('apiVersion', { type: { kind: 'string' }, goPath: 'apiVersion' });
    fields.set('kind', { type: { kind: 'string' }, goPath: 'kind' });
    fields.set('metadata', { type: objectMetaSchema(), goPath: 'metadata' });
  }
  for (const [key, prop] of Object.entries(s.properties ?? {})) {
    if (embedded && fields.has(key)) continue;
    fields.set(key, { type: typeOf(prop, `${name}.${key}`), goPath: key });
  }
  const open = s['x-kubernetes-preserve-unknown-fields'] === true;
  return { kind: 'struct', goType: `unstructured.${name}`, goName: name, fields, ...(open ? { otherFields: { kind: 'free' } } : {}) };
}

/** Recursive over the CRD author's schema, which apiextensions bounds in depth when it accepts it. */
function typeOf(s: JSONSchemaProps, name: string): TypeSchema {
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (s.type === 'array') return { kind: 'array', items: s.items ? typeOf(s.items, name) : { kind: 'free' } };
  if (s.type === 'object' || s.properties !== undefined || embedded) {
    if (s.properties === undefined && !embedded) {
      if (typeof s.additionalProperties === 'object') return { kind: 'map', values: typeOf(s.additionalProperties, name) };
      if (s['x-kubernetes-preserve-unknown-fields'] === true || s.additionalProperties === true) return { kind: 'free' };
    }
    return structOf(s, name, embedded);
  }
  return leafOf(s);
}

const bySchema = new WeakMap<JSONSchemaProps, StructSchema>();

/** The typed shape of a resource for field ownership: a custom resource's from its schema. */
export function applySchemaFor(info: ResourceInfo): StructSchema {
  const custom = info.custom;
  if (custom === undefined) return decodeSchemaFor(info);
  let out = bySchema.get(custom.schema);
  if (out === undefined) {
    out = structOf(custom.schema, info.kind, true);
    bySchema.set(custom.schema, out);
  }
  return out;
}
