import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldStructure, structureOf } from '../../../src/apiserver/openapi/structure.js';
import { definitionNameOf } from '../../../src/apiserver/openapi/definitions.js';

const PV = { group: '', version: 'v1', kind: 'PersistentVolume' };
const PVC = { group: '', version: 'v1', kind: 'PersistentVolumeClaim' };
const NODE = { group: '', version: 'v1', kind: 'Node' };
const SC = { group: 'storage.k8s.io', version: 'v1', kind: 'StorageClass' };

test('definitionNameOf names each served kind by its OpenAPI model name', () => {
  assert.equal(definitionNameOf(PV), 'io.k8s.api.core.v1.PersistentVolume');
  assert.equal(definitionNameOf(SC), 'io.k8s.api.storage.v1.StorageClass');
  assert.equal(definitionNameOf({ group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' }), 'io.k8s.api.coordination.v1.Lease');
  assert.equal(definitionNameOf({ group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectAccessReview' }), 'io.k8s.api.authorization.v1.SelfSubjectAccessReview');
  assert.equal(definitionNameOf({ group: 'example.com', version: 'v1', kind: 'Widget' }), undefined);
});

test('a kind is a granular struct of its top-level fields', () => {
  assert.deepEqual(structureOf(PV)?.shape, { type: 'struct', mapType: 'granular', fields: ['apiVersion', 'kind', 'metadata', 'spec', 'status'] });
});

test('accessModes is an atomic list, as x-kubernetes-list-type says', () => {
  assert.deepEqual(fieldStructure(PV, ['spec', 'accessModes'])?.shape, { type: 'list', listType: 'atomic', keys: [] });
});

test('finalizers is a set and ownerReferences a map keyed by uid', () => {
  assert.deepEqual(fieldStructure(PV, ['metadata', 'finalizers'])?.shape, { type: 'list', listType: 'set', keys: [] });
  assert.deepEqual(fieldStructure(PV, ['metadata', 'finalizers'])?.patchMeta, { patchStrategy: 'merge' });
  assert.deepEqual(fieldStructure(PV, ['metadata', 'ownerReferences'])?.shape, { type: 'list', listType: 'map', keys: ['uid'] });
  assert.deepEqual(fieldStructure(PV, ['metadata', 'ownerReferences'])?.patchMeta, { patchStrategy: 'merge', patchMergeKey: 'uid' });
});

test('labels and capacity are granular maps; values below them are reached by key', () => {
  assert.deepEqual(fieldStructure(PV, ['metadata', 'labels'])?.shape, { type: 'map', mapType: 'granular' });
  assert.deepEqual(fieldStructure(PV, ['spec', 'capacity'])?.shape, { type: 'map', mapType: 'granular' });
  assert.deepEqual(fieldStructure(PV, ['spec', 'capacity', 'storage'])?.shape, { type: 'untyped' });
  assert.deepEqual(fieldStructure(PV, ['metadata', 'labels', 'app'])?.shape, { type: 'scalar', scalar: 'string' });
});

function mapTypeAt(gvk: typeof PV, path: Array<string | number>): string | undefined {
  const shape = fieldStructure(gvk, path)?.shape;
  return shape?.type === 'struct' || shape?.type === 'map' ? shape.mapType : undefined;
}

test('a field\'s x-kubernetes-map-type overrides its type\'s: claimRef is granular, ObjectReference atomic', () => {
  assert.equal(mapTypeAt(PV, ['spec', 'claimRef']), 'granular');
  assert.equal(mapTypeAt(PVC, ['spec', 'dataSource']), 'atomic');
  assert.equal(mapTypeAt(PVC, ['spec', 'selector']), 'atomic');
});

test('node selector terms are atomic structs in an atomic list', () => {
  assert.equal(mapTypeAt(PV, ['spec', 'nodeAffinity', 'required', 'nodeSelectorTerms', 0]), 'atomic');
  assert.deepEqual(fieldStructure(PV, ['spec', 'nodeAffinity', 'required', 'nodeSelectorTerms'])?.shape, { type: 'list', listType: 'atomic', keys: [] });
});

test('list elements are reached by index or []; map-typed lists carry their keys', () => {
  assert.deepEqual(fieldStructure(NODE, ['status', 'conditions'])?.shape, { type: 'list', listType: 'map', keys: ['type'] });
  assert.deepEqual(fieldStructure(NODE, ['status', 'conditions', '[]', 'status'])?.shape, { type: 'scalar', scalar: 'string' });
  assert.deepEqual(fieldStructure(PVC, ['status', 'conditions'])?.shape, { type: 'list', listType: 'map', keys: ['type'] });
  assert.deepEqual(fieldStructure(PVC, ['status', 'conditions'])?.patchMeta, { patchStrategy: 'merge', patchMergeKey: 'type' });
});

test('managedFields entries and fieldsV1 are untyped below their struct', () => {
  assert.deepEqual(fieldStructure(PV, ['metadata', 'managedFields'])?.shape, { type: 'list', listType: 'atomic', keys: [] });
  assert.deepEqual(fieldStructure(PV, ['metadata', 'managedFields', 0, 'fieldsV1'])?.shape, { type: 'untyped' });
});

test('a path that leaves the schema is undefined', () => {
  assert.equal(fieldStructure(PV, ['spec', 'noSuchField']), undefined);
  assert.equal(fieldStructure(PV, ['spec', 'accessModes', 'x', 'y']), undefined);
});

test('descriptions are the published field descriptions', () => {
  assert.match(fieldStructure(PVC, ['spec', 'resources'])?.description ?? '', /^resources represents the minimum resources the volume should have\./);
  assert.equal(fieldStructure(SC, ['provisioner'])?.description, 'provisioner indicates the type of the provisioner.');
});
