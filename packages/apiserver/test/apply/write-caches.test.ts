/**
 * The write path's shortcuts answer what the plain computation answers: managedFields computed
 * from frozen stored objects (the decoding and encoding caches, the reused field sets of
 * untouched managers) equal those computed from unfrozen copies (no cache applies), over random
 * sequences of writes; and the field-set tests the shortcuts rest on agree with the operations
 * they stand for.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { FieldSet } from '@pv-controller/apiserver/registry/apply/fieldset.js';
import { decodeFieldsV1, encodeFieldsV1 } from '@pv-controller/apiserver/registry/apply/fields-v1.js';
import { managedFieldsAfterWrite } from '@pv-controller/apiserver/registry/apply/ownership.js';
import { jsonEqual } from '@pv-controller/apiserver/resources/object-utils.js';
import { persistentVolumeStrategy } from '@pv-controller/apiserver/resources/core/persistentvolumes.js';
import { deepFreeze } from '@pv-controller/apiserver/storage/freeze.js';

const elementArb = fc.constantFrom('f:a', 'f:b', 'f:c', 'k:{"name":"x"}', 'v:"y"', 'i:0');
const pathArb = fc.array(elementArb, { minLength: 1, maxLength: 4 });
const setArb = fc.array(pathArb, { maxLength: 8 }).map((paths) => {
  const set = new FieldSet();
  for (const p of paths) set.insert(p);
  return set;
});

test('covers answers whether a union would add nothing, overlaps whether a subtraction would remove something', () => {
  fc.assert(
    fc.property(setArb, setArb, (a, b) => {
      assert.equal(a.covers(b), a.clone().unionWith(b).equals(a));
      assert.equal(a.overlaps(b), !a.clone().subtract(b).equals(a));
    }),
  );
});

test('a field set built by insertions reads back from its FieldsV1 as the same set', () => {
  fc.assert(fc.property(setArb, (a) => assert.ok(decodeFieldsV1(encodeFieldsV1(a)).equals(a))));
});

/** The old definition of jsonEqual, kept as the reference for the loop version. */
function referenceJsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((v, i) => referenceJsonEqual(v, (b as unknown[])[i]));
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => Object.hasOwn(bo, k) && referenceJsonEqual(ao[k], bo[k]));
}

test('jsonEqual answers as the filter-and-every definition, undefined members ignored', () => {
  const leaf = fc.oneof(fc.constantFrom(0, 1, 'a', true, null, undefined), fc.constant({}));
  const value = fc.letrec((tie) => ({
    v: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('v'), { maxKeys: 3 })),
  })).v;
  fc.assert(
    fc.property(value, value, (a, b) => {
      assert.equal(jsonEqual(a, b), referenceJsonEqual(a, b));
      assert.equal(jsonEqual(a, structuredClone(a)), true);
    }),
  );
});

interface WriteStep {
  manager: string;
  status: boolean;
  labels: Record<string, string>;
  capacity: string;
  claimName: string | undefined;
  phase: string;
  /** What the body carries as managedFields: the stored list (read-modify-write), none, or a reset. */
  sends: 'stored' | 'none' | 'reset';
}

const stepArb: fc.Arbitrary<WriteStep> = fc.record({
  manager: fc.constantFrom('kubectl', 'controller', 'bench'),
  status: fc.boolean(),
  labels: fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.constantFrom('1', '2'), { maxKeys: 3 }),
  capacity: fc.constantFrom('1Gi', '2Gi'),
  claimName: fc.option(fc.constantFrom('c1', 'c2'), { nil: undefined }),
  phase: fc.constantFrom('Available', 'Bound', 'Released'),
  sends: fc.constantFrom('stored', 'stored', 'stored', 'none', 'reset'),
});

function bodyOf(step: WriteStep, prev: KubeObject | undefined): KubeObject {
  const spec: Record<string, unknown> = { capacity: { storage: step.capacity }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/v' } };
  if (step.claimName) spec.claimRef = { kind: 'PersistentVolumeClaim', namespace: 'ns', name: step.claimName };
  const metadata: Record<string, unknown> = { name: 'pv', labels: step.labels };
  const stored = prev?.metadata.managedFields;
  if (step.sends === 'stored' && stored) metadata.managedFields = structuredClone(stored);
  if (step.sends === 'reset') metadata.managedFields = [];
  return { apiVersion: 'v1', kind: 'PersistentVolume', metadata, spec, status: { phase: step.phase } } as unknown as KubeObject;
}

test('managedFields after any sequence of writes are the same from frozen stored objects as from copies', () => {
  fc.assert(
    fc.property(fc.array(stepArb, { minLength: 1, maxLength: 8 }), (steps) => {
      let prev: KubeObject | undefined;
      steps.forEach((step, i) => {
        const next = bodyOf(step, prev);
        const req = { manager: step.manager, subresource: step.status && prev ? 'status' : undefined, now: `2026-01-01T00:00:0${i}Z` };
        const supplied = next.metadata.managedFields;
        const fast = managedFieldsAfterWrite(persistentVolumeStrategy.info, prev, next, supplied, req);
        const slow = managedFieldsAfterWrite(persistentVolumeStrategy.info, structuredClone(prev), structuredClone(next), structuredClone(supplied), req);
        assert.deepEqual(JSON.parse(JSON.stringify(fast ?? null)), JSON.parse(JSON.stringify(slow ?? null)));
        const written = { ...next, metadata: { ...next.metadata } };
        if (fast === undefined) delete written.metadata.managedFields;
        else written.metadata.managedFields = fast;
        prev = deepFreeze(written);
      });
    }),
    { numRuns: 300 },
  );
});
