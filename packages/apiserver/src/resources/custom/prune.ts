/**
 * Pruning, as kube-apiserver prunes a custom resource it decodes: every field the structural
 * schema does not name is dropped (unless `x-kubernetes-preserve-unknown-fields` keeps it), and
 * its path is reported for field validation ("spec.foo", "spec.list[0].bar"), sorted as Go
 * sorts strings. apiVersion, kind and metadata of the object (and of an embedded resource) are
 * left to the metadata decoding. A null where the schema does not allow one and has no default
 * is dropped too (PruneNonNullableNullsWithoutDefaults). The value is changed in place: it is the
 * decoder's fresh copy, whose depth the decoder bounded.
 */
import { indexPath, isObjectValue, propertySchema, type JSONSchemaProps } from './json-schema.js';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

interface Walk {
  unknown: string[];
}

function pruneValue(value: unknown, schema: JSONSchemaProps | undefined, path: string, walk: Walk, preserving: boolean): void {
  const preserve = preserving || schema?.['x-kubernetes-preserve-unknown-fields'] === true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) pruneValue(value[i], schema?.items, indexPath(path, i), walk, preserve);
    return;
  }
  if (!isObjectValue(value)) return;
  pruneObject(value, schema, path, walk, preserve, schema?.['x-kubernetes-embedded-resource'] === true);
}

function pruneObject(
  value: Record<string, unknown>,
  schema: JSONSchemaProps | undefined,
  path: string,
  walk: Walk,
  preserve: boolean,
  embedded: boolean,
): void {
  for (const key of Object.keys(value)) {
    if (embedded && META_FIELDS.has(key)) continue;
    const prop = propertySchema(schema, key);
    const child = path === '' ? key : `${path}.${key}`;
    if (prop !== undefined) {
      if (value[key] === null && prop.nullable !== true && prop.default === undefined) delete value[key];
      else pruneValue(value[key], prop, child, walk, false);
    } else if (preserve || schema?.additionalProperties === true) {
      // Kept as it is: nothing below an unknown field of a preserving object is pruned.
    } else {
      walk.unknown.push(child);
      delete value[key];
    }
  }
}

/** Prunes `object` (a custom resource) by its version's schema; the paths of the pruned fields, sorted. */
export function pruneCustomResource(object: Record<string, unknown>, schema: JSONSchemaProps): string[] {
  const walk: Walk = { unknown: [] };
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  pruneObject(object, schema, '', walk, preserve, true);
  return walk.unknown.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
