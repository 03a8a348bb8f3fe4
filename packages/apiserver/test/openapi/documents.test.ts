import { test } from 'node:test';
import assert from 'node:assert/strict';
import { strategies } from '@pv-controller/apiserver/resources/index.js';
import { allPaths, openApiV3Document, v3DocumentKey, type DocumentInput } from '@pv-controller/apiserver/endpoints/openapi/documents.js';
import { openApiV2Document, parameterHash } from '@pv-controller/apiserver/endpoints/openapi/v2.js';

const input: DocumentInput = { resources: strategies.map((s) => s.info), version: '1.32' };
const paths = allPaths(input);
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test-side JSON boundary
type Json = any;

function v3(key: string, gv?: { group: string; version: string }): Json {
  return openApiV3Document(input, paths.filter((p) => v3DocumentKey(p.path) === key), key, gv);
}

test('a cluster-scoped resource has list/create/deletecollection, get/put/delete/patch, status and watch paths', () => {
  const doc = v3('api/v1', { group: '', version: 'v1' });
  const pv = doc.paths['/api/v1/persistentvolumes/{name}'];
  assert.deepEqual(Object.keys(pv), ['get', 'put', 'delete', 'patch', 'parameters']);
  assert.deepEqual([pv.get.operationId, pv.put.operationId, pv.delete.operationId, pv.patch.operationId],
    ['readCoreV1PersistentVolume', 'replaceCoreV1PersistentVolume', 'deleteCoreV1PersistentVolume', 'patchCoreV1PersistentVolume']);
  assert.deepEqual(pv.parameters.map((p: Json) => `${p.in}:${p.name}`), ['path:name', 'query:pretty']);
  assert.deepEqual(pv.patch.parameters.map((p: Json) => p.name), ['dryRun', 'fieldManager', 'fieldValidation', 'force']);
  assert.deepEqual(Object.keys(pv.patch.requestBody.content), ['application/apply-patch+yaml', 'application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json']);
  assert.deepEqual(pv.get['x-kubernetes-group-version-kind'], { group: '', version: 'v1', kind: 'PersistentVolume' });
  assert.equal(doc.paths['/api/v1/persistentvolumes'].delete.operationId, 'deleteCoreV1CollectionPersistentVolume');
  assert.equal(doc.paths['/api/v1/persistentvolumes/{name}/status'].patch.operationId, 'patchCoreV1PersistentVolumeStatus');
  assert.equal(doc.paths['/api/v1/watch/persistentvolumes'].get['x-kubernetes-action'], 'watchlist');
});

test('a namespaced resource also has the all-namespaces list and watch', () => {
  const doc = v3('api/v1', { group: '', version: 'v1' });
  assert.equal(doc.paths['/api/v1/persistentvolumeclaims'].get.operationId, 'listCoreV1PersistentVolumeClaimForAllNamespaces');
  assert.equal(doc.paths['/api/v1/watch/persistentvolumeclaims'].get.operationId, 'watchCoreV1PersistentVolumeClaimListForAllNamespaces');
  assert.equal(doc.paths['/api/v1/namespaces/{namespace}/persistentvolumeclaims'].post.operationId, 'createCoreV1NamespacedPersistentVolumeClaim');
});

test('delete answers the object or a Status, as each kube-apiserver registry does', () => {
  const doc = v3('api/v1', { group: '', version: 'v1' });
  const answer = (path: string): string => doc.paths[path].delete.responses['200'].content['application/json'].schema.$ref;
  assert.equal(answer('/api/v1/persistentvolumes/{name}'), '#/components/schemas/io.k8s.api.core.v1.PersistentVolume');
  assert.equal(answer('/api/v1/namespaces/{name}'), '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Status');
});

test('a group-version document carries only the schemas its paths reach', () => {
  const core = v3('api/v1', { group: '', version: 'v1' });
  assert.ok(core.components.schemas['io.k8s.api.core.v1.PersistentVolumeSpec']);
  assert.equal(Object.keys(core.components.schemas).some((n) => n.startsWith('io.k8s.api.storage.')), false);
  assert.equal(core.components.schemas['io.k8s.api.core.v1.ConfigMap'], undefined, 'no ConfigMap is served');
  const storage = v3('apis/storage.k8s.io/v1', { group: 'storage.k8s.io', version: 'v1' });
  assert.ok(storage.components.schemas['io.k8s.api.core.v1.TopologySelectorTerm'], 'reached from StorageClass.allowedTopologies');
  assert.deepEqual(storage.components.schemas['io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions']['x-kubernetes-group-version-kind'],
    [{ group: '', kind: 'DeleteOptions', version: 'v1' }, { group: 'storage.k8s.io', kind: 'DeleteOptions', version: 'v1' }]);
});

test('v2 shares parameters under the names kube-apiserver v1.37 gives them', () => {
  const doc: Json = openApiV2Document(input, paths);
  for (const name of ['pretty-tJGM1-ng', 'fieldManager-Qy4HdaTW', 'fieldManager-7c6nTn1T', 'body-2Y1dVQaQ', 'body-78PwaGsr', 'namespace-vgWSWtn3', 'watch-XNNPZGbK']) {
    assert.ok(doc.parameters[name], name);
  }
  const put = doc.paths['/api/v1/persistentvolumes/{name}'].put;
  assert.deepEqual(put.parameters[0], { name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.api.core.v1.PersistentVolume' } });
  assert.equal(put.parameters.find((p: Json) => p.name === 'fieldValidation')?.in, 'query', 'fieldValidation stays inline for kubectl');
  assert.deepEqual(doc.securityDefinitions.BearerToken, { description: 'Bearer Token authentication', type: 'apiKey', name: 'authorization', in: 'header' });
  assert.ok(doc.definitions['io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions'], 'reached through a shared body parameter');
});

test('parameterHash is FNV-1 64 of the Go encoding, first 6 bytes in URL-safe base64', () => {
  assert.equal(parameterHash(''), 'y_Kc5IQi', 'the FNV-64 offset basis cbf29ce484222325');
});
