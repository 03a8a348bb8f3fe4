/**
 * `x-kubernetes-validations`: the CEL rules of a custom resource's schema, evaluated with
 * @marcbachmann/cel-js as kube-apiserver evaluates them: at every value of the object that has
 * rules, `self` bound to that value and, on update, `oldSelf` to the value it corresponds to in
 * the stored object (through object properties and the keys of map lists; not through atomic
 * lists). A rule that reads `oldSelf` (a transition rule) is evaluated only where such an old
 * value exists. A false rule gives the cause kube-apiserver gives: its message (or "failed rule:
 * <rule>") on the value's path, the value shown for scalars and left out for objects and lists.
 */
import { EvaluationError, parse, type ParseResult } from '@marcbachmann/cel-js';
import type { StatusCause } from '@pv-controller/kube/types.js';
import { invalid } from '../../api/field-errors.js';
import { childPath, indexPath, isObjectValue, type JSONSchemaProps, type ValidationRule } from './json-schema.js';

type Compiled = { program: ParseResult; usesOldSelf: boolean } | { error: string };

const compiled = new WeakMap<ValidationRule, Compiled>();

function compile(rule: ValidationRule): Compiled {
  let out = compiled.get(rule);
  if (out === undefined) {
    try {
      out = { program: parse(rule.rule), usesOldSelf: /\boldSelf\b/.test(rule.rule) };
    } catch (err) {
      out = { error: err instanceof Error ? err.message.split('\n')[0] : String(err) };
    }
    compiled.set(rule, out);
  }
  return out;
}

/** CEL's reserved words, which a property name is escaped from (`__namespace__`). */
const RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if',
  'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

/** A property name as rules spell it (apiserver/pkg/cel's escaping). */
export function escapeCelProperty(name: string): string {
  if (RESERVED.has(name)) return `__${name}__`;
  return name.replace(/__|[./-]/g, (m) => (m === '__' ? '__underscores__' : m === '.' ? '__dot__' : m === '-' ? '__dash__' : '__slash__'));
}

/** A value as CEL sees it: integers of integer fields as CEL ints, property names escaped. */
function celValue(value: unknown, schema: JSONSchemaProps | undefined): unknown {
  if (typeof value === 'number' && schema?.type === 'integer' && Number.isInteger(value)) return BigInt(value);
  if (Array.isArray(value)) return value.map((v) => celValue(v, schema?.items));
  if (!isObjectValue(value)) return value;
  const out: Record<string, unknown> = {};
  const props = schema?.properties ?? {};
  for (const [key, v] of Object.entries(value)) {
    if (Object.hasOwn(props, key)) out[escapeCelProperty(key)] = celValue(v, props[key]);
    else out[key] = celValue(v, typeof schema?.additionalProperties === 'object' ? schema.additionalProperties : undefined);
  }
  return out;
}

function schemaType(schema: JSONSchemaProps): string {
  return schema.type ?? (schema['x-kubernetes-int-or-string'] ? 'integer-or-string' : '');
}

/** The cause of a failed rule: Invalid by default, or the rule's reason. */
function ruleCause(path: string, value: unknown, schema: JSONSchemaProps, rule: ValidationRule, detail: string): StatusCause {
  const field = rule.fieldPath ? path + rule.fieldPath : path;
  switch (rule.reason) {
    case 'FieldValueForbidden': return { reason: rule.reason, message: `Forbidden: ${detail}`, field };
    case 'FieldValueRequired': return { reason: rule.reason, message: `Required value: ${detail}`, field };
    default: {
      const type = schemaType(schema);
      // Objects and lists are left out of the message (field.OmitValueType).
      if (type === 'object' || type === 'array') return { reason: 'FieldValueInvalid', message: `Invalid value: ${detail}`, field };
      return invalid(field, value, detail);
    }
  }
}

function evaluateRules(value: unknown, old: unknown, schema: JSONSchemaProps, path: string, causes: StatusCause[]): void {
  const rules = schema['x-kubernetes-validations'] ?? [];
  if (rules.length === 0) return;
  const self = celValue(value, schema);
  const oldSelf = old === undefined ? undefined : celValue(old, schema);
  for (const rule of rules) {
    const c = compile(rule);
    if ('error' in c) {
      causes.push(ruleCause(path, value, { type: 'object' }, {} as ValidationRule, `rule compile error: ${c.error}`));
      continue;
    }
    if (c.usesOldSelf && old === undefined) continue;
    let result: unknown;
    try {
      result = c.program(c.usesOldSelf ? { self, oldSelf } : { self });
    } catch (err) {
      if (!(err instanceof EvaluationError)) throw err;
      causes.push(ruleCause(path, value, schema, {} as ValidationRule, `${err.message.split('\n')[0]} evaluating rule: ${rule.message?.trim() || rule.rule.trim()}`));
      continue;
    }
    if (result === true) continue;
    const detail = rule.message !== undefined && rule.message.trim() !== '' ? rule.message.trim() : `failed rule: ${rule.rule.trim()}`;
    causes.push(ruleCause(path, value, schema, rule, detail));
  }
}

/** The old value a list item corresponds to: by its keys in a map list, none elsewhere. */
function correlatedItem(item: unknown, oldList: unknown, schema: JSONSchemaProps): unknown {
  if (schema['x-kubernetes-list-type'] !== 'map' || !Array.isArray(oldList) || !isObjectValue(item)) return undefined;
  const keys = schema['x-kubernetes-list-map-keys'] ?? [];
  return oldList.find((o) => isObjectValue(o) && keys.every((k) => JSON.stringify(o[k]) === JSON.stringify(item[k])));
}

function walk(value: unknown, old: unknown, schema: JSONSchemaProps, path: string, causes: StatusCause[]): void {
  if (value === undefined || value === null) return;
  evaluateRules(value, old, schema, path, causes);
  if (Array.isArray(value)) {
    if (!schema.items) return;
    for (let i = 0; i < value.length; i++) walk(value[i], correlatedItem(value[i], old, schema), schema.items, indexPath(path, i), causes);
    return;
  }
  if (!isObjectValue(value)) return;
  const oldObject = isObjectValue(old) ? old : undefined;
  const props = schema.properties ?? {};
  const extra = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  for (const key of Object.keys(value)) {
    const prop = Object.hasOwn(props, key) ? props[key] : extra;
    if (prop !== undefined) walk(value[key], oldObject?.[key], prop, childPath(path, key), causes);
  }
}

/** The causes of the rules `object` breaks (`old`: the stored object, on update). */
export function validateCelRules(object: Record<string, unknown>, old: Record<string, unknown> | undefined, schema: JSONSchemaProps): StatusCause[] {
  const causes: StatusCause[] = [];
  walk(object, old, schema, '', causes);
  return causes;
}

/** Whether any value of the schema has rules, so kinds without any are not walked. */
export function hasCelRules(schema: JSONSchemaProps): boolean {
  const stack: JSONSchemaProps[] = [schema];
  while (stack.length > 0) {
    const s = stack.pop()!;
    if ((s['x-kubernetes-validations'] ?? []).length > 0) return true;
    for (const p of Object.values(s.properties ?? {})) stack.push(p);
    if (s.items) stack.push(s.items);
    if (typeof s.additionalProperties === 'object') stack.push(s.additionalProperties);
  }
  return false;
}
