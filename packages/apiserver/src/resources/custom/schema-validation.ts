/**
 * OpenAPI schema validation of a custom resource, in kube-apiserver's words (kube-openapi's
 * validator, whose errors apiextensions turns into field errors): a value of the wrong type is
 * `spec.x: Invalid value: "integer": spec.x in body must be of type string: "integer"`, a
 * missing required field `spec.source: Required value`, a value outside an enum
 * `Unsupported value: "X": supported values: "Delete", "Retain"`, then string, number, list and
 * format limits. Within an object the properties are checked before its required list, as
 * there; kube-openapi walks properties in Go's map order, this walk in the schema's order.
 */
import type { StatusCause } from '@pv-controller/kube/types.js';
import { invalid, notSupported, required, tooLong } from '../../api/field-errors.js';
import { childPath, indexPath, isObjectValue, type JSONSchemaProps } from './json-schema.js';

type JsonType = 'null' | 'string' | 'boolean' | 'integer' | 'number' | 'object' | 'array';

function jsonTypeOf(value: unknown): JsonType {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'string' || typeof value === 'boolean') return typeof value as JsonType;
  return 'object';
}

function typeInvalid(path: string, actual: string, expected: string, shown: unknown = actual): StatusCause {
  return {
    reason: 'FieldValueTypeInvalid',
    message: `Invalid value: ${JSON.stringify(shown)}: ${path} in body must be of type ${expected}: ${JSON.stringify(actual)}`,
    field: path,
  };
}

function typeMatches(schema: JSONSchemaProps, actual: JsonType): boolean {
  if (schema['x-kubernetes-int-or-string'] === true && (actual === 'integer' || actual === 'string')) return true;
  const want = schema.type;
  if (want === undefined || want === '') return true;
  return want === actual || (want === 'number' && actual === 'integer');
}

/** RFC 3339 date-time as strfmt accepts it (the one format the snapshot CRDs check on strings). */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

function validateString(value: string, schema: JSONSchemaProps, path: string, causes: StatusCause[]): void {
  const length = [...value].length;
  if (schema.maxLength !== undefined && length > schema.maxLength) causes.push(tooLong(path, schema.maxLength));
  if (schema.minLength !== undefined && length < schema.minLength) {
    causes.push(invalid(path, value, `${path} in body should be at least ${schema.minLength} chars long`));
  }
  if (schema.pattern !== undefined && !patternOf(schema.pattern).test(value)) {
    causes.push(invalid(path, value, `${path} in body should match '${schema.pattern}'`));
  }
  if (schema.format === 'date-time' && !DATE_TIME.test(value)) causes.push(typeInvalid(path, value, 'date-time', value));
}

const patterns = new Map<string, RegExp>();

function patternOf(source: string): RegExp {
  let re = patterns.get(source);
  if (re === undefined) {
    try {
      re = new RegExp(source, 'u');
    } catch {
      re = /(?!)/;
    }
    patterns.set(source, re);
  }
  return re;
}

function validateNumber(value: number, schema: JSONSchemaProps, path: string, causes: StatusCause[]): void {
  if (schema.minimum !== undefined && (schema.exclusiveMinimum ? value <= schema.minimum : value < schema.minimum)) {
    const words = schema.exclusiveMinimum ? 'greater than' : 'greater than or equal to';
    causes.push(invalid(path, value, `${path} in body should be ${words} ${schema.minimum}`));
  }
  if (schema.maximum !== undefined && (schema.exclusiveMaximum ? value >= schema.maximum : value > schema.maximum)) {
    const words = schema.exclusiveMaximum ? 'less than' : 'less than or equal to';
    causes.push(invalid(path, value, `${path} in body should be ${words} ${schema.maximum}`));
  }
}

function validateEnum(value: unknown, schema: JSONSchemaProps, path: string, causes: StatusCause[]): void {
  if (schema.enum === undefined || schema.enum.length === 0) return;
  const canonical = JSON.stringify(value);
  if (schema.enum.some((e) => JSON.stringify(e) === canonical)) return;
  const values = schema.enum.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)));
  causes.push(notSupported(path, value, values));
}

function validateNode(value: unknown, schema: JSONSchemaProps, path: string, causes: StatusCause[]): void {
  const actual = jsonTypeOf(value);
  if (actual === 'null') {
    if (schema.type && schema.nullable !== true) causes.push(typeInvalid(path, 'null', schema.type));
    return;
  }
  if (!typeMatches(schema, actual)) causes.push(typeInvalid(path, actual, schema.type ?? ''));
  if (typeof value === 'string') validateString(value, schema, path, causes);
  if (typeof value === 'number') validateNumber(value, schema, path, causes);
  validateEnum(value, schema, path, causes);
  if (Array.isArray(value)) validateArray(value, schema, path, causes);
  else if (isObjectValue(value)) validateObject(value, schema, path, causes);
}

function validateArray(value: unknown[], schema: JSONSchemaProps, path: string, causes: StatusCause[]): void {
  if (schema.items) for (let i = 0; i < value.length; i++) validateNode(value[i], schema.items, indexPath(path, i), causes);
  if (schema.minItems !== undefined && value.length < schema.minItems) {
    causes.push(invalid(path, value, `${path} in body should have at least ${schema.minItems} items`));
  }
  if (schema.maxItems !== undefined && value.length > schema.maxItems) {
    causes.push({ reason: 'FieldValueTooMany', message: `Too many: ${value.length}: must have at most ${schema.maxItems} items`, field: path });
  }
}

function validateObject(value: Record<string, unknown>, schema: JSONSchemaProps, path: string, causes: StatusCause[]): void {
  const props = schema.properties ?? {};
  for (const [key, prop] of Object.entries(props)) {
    if (Object.hasOwn(value, key)) validateNode(value[key], prop, childPath(path, key), causes);
  }
  const extra = schema.additionalProperties;
  if (typeof extra === 'object') {
    for (const key of Object.keys(value)) if (!Object.hasOwn(props, key)) validateNode(value[key], extra, childPath(path, key), causes);
  }
  for (const key of schema.required ?? []) {
    if (!Object.hasOwn(value, key)) causes.push(required(childPath(path, key)));
  }
}

/**
 * The schema's field errors for `value` at `path` ('' for the object itself), their fields
 * under `fieldBase` where the value is a part validated alone (status: "status.restoreSize",
 * while the message says "restoreSize in body"). Recursive over the value, whose depth the
 * decoder bounded (MAX_NESTING_DEPTH).
 */
export function validateAgainstSchema(value: unknown, schema: JSONSchemaProps, path = '', fieldBase = ''): StatusCause[] {
  const causes: StatusCause[] = [];
  validateNode(value, schema, path, causes);
  if (fieldBase === '') return causes;
  return causes.map((c) => ({ ...c, field: c.field ? `${fieldBase}.${c.field}` : fieldBase }));
}
