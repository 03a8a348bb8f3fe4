/**
 * Property tests of the three patch types applied to a valid volume: any patch is applied or
 * refused with a 4xx, never mutates the current object and never grows past the body limit;
 * merge patch keeps RFC 7386's laws; a strategic merge patch of maps alone is a merge patch;
 * JSON patch `add` then `remove` of a new member is the identity, `test` of what `add` wrote holds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { applyPatch, applyStrategicMergePatch, JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH } from '@pv-controller/apiserver/endpoints/patch/index.js';
import type { JsonObject } from '@pv-controller/apiserver/endpoints/patch/json-value.js';
import { mergePatchLaws, patchLaws, PV_STRATEGY, validVolume } from '../../../../test/fuzz/laws/bodies.js';
import { jsonEqual } from '../../../../test/fuzz/laws/law.js';

const bytes = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));
const FIELD_NAMES = ['metadata', 'spec', 'status', 'labels', 'finalizers', 'capacity', 'storage', 'mountOptions', 'hostPath', 'path', 'a', '$patch', '$retainKeys', '__proto__', 'constructor'];
const key = fc.oneof(fc.constantFrom(...FIELD_NAMES), fc.string({ maxLength: 4 }));
const value = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, fc.constantFrom(null, true, 0, -1, 1.5, '', 'x', '1Gi', 'replace', 'delete', 'merge'),
    fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(key, tie('v'), { maxKeys: 3 })),
})).v;
const pointer = fc.array(fc.oneof(fc.constantFrom('metadata', 'spec', 'labels', 'mountOptions', '0', '1', '-', '-1', '01', 'capacity', 'storage', '~1', 'constructor')), { maxLength: 4 })
  .map((tokens) => tokens.map((t) => `/${t}`).join(''));
const jsonPatchOp = fc.oneof(
  fc.record({ op: fc.constantFrom('add', 'replace', 'test'), path: pointer, value }),
  fc.record({ op: fc.constant('remove'), path: pointer }),
  fc.record({ op: fc.constantFrom('copy', 'move'), from: pointer, path: pointer }),
);

test('any JSON patch on a valid volume is applied or refused with a 4xx, leaves the volume untouched and stays within the limit', () => {
  fc.assert(fc.property(fc.array(jsonPatchOp, { maxLength: 6 }), (ops) => patchLaws(JSON_PATCH, bytes(ops))), { numRuns: 3000 });
});

test('any merge or strategic merge patch on a valid volume is applied or refused with a 4xx and keeps the patch laws', () => {
  const patch = fc.dictionary(fc.constantFrom('metadata', 'spec', 'status', 'kind', '$patch', 'x'), value, { maxKeys: 3 });
  fc.assert(fc.property(patch, (p) => {
    patchLaws(MERGE_PATCH, bytes(p));
    patchLaws(STRATEGIC_MERGE_PATCH, bytes(p));
  }), { numRuns: 3000 });
});

test('merge patch is idempotent, {} changes nothing and a non-object patch replaces the target (RFC 7386)', () => {
  fc.assert(fc.property(fc.jsonValue({ maxDepth: 4 }), (p) => mergePatchLaws(validVolume(), p)), { numRuns: 2000 });
});

test('a strategic merge patch of nested maps without lists or directives is the same as a merge patch', () => {
  const leaf = fc.oneof(fc.constant(null), fc.string({ maxLength: 3 }), fc.integer());
  const mapsOnly = fc.letrec<{ m: Record<string, unknown> }>((tie) => ({
    m: fc.dictionary(fc.constantFrom('a', 'b', 'path', 'type', 'labels', 'x'), fc.oneof({ depthSize: 'small' }, leaf, tie('m')), { maxKeys: 3 }),
  })).m;
  fc.assert(fc.property(mapsOnly, (m) => {
    const patch = { metadata: { annotations: m }, spec: { hostPath: m } };
    const merged = applyPatch(MERGE_PATCH, validVolume(), bytes(patch), PV_STRATEGY);
    const strategic = applyStrategicMergePatch(validVolume() as unknown as JsonObject, patch, { group: '', version: 'v1', kind: 'PersistentVolume' });
    assert.ok(jsonEqual(merged, strategic), JSON.stringify(patch));
  }), { numRuns: 1000 });
});

test('a JSON patch that adds a new label and removes it again is the identity; a test of what it added holds', () => {
  const labelKey = fc.string({ minLength: 1, maxLength: 8 }).filter((k) => k !== 'a');
  fc.assert(fc.property(labelKey, fc.jsonValue({ maxDepth: 2 }), (k, v) => {
    const path = `/metadata/labels/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    const ops = [{ op: 'add', path, value: v }, { op: 'test', path, value: v }, { op: 'remove', path }];
    assert.ok(jsonEqual(applyPatch(JSON_PATCH, validVolume(), bytes(ops), PV_STRATEGY), validVolume()), JSON.stringify(ops));
  }), { numRuns: 1000 });
});
