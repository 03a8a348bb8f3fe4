/**
 * Structural defaulting, as kube-apiserver defaults a custom resource on every decode (request
 * bodies and stored objects alike): a property missing from an object, or null where the
 * schema does not allow null, gets a copy of its `default`; then every value is walked, the
 * defaulted ones included. The object is changed in place.
 */
import { isObjectValue, type JSONSchemaProps } from './json-schema.js';

/** Bounded by the decoder's nesting limit: it walks only values the decoder kept. */
export function applyDefaults(value: unknown, schema: JSONSchemaProps | undefined): void {
  if (schema === undefined) return;
  if (Array.isArray(value)) {
    for (const item of value) applyDefaults(item, schema.items);
    return;
  }
  if (!isObjectValue(value)) return;
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    if (prop.default === undefined) continue;
    const have = value[key];
    if (have === undefined || (have === null && prop.nullable !== true)) value[key] = structuredClone(prop.default);
  }
  for (const key of Object.keys(value)) {
    const prop = schema.properties !== undefined && Object.hasOwn(schema.properties, key) ? schema.properties[key]
      : typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
    if (prop !== undefined) applyDefaults(value[key], prop);
  }
}

/** Whether a schema (at any depth) has a default, so objects of kinds without one are not walked. */
export function hasDefaults(schema: JSONSchemaProps): boolean {
  const stack: JSONSchemaProps[] = [schema];
  while (stack.length > 0) {
    const s = stack.pop()!;
    if (s.default !== undefined) return true;
    for (const p of Object.values(s.properties ?? {})) stack.push(p);
    if (s.items) stack.push(s.items);
    if (typeof s.additionalProperties === 'object') stack.push(s.additionalProperties);
  }
  return false;
}
