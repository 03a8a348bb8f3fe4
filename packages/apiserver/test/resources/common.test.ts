import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { jsonEqual, keepStored, rfc3339Now } from '@pv-controller/apiserver/resources/common.js';

test('keepStored replaces the written part with a copy of the stored one, never the stored object itself', () => {
  const prev: KubeObject = { metadata: { name: 'a' }, status: { phase: 'Bound' } };
  const next: KubeObject = { metadata: { name: 'a' }, status: { phase: 'Lost' } };
  keepStored(next, prev, 'status');
  assert.deepEqual(next.status, { phase: 'Bound' });
  assert.notEqual(next.status, prev.status);
});

test('keepStored removes a part the stored object does not have', () => {
  const next: KubeObject = { metadata: { name: 'a' }, spec: { x: 1 } };
  keepStored(next, { metadata: { name: 'a' } }, 'spec');
  assert.equal('spec' in next, false);
});

test('jsonEqual ignores key order and undefined members, but not a key only one side has', () => {
  assert.equal(jsonEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1, d: undefined }), true);
  assert.equal(jsonEqual({ a: 1 }, { a: 1, b: null }), false);
  assert.equal(jsonEqual(JSON.parse('{"__proto__": {}}'), { x: {} }), false);
});

test('rfc3339Now has whole seconds', () => {
  assert.match(rfc3339Now(), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
});
