import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startEmbeddedTestApiServer, type EmbeddedTestApiServer } from '../../../../test/helpers/apiserver.js';
import { api } from '../http-client.js';

let t: EmbeddedTestApiServer;
before(async () => {
  t = await startEmbeddedTestApiServer();
});
after(async () => {
  await t.stop();
});

test('the /openapi/v3 index is text/plain and names each document with its hash', async () => {
  const index = await api(t.server, 'GET', '/openapi/v3');
  assert.equal(index.status, 200);
  assert.equal(index.headers['content-type'], 'text/plain; charset=utf-8');
  assert.equal(index.headers['cache-control'], 'no-cache, private');
  const paths = JSON.parse(index.text).paths;
  assert.deepEqual(Object.keys(paths).filter((k) => k.startsWith('api')).slice(0, 3), ['api', 'api/v1', 'apis']);
  assert.match(paths['apis/storage.k8s.io/v1'].serverRelativeURL, /^\/openapi\/v3\/apis\/storage\.k8s\.io\/v1\?hash=[0-9A-F]{128}$/);
});

test('a v3 document asked for with its hash is immutable; with another hash it redirects to the current one', async () => {
  const url: string = JSON.parse((await api(t.server, 'GET', '/openapi/v3')).text).paths['api/v1'].serverRelativeURL;
  const hash = url.slice(url.indexOf('hash=') + 5);
  const doc = await api(t.server, 'GET', url);
  assert.equal(doc.status, 200);
  assert.equal(doc.headers['cache-control'], 'public, immutable');
  assert.match(String(doc.headers.expires), / UTC$/);
  assert.equal(doc.headers.etag, `"${hash}"`);
  assert.equal(doc.json.paths['/api/v1/persistentvolumes/{name}'].get.operationId, 'readCoreV1PersistentVolume');
  const moved = await api(t.server, 'GET', '/openapi/v3/api/v1?hash=abc');
  assert.equal(moved.status, 301);
  assert.equal(moved.headers.location, url);
  const plain = await api(t.server, 'GET', '/openapi/v3/api/v1');
  assert.equal(plain.headers['cache-control'], 'no-cache, private');
  assert.equal(plain.headers.etag, `"${hash}"`);
});

test('If-None-Match with the current ETag is answered 304 without a body, for v2 and v3', async () => {
  for (const path of ['/openapi/v2', '/openapi/v3/apis/storage.k8s.io/v1']) {
    const first = await api(t.server, 'GET', path);
    assert.equal(first.status, 200);
    const again = await api(t.server, 'GET', path, { headers: { 'If-None-Match': String(first.headers.etag) } });
    assert.equal(again.status, 304, path);
    assert.equal(again.text, '');
  }
});

test('/openapi/v2 is the Swagger 2.0 JSON with the served kinds; an unknown v3 document is an empty 404', async () => {
  const v2 = await api(t.server, 'GET', '/openapi/v2');
  assert.equal(v2.headers['content-type'], 'application/json');
  assert.deepEqual(v2.headers.vary, 'Accept-Encoding, Accept');
  assert.equal(v2.json.swagger, '2.0');
  assert.deepEqual(v2.json.definitions['io.k8s.api.core.v1.PersistentVolume']['x-kubernetes-group-version-kind'], [{ group: '', kind: 'PersistentVolume', version: 'v1' }]);
  const missing = await api(t.server, 'GET', '/openapi/v3/apis/example.com/v1');
  assert.equal(missing.status, 404);
  assert.equal(missing.text, '');
});
