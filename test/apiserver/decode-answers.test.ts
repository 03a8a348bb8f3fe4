/**
 * How the embedded server refuses bodies, media types and query values it cannot use: each
 * answer is the one kube-apiserver v1.37.2 gave for the same request.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startEmbeddedTestApiServer, type EmbeddedTestApiServer } from '../helpers/apiserver.js';
import { api } from './http-client.js';

const PVS = '/api/v1/persistentvolumes';
const PVCS = '/api/v1/namespaces/default/persistentvolumeclaims';
const pv = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name },
  spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/tmp/${name}` }, ...extra },
});

describe('decode answers', () => {
  let t: EmbeddedTestApiServer;
  before(async () => {
    t = await startEmbeddedTestApiServer();
    assert.equal((await api(t.server, 'POST', PVS, { body: pv('base') })).status, 201);
  });
  after(async () => t.stop());

  test('a patch of a media type no patch handler takes is "415: Unsupported Media Type" with empty details', async () => {
    for (const type of ['application/json', 'application/vnd.kubernetes.protobuf', 'text/plain']) {
      const r = await api(t.server, 'PATCH', `${PVS}/base`, { rawBody: '{}', headers: { 'Content-Type': type } });
      assert.equal(r.status, 415, type);
      assert.deepEqual(r.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: '415: Unsupported Media Type', reason: 'UnsupportedMediaType', details: {}, code: 415 });
    }
  });

  test("a continue token that is not one is refused in the words of kube-apiserver's continue-key decoder", async () => {
    const answers: Record<string, string> = {
      'bm90LWEtdG9rZW4': "invalid character 'o' in literal null (expecting 'u')",
      abcde: 'illegal base64 data at input byte 4',
      'e30=': 'illegal base64 data at input byte 3',
      MQ: 'json: cannot unmarshal number into Go value of type storage.continueToken',
      e30: 'server does not recognize this encoded version ',
      eyJ2IjoxfQ: 'json: cannot unmarshal number into Go struct field continueToken.v of type string',
    };
    for (const [token, detail] of Object.entries(answers)) {
      const r = await api(t.server, 'GET', `${PVCS}?limit=2&continue=${encodeURIComponent(token)}`);
      assert.equal(r.status, 400, token);
      assert.equal(r.json.message, `invalid continue token: continue key is not valid: ${detail}`, token);
    }
  });

  test('a repeated field is refused under Strict and a warning under Warn, in document order with unknown fields, and decoded as Go decodes it', async () => {
    const body = '{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"dup","annotations":{"x":"1"},"annotations":{"y":"1"}},' +
      '"spec":{"zz":1,"zz":2,"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/tmp/x"},"hostPath":{"type":""},"accessModes":["ReadWriteMany"]}}';
    const send = (mode: string): ReturnType<typeof api> =>
      api(t.server, 'POST', `${PVS}?fieldValidation=${mode}&dryRun=All`, { rawBody: body, headers: { 'Content-Type': 'application/json' } });
    const strict = await send('Strict');
    assert.equal(strict.status, 400);
    assert.equal(strict.json.message, 'PersistentVolume in version "v1" cannot be handled as a PersistentVolume: strict decoding error: ' +
      'duplicate field "metadata.annotations", unknown field "spec.zz", duplicate field "spec.hostPath", duplicate field "spec.accessModes"');
    const warn = await send('Warn');
    assert.equal(warn.status, 201);
    assert.equal(warn.headers.warning, '299 - "duplicate field \\"metadata.annotations\\"", 299 - "unknown field \\"spec.zz\\"", ' +
      '299 - "duplicate field \\"spec.hostPath\\"", 299 - "duplicate field \\"spec.accessModes\\""');
    assert.deepEqual(warn.json.metadata.annotations, { x: '1', y: '1' });
    assert.deepEqual([warn.json.spec.hostPath, warn.json.spec.accessModes], [{ path: '/tmp/x', type: '' }, ['ReadWriteMany']]);
  });

  test("a body that is not JSON is refused with encoding/json's syntax error", async () => {
    const r = await api(t.server, 'POST', PVS, { rawBody: '{"apiVersion":"v1",}', headers: { 'Content-Type': 'application/json' } });
    assert.equal(r.status, 400);
    assert.equal(r.json.message, "the object provided is unrecognized (must be of type PersistentVolume): couldn't get version/kind; json parse error: invalid character '}' looking for beginning of object key string ({\"apiVersion\":\"v1\",})");
  });
});
