/**
 * The custom-resource facility's parts on their own: pruning by a structural schema, defaulting,
 * schema validation in kube-apiserver's words, CEL rules (self, oldSelf, escaped property names),
 * and printer columns.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateCelRules, escapeCelProperty } from '@pv-controller/apiserver/resources/custom/cel-rules.js';
import { applyDefaults } from '@pv-controller/apiserver/resources/custom/defaults.js';
import type { JSONSchemaProps } from '@pv-controller/apiserver/resources/custom/json-schema.js';
import { printerColumns, parseSimpleJsonPath } from '@pv-controller/apiserver/resources/custom/printer-columns.js';
import { pruneCustomResource } from '@pv-controller/apiserver/resources/custom/prune.js';
import { validateAgainstSchema } from '@pv-controller/apiserver/resources/custom/schema-validation.js';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' },
    spec: {
      type: 'object',
      required: ['mode'],
      properties: {
        mode: { type: 'string', enum: ['Fast', 'Slow'] },
        size: { type: 'integer', minimum: 0, default: 1 },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { known: { type: 'object', properties: { a: { type: 'string' } } } } },
        when: { type: 'string', format: 'date-time' },
        code: { type: 'string', pattern: '^[a-z]+$', maxLength: 4 },
      },
    },
  },
};

test('pruning drops the fields a schema does not name, reports their paths sorted, and keeps what preserve-unknown-fields keeps', () => {
  const obj: Record<string, unknown> = {
    apiVersion: 'x/v1', kind: 'K', metadata: { name: 'a' }, zeta: 1,
    spec: { mode: 'Fast', bogus: true, items: [{ name: 'i', extra: 1 }], labels: { any: 'x' }, free: { anything: 1, known: { a: 'x', b: 2 } } },
  };
  assert.deepEqual(pruneCustomResource(obj, schema), ['spec.bogus', 'spec.free.known.b', 'spec.items[0].extra', 'zeta']);
  assert.deepEqual(obj, {
    apiVersion: 'x/v1', kind: 'K', metadata: { name: 'a' },
    spec: { mode: 'Fast', items: [{ name: 'i' }], labels: { any: 'x' }, free: { anything: 1, known: { a: 'x' } } },
  });
});

test('pruning drops a null the schema does not allow and that has no default', () => {
  const obj: Record<string, unknown> = { spec: { mode: 'Fast', code: null, size: null } };
  pruneCustomResource(obj, schema);
  assert.deepEqual(obj, { spec: { mode: 'Fast', size: null } });
});

test('defaulting fills a missing or null property with a copy of its default, at any depth', () => {
  const a: Record<string, unknown> = { spec: { mode: 'Fast' } };
  const b: Record<string, unknown> = { spec: { mode: 'Fast', size: null } };
  applyDefaults(a, schema);
  applyDefaults(b, schema);
  assert.deepEqual(a, { spec: { mode: 'Fast', size: 1 } });
  assert.deepEqual(b, { spec: { mode: 'Fast', size: 1 } });
});

test('schema validation words type, enum, required, minimum, pattern, length and date-time errors as kube-apiserver', () => {
  const causes = validateAgainstSchema({ spec: { mode: 'Medium', size: -1, code: 'ABCDE', when: 'today', labels: { a: 5 } } }, schema);
  assert.deepEqual(causes.map((c) => [c.reason, c.field, c.message]), [
    ['FieldValueNotSupported', 'spec.mode', 'Unsupported value: "Medium": supported values: "Fast", "Slow"'],
    ['FieldValueInvalid', 'spec.size', 'Invalid value: -1: spec.size in body should be greater than or equal to 0'],
    ['FieldValueTypeInvalid', 'spec.labels.a', 'Invalid value: "integer": spec.labels.a in body must be of type string: "integer"'],
    ['FieldValueTypeInvalid', 'spec.when', 'Invalid value: "today": spec.when in body must be of type date-time: "today"'],
    ['FieldValueTooLong', 'spec.code', 'Too long: may not be more than 4 bytes'],
    ['FieldValueInvalid', 'spec.code', "Invalid value: \"ABCDE\": spec.code in body should match '^[a-z]+$'"],
  ]);
  assert.deepEqual(validateAgainstSchema({ spec: {} }, schema).map((c) => [c.field, c.message]), [['spec.mode', 'Required value']]);
});

test('a part validated alone has its fields under it and its messages relative to it', () => {
  const status: JSONSchemaProps = { type: 'object', properties: { size: { type: 'integer', minimum: 0 } } };
  assert.deepEqual(validateAgainstSchema({ size: -2 }, status, '', 'status'), [
    { reason: 'FieldValueInvalid', field: 'status.size', message: 'Invalid value: -2: size in body should be greater than or equal to 0' },
  ]);
});

const ruled: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        ref: {
          type: 'object',
          properties: { name: { type: 'string' }, namespace: { type: 'string' } },
          'x-kubernetes-validations': [{ rule: 'has(self.name) && has(self.__namespace__)', message: 'both name and namespace must be set' }],
        },
        handle: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'handle is immutable' }] },
        count: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self < 10' }] },
      },
    },
  },
};

test('a CEL rule on an object reads escaped property names, and its cause leaves the object out of the message', () => {
  assert.equal(escapeCelProperty('namespace'), '__namespace__');
  assert.equal(escapeCelProperty('a-b.c/d__e'), 'a__dash__b__dot__c__slash__d__underscores__e');
  assert.deepEqual(validateCelRules({ spec: { ref: { name: 'n', namespace: 'ns' } } }, undefined, ruled), []);
  assert.deepEqual(validateCelRules({ spec: { ref: { name: 'n' } } }, undefined, ruled), [
    { reason: 'FieldValueInvalid', field: 'spec.ref', message: 'Invalid value: both name and namespace must be set' },
  ]);
});

test('a transition rule (oldSelf) is evaluated on update only, against the corresponding old value', () => {
  assert.deepEqual(validateCelRules({ spec: { handle: 'a' } }, undefined, ruled), []);
  assert.deepEqual(validateCelRules({ spec: { handle: 'a' } }, { spec: { handle: 'a' } }, ruled), []);
  assert.deepEqual(validateCelRules({ spec: { handle: 'b' } }, { spec: { handle: 'a' } }, ruled), [
    { reason: 'FieldValueInvalid', field: 'spec.handle', message: 'Invalid value: "b": handle is immutable' },
  ]);
  assert.deepEqual(validateCelRules({ spec: { handle: 'b' } }, { spec: {} }, ruled), []);
});

test('a rule without a message is reported as "failed rule", with integers compared as CEL ints', () => {
  assert.deepEqual(validateCelRules({ spec: { count: 3 } }, undefined, ruled), []);
  assert.deepEqual(validateCelRules({ spec: { count: 12 } }, undefined, ruled), [
    { reason: 'FieldValueInvalid', field: 'spec.count', message: 'Invalid value: 12: failed rule: self < 10' },
  ]);
});

test('printer columns print string cells as JSONPath does, dates as ages, and a missing value as an empty cell', () => {
  assert.deepEqual(parseSimpleJsonPath('.status.list[0].name'), [{ field: 'status' }, { field: 'list' }, { index: 0 }, { field: 'name' }]);
  assert.equal(parseSimpleJsonPath('.a[?(@.x)]'), undefined);
  const cols = printerColumns([
    { name: 'Ready', type: 'string', jsonPath: '.status.readyToUse' },
    { name: 'Size', type: 'integer', jsonPath: '.status.size' },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ]);
  assert.deepEqual(cols.columns.map((c) => c.name), ['Name', 'Ready', 'Size', 'Age']);
  const row = cols.row({ metadata: { name: 'a', creationTimestamp: '2026-01-01T00:00:00Z' }, status: { readyToUse: false } }, new Date('2026-01-01T00:01:30Z'));
  assert.deepEqual(row, ['a', 'false', null, '90s']);
  assert.deepEqual(printerColumns([]).columns.map((c) => c.name), ['Name', 'Age']);
});
