import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiError } from '@pv-controller/kube/errors.js';
import { MalformedRequestTargetError, parseRequestTarget } from '@pv-controller/apiserver/api/request-target.js';
import { parseResourcePath, pathTokens } from '@pv-controller/apiserver/api/router.js';
import { requireCollectionKey, requireObjectKey } from '@pv-controller/apiserver/registry/storage-key.js';
import { negotiateForm } from '@pv-controller/apiserver/api/accept.js';

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

test('Accept negotiation picks a Table or protobuf when offered first and JSON otherwise', () => {
  assert.deepEqual(
    negotiateForm('application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json'),
    { kind: 'table', version: 'v1' },
  );
  assert.deepEqual(negotiateForm('application/json;as=Table;v=v1beta1;g=meta.k8s.io'), { kind: 'table', version: 'v1beta1' });
  assert.deepEqual(negotiateForm('application/vnd.kubernetes.protobuf,application/json'), { kind: 'protobuf' });
  assert.deepEqual(negotiateForm('application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json'), { kind: 'json' });
  assert.deepEqual(negotiateForm('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json'), { kind: 'json' });
  assert.deepEqual(negotiateForm(undefined), { kind: 'json' });
});

test('dot-segments, encoded or not, are kept as segments and never resolved', () => {
  const pvc = parseRequestTarget('/api/v1/namespaces/victim/persistentvolumeclaims/%2e%2e').path;
  assert.equal(pvc, '/api/v1/namespaces/victim/persistentvolumeclaims/..');
  assert.deepEqual(parseResourcePath(pvc), {
    group: '', version: 'v1', plural: 'persistentvolumeclaims', namespace: 'victim', name: '..', subresource: undefined, legacyWatch: false,
  });
  const climb = parseRequestTarget('/api/v1/namespaces/victim/persistentvolumeclaims/%2e%2e/%2e%2e/%2e%2e/persistentvolumes/pv1').path;
  assert.equal(parseResourcePath(climb), undefined, 'six segments after the version name no resource');
  assert.equal(parseResourcePath('/api/v1/namespaces/%2E/persistentvolumeclaims')?.namespace, '%2E', 'the router never decodes');
  assert.equal(parseResourcePath('/api/v1/namespaces/./persistentvolumeclaims')?.namespace, '.');
  assert.equal(parseResourcePath('/api/v1/persistentvolumes/pv1/..')?.subresource, '..');
});

test('the path is percent-decoded once, so %2F separates and %252e stays literal, as Go decodes it', () => {
  assert.equal(parseRequestTarget('/api/v1/persistentvolumes/pv1%2Fstatus').path, '/api/v1/persistentvolumes/pv1/status');
  assert.equal(parseRequestTarget('/api/v1/persistentvolumes/%252e%252e').path, '/api/v1/persistentvolumes/%2e%2e');
  assert.equal(parseRequestTarget('/api/v1/persistentvolumes/a%00b').path, '/api/v1/persistentvolumes/a\u0000b');
  assert.equal(parseRequestTarget('/a/%E2%82%AC+b').path, '/a/€+b', '+ is no space in a path');
  assert.equal(parseRequestTarget('/a/%ff').path, '/a/\ufffd', 'bytes that are no UTF-8 decode to U+FFFD');
  assert.equal(parseRequestTarget('https://example.invalid/api/v1?limit=1').path, '/api/v1', 'absolute form');
});

test('a path with a bad percent escape is a malformed request target', () => {
  for (const target of ['/api/v1/persistentvolumes/%zz', '/api/v1/persistentvolumes/a%', '/a%2', '/a%g0', 'api/v1', '']) {
    assert.throws(() => parseRequestTarget(target), MalformedRequestTargetError, JSON.stringify(target));
  }
});

test('query pairs decode like url.ParseQuery: + is a space, bad escapes and semicolons drop only their pair', () => {
  const q = parseRequestTarget('/x?limit=%2B1&limit=2&a=%zz&b;c=1&=empty&flag&sel=a+in+(x)').query;
  assert.deepEqual(q.getAll('limit'), ['+1', '2']);
  assert.equal(q.has('a'), false);
  assert.equal(q.has('b;c'), false);
  assert.equal(q.get(''), 'empty');
  assert.equal(q.get('flag'), '');
  assert.equal(q.get('sel'), 'a in (x)');
  assert.equal([...parseRequestTarget('/x?%zz=1&limit=5').query].length, 1);
});

test('go-restful tokens: one leading and every trailing slash dropped, inner empty segments kept', () => {
  assert.deepEqual(pathTokens('/api/v1/persistentvolumes/pv1//'), ['api', 'v1', 'persistentvolumes', 'pv1']);
  assert.deepEqual(pathTokens('/api/v1//persistentvolumes'), ['api', 'v1', '', 'persistentvolumes']);
  assert.equal(parseResourcePath('/api/v1/persistentvolumes/pv1/')?.name, 'pv1');
  assert.equal(parseResourcePath('/api/v1/namespaces//persistentvolumeclaims')?.namespace, '');
  assert.equal(parseResourcePath('/api/v1/persistentvolumes//status')?.name, '');
  assert.equal(parseResourcePath('//api/v1/persistentvolumes'), undefined, 'a leading double slash is no API path');
});

const pvInfo = { plural: 'persistentvolumes', namespaced: false };
const pvcInfo = { plural: 'persistentvolumeclaims', namespaced: true };

test('a name or namespace from the path becomes a storage key only when it is a valid segment, with upstream answers', () => {
  const status = (fn: () => void) => {
    try {
      fn();
    } catch (err) {
      return (err as ApiError).toStatus();
    }
    return undefined;
  };
  assert.deepEqual(status(() => requireObjectKey(pvcInfo, 'victim', '..')), {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Name parameter invalid: "..": may not be \'..\'', reason: 'BadRequest', code: 400,
  });
  assert.equal(status(() => requireObjectKey(pvInfo, '', 'a%b'))?.message, 'Name parameter invalid: "a%b": may not contain \'%\'');
  assert.equal(status(() => requireObjectKey(pvcInfo, '', 'c1'))?.message, 'Namespace parameter required.');
  assert.deepEqual(status(() => requireObjectKey(pvcInfo, '..', 'c1')), {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'invalid key: "/persistentvolumeclaims/../c1"', code: 500,
  });
  assert.equal(status(() => requireCollectionKey(pvcInfo, '.'))?.message, 'invalid key: "/persistentvolumeclaims/."');
  assert.equal(status(() => requireCollectionKey(pvcInfo, undefined)), undefined);
  assert.equal(status(() => requireObjectKey(pvcInfo, 'victim', 'c1')), undefined);
});
