import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseResourcePath } from '../../src/apiserver/router.js';
import { negotiateForm } from '../../src/apiserver/accept.js';

test('the four path shapes, with name, subresource and the legacy watch prefix', () => {
  const cases: Array<[string, ReturnType<typeof parseResourcePath>]> = [
    ['/api/v1/persistentvolumes', { group: '', version: 'v1', plural: 'persistentvolumes', namespace: undefined, name: undefined, subresource: undefined, legacyWatch: false }],
    ['/api/v1/persistentvolumes/pv1/status', { group: '', version: 'v1', plural: 'persistentvolumes', namespace: undefined, name: 'pv1', subresource: 'status', legacyWatch: false }],
    ['/api/v1/namespaces/ns1/persistentvolumeclaims/c1', { group: '', version: 'v1', plural: 'persistentvolumeclaims', namespace: 'ns1', name: 'c1', subresource: undefined, legacyWatch: false }],
    ['/apis/storage.k8s.io/v1/storageclasses/gold', { group: 'storage.k8s.io', version: 'v1', plural: 'storageclasses', namespace: undefined, name: 'gold', subresource: undefined, legacyWatch: false }],
    ['/apis/coordination.k8s.io/v1/namespaces/kube-system/leases', { group: 'coordination.k8s.io', version: 'v1', plural: 'leases', namespace: 'kube-system', name: undefined, subresource: undefined, legacyWatch: false }],
    ['/api/v1/watch/namespaces/ns1/persistentvolumeclaims', { group: '', version: 'v1', plural: 'persistentvolumeclaims', namespace: 'ns1', name: undefined, subresource: undefined, legacyWatch: true }],
  ];
  for (const [path, want] of cases) assert.deepEqual(parseResourcePath(path), want, path);
});

test('namespace items and their status are not mistaken for namespaced collections', () => {
  assert.deepEqual(parseResourcePath('/api/v1/namespaces/ns1'), { group: '', version: 'v1', plural: 'namespaces', namespace: undefined, name: 'ns1', subresource: undefined, legacyWatch: false });
  assert.equal(parseResourcePath('/api/v1/namespaces/ns1/status')?.subresource, 'status');
  assert.equal(parseResourcePath('/api/v1/namespaces/ns1/status')?.plural, 'namespaces');
});

test('paths that are no resource paths are rejected', () => {
  for (const p of ['/', '/api', '/api/v1', '/apis/storage.k8s.io/v1', '/healthz', '/api/v1/a/b/c/d']) {
    assert.equal(parseResourcePath(p), undefined, p);
  }
});

test('Accept negotiation picks a Table when offered first and JSON otherwise', () => {
  assert.deepEqual(
    negotiateForm('application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json'),
    { kind: 'table', version: 'v1' },
  );
  assert.deepEqual(negotiateForm('application/json;as=Table;v=v1beta1;g=meta.k8s.io'), { kind: 'table', version: 'v1beta1' });
  assert.deepEqual(negotiateForm('application/vnd.kubernetes.protobuf,application/json'), { kind: 'json' });
  assert.deepEqual(negotiateForm('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json'), { kind: 'json' });
  assert.deepEqual(negotiateForm(undefined), { kind: 'json' });
});
