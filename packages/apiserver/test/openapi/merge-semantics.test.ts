import { test } from 'node:test';
import assert from 'node:assert/strict';
import { definitionNameOf } from '@pv-controller/apiserver/openapi/definitions.js';
import { fieldSemantics, isAtomicStruct, kindSemantics, memberSemantics, mergesList } from '@pv-controller/apiserver/openapi/merge-semantics.js';
import { strategies } from '@pv-controller/apiserver/resources/index.js';

const CORE = 'io.k8s.api.core.v1';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

test('definitionNameOf names each served kind by its OpenAPI model name', () => {
  assert.equal(definitionNameOf({ group: '', version: 'v1', kind: 'PersistentVolume' }), `${CORE}.PersistentVolume`);
  assert.equal(definitionNameOf({ group: 'storage.k8s.io', version: 'v1', kind: 'StorageClass' }), 'io.k8s.api.storage.v1.StorageClass');
  assert.equal(definitionNameOf({ group: 'authorization.k8s.io', version: 'v1', kind: 'SelfSubjectAccessReview' }), 'io.k8s.api.authorization.v1.SelfSubjectAccessReview');
  assert.equal(definitionNameOf({ group: 'example.com', version: 'v1', kind: 'Widget' }), undefined);
});

test('every kind served has merge semantics, its metadata among them (a custom resource through its registered definitions)', () => {
  // CustomResourceDefinition is not in the generated definitions (tools/k8s reads the built-in
  // groups' types, not apiextensions'): its lists merge by structured-merge-diff's defaults.
  for (const { info } of strategies.filter((s) => s.info.kind !== 'CustomResourceDefinition')) {
    const root = info.custom ? { definition: info.custom.definition } : kindSemantics(info);
    assert.ok(root, `${info.group}/${info.kind} has no definition`);
    assert.equal(memberSemantics(root, 'metadata')?.definition, `${META}.ObjectMeta`, info.kind);
  }
});

test('finalizers merge as a set, ownerReferences by uid, under both strategic merge patch and apply', () => {
  const finalizers = fieldSemantics(`${META}.ObjectMeta`, 'finalizers');
  assert.equal(finalizers?.listType, 'set');
  assert.deepEqual(finalizers?.patchStrategies, ['merge']);
  assert.equal(finalizers?.patchMergeKey, undefined);
  const owners = fieldSemantics(`${META}.ObjectMeta`, 'ownerReferences');
  assert.deepEqual([owners?.listType, owners?.listMapKeys, owners?.patchMergeKey], ['map', ['uid'], 'uid']);
});

test('where a field has both markers they agree; container ports are keyed by port under SMP, port and protocol under apply', () => {
  const conditions = fieldSemantics(`${CORE}.NodeStatus`, 'conditions');
  assert.deepEqual([conditions?.listType, conditions?.listMapKeys, conditions?.patchMergeKey, mergesList(conditions)], ['map', ['type'], 'type', true]);
  const ports = fieldSemantics(`${CORE}.Container`, 'ports');
  assert.deepEqual([ports?.listMapKeys, ports?.patchMergeKey], [['containerPort', 'protocol'], 'containerPort']);
  const volumes = fieldSemantics(`${CORE}.PodSpec`, 'volumes');
  assert.deepEqual([volumes?.patchStrategies, volumes?.patchMergeKey, volumes?.definition], [['merge', 'retainKeys'], 'name', `${CORE}.Volume`]);
});

test('lists without a patch strategy are replaced by a strategic patch; a list type alone does not merge', () => {
  assert.equal(mergesList(fieldSemantics(`${CORE}.PersistentVolumeSpec`, 'accessModes')), false);
  assert.equal(fieldSemantics(`${CORE}.PersistentVolumeSpec`, 'accessModes')?.listType, 'atomic');
  assert.equal(mergesList(fieldSemantics(`${CORE}.NodeSpec`, 'taints')), false);
  assert.equal(mergesList(fieldSemantics(`${CORE}.Container`, 'resizePolicy')), false);
  assert.equal(mergesList(fieldSemantics(`${CORE}.ResourceRequirements`, 'claims')), false);
});

test('a workload\'s template reaches the pod spec\'s containers, merged by name', () => {
  const deployment = kindSemantics({ group: 'apps', version: 'v1', kind: 'Deployment' });
  const podSpec = memberSemantics(memberSemantics(memberSemantics(deployment, 'spec'), 'template'), 'spec');
  const containers = memberSemantics(podSpec, 'containers');
  assert.deepEqual([containers?.patchMergeKey, containers?.definition], ['name', `${CORE}.Container`]);
  assert.equal(memberSemantics(containers, 'env')?.patchMergeKey, 'name');
});

test('map values are reached by any key; a field outside the schema has no semantics', () => {
  const capacity = fieldSemantics(`${CORE}.PersistentVolumeSpec`, 'capacity');
  assert.equal(capacity?.isMap, true);
  assert.equal(memberSemantics(capacity, 'storage')?.definition, 'io.k8s.apimachinery.pkg.api.resource.Quantity');
  assert.equal(fieldSemantics(`${CORE}.PersistentVolumeSpec`, 'noSuchField'), undefined);
  assert.equal(memberSemantics(undefined, 'spec'), undefined);
});

test('a field\'s x-kubernetes-map-type overrides its type\'s: claimRef is granular, ObjectReference atomic', () => {
  assert.equal(fieldSemantics(`${CORE}.PersistentVolumeSpec`, 'claimRef')?.mapType, 'granular');
  assert.equal(isAtomicStruct(`${CORE}.ObjectReference`), true);
  assert.equal(isAtomicStruct(`${CORE}.TypedLocalObjectReference`), true);
  assert.equal(isAtomicStruct(`${META}.LabelSelector`), true);
  assert.equal(isAtomicStruct(`${CORE}.PersistentVolumeSpec`), false);
});
