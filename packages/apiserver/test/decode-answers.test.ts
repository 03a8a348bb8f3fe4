/**
 * How the embedded server refuses bodies, media types and query values it cannot use: each
 * answer is the one kube-apiserver v1.37.2 gave for the same request.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startEmbeddedTestApiServer, type EmbeddedTestApiServer } from '../../../test/helpers/apiserver.js';
import { api, watch } from './http-client.js';

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

  test('a body of another kind or apiVersion is decoded as what it names and refused as kube-apiserver refuses it', async () => {
    const answers: Array<[Record<string, unknown>, string]> = [
      [{ ...pv('k1'), kind: 'PersistentVolumeClaim' }, 'PersistentVolumeClaim in version "v1" cannot be handled as a PersistentVolume: converting (v1.PersistentVolumeClaim) to (core.PersistentVolume): unknown conversion'],
      [{ ...pv('k2'), apiVersion: 'storage.k8s.io/v1' }, 'PersistentVolume in version "v1" cannot be handled as a PersistentVolume: no kind "PersistentVolume" is registered for version "storage.k8s.io/v1" in scheme "pkg/runtime/scheme.go:111"'],
      [{ ...pv('k3'), kind: 'Nope' }, 'Nope in version "v1" cannot be handled as a PersistentVolume: no kind "Nope" is registered for version "v1" in scheme "pkg/runtime/scheme.go:111"'],
      [{ apiVersion: 'apps/v1', kind: 'Deployment', spec: { replicas: 'x' } }, 'Deployment in version "v1" cannot be handled as a PersistentVolume: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32'],
      [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'x' } }, 'Role in version "v1" cannot be handled as a PersistentVolume: converting (v1.Role) to (core.PersistentVolume): unknown conversion'],
    ];
    for (const [body, message] of answers) {
      const r = await api(t.server, 'POST', PVS, { body });
      assert.deepEqual([r.status, r.json.reason, r.json.message], [400, 'BadRequest', message]);
    }
  });

  test('an Accept header offering nothing servable is 406 in the router\'s or the handler\'s words; a servable fallback is used', async () => {
    const routerRefusal = (extra: string): string => `406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf${extra}`;
    const handlerRefusal = 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf';
    const cases: Array<[string, string, number, string | undefined]> = [
      [PVS, 'application/xml', 406, routerRefusal(', application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch')],
      [`${PVS}/base`, 'application/xml', 406, routerRefusal('')],
      [PVS, 'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io', 406, handlerRefusal],
      [PVS, 'application/json;as=Table', 406, handlerRefusal],
      [PVS, 'application/xml, application/json', 200, undefined],
      [PVS, 'application/json;as=Table;v=v1;g=meta.k8s.io;q=0.5, application/vnd.kubernetes.protobuf', 200, undefined],
    ];
    for (const [path, accept, status, message] of cases) {
      const r = await api(t.server, 'GET', path, { headers: { Accept: accept } });
      assert.equal(r.status, status, accept);
      if (message !== undefined) assert.deepEqual([r.json.reason, r.json.message, r.json.details], ['NotAcceptable', message, message.startsWith('406') ? {} : undefined], accept);
    }
    const created = await api(t.server, 'POST', PVS, { body: pv('refused'), headers: { Accept: 'text/html' } });
    assert.equal(created.status, 406);
    assert.equal((await api(t.server, 'GET', `${PVS}/refused`)).status, 404, 'a refused Accept header is refused before the write');
  });

  test('PartialObjectMetadata and PartialObjectMetadataList are served for get, list and watch', async () => {
    const asList = 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json';
    const asObject = 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io';
    const list = await api(t.server, 'GET', `${PVS}?fieldSelector=metadata.name%3Dbase`, { headers: { Accept: asList } });
    assert.deepEqual([list.json.kind, list.json.apiVersion, list.json.items.length], ['PartialObjectMetadataList', 'meta.k8s.io/v1', 1]);
    assert.deepEqual(Object.keys(list.json.items[0]), ['kind', 'apiVersion', 'metadata']);
    assert.equal(list.json.items[0].metadata.name, 'base');
    const one = await api(t.server, 'GET', `${PVS}/base`, { headers: { Accept: asObject } });
    assert.deepEqual([one.json.kind, one.json.metadata.name, one.json.spec], ['PartialObjectMetadata', 'base', undefined]);
    const wrongShape = await api(t.server, 'GET', PVS, { headers: { Accept: asObject } });
    assert.deepEqual([wrongShape.status, wrongShape.json.message], [406, 'you requested PartialObjectMetadata, but the requested object is a list (*core.PersistentVolumeList)']);
    const w = await watch(t.server, `${PVS}?watch=1&fieldSelector=metadata.name%3Dbase`, { Accept: asObject });
    try {
      const added = await w.next();
      assert.deepEqual([added.type, added.object.kind, added.object.metadata.name, added.object.spec], ['ADDED', 'PartialObjectMetadata', 'base', undefined]);
    } finally {
      w.close();
    }
  });

  test('a value of the wrong JSON type names the named Go type of an enumerated field', async () => {
    const answers: Array<[Record<string, unknown>, string]> = [
      [{ accessModes: 'ReadWriteOnce' }, 'PersistentVolumeSpec.spec.accessModes of type []v1.PersistentVolumeAccessMode'],
      [{ accessModes: [5] }, 'PersistentVolumeSpec.spec.accessModes of type v1.PersistentVolumeAccessMode'],
      [{ persistentVolumeReclaimPolicy: 5 }, 'PersistentVolumeSpec.spec.persistentVolumeReclaimPolicy of type v1.PersistentVolumeReclaimPolicy'],
      [{ hostPath: { path: '/x', type: 5 } }, 'HostPathVolumeSource.spec.PersistentVolumeSource.hostPath.type of type v1.HostPathType'],
      [{ claimRef: { kind: 5 } }, 'ObjectReference.spec.claimRef.kind of type string'],
    ];
    for (const [spec, where] of answers) {
      const r = await api(t.server, 'POST', PVS, { body: { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'typed' }, spec } });
      assert.deepEqual([r.status, r.json.message], [400, `PersistentVolume in version "v1" cannot be handled as a PersistentVolume: json: cannot unmarshal ${where.includes('[]') ? 'string' : 'number'} into Go struct field ${where}`]);
    }
  });

  test("a body that is not JSON is refused with encoding/json's syntax error", async () => {
    const r = await api(t.server, 'POST', PVS, { rawBody: '{"apiVersion":"v1",}', headers: { 'Content-Type': 'application/json' } });
    assert.equal(r.status, 400);
    assert.equal(r.json.message, "the object provided is unrecognized (must be of type PersistentVolume): couldn't get version/kind; json parse error: invalid character '}' looking for beginning of object key string ({\"apiVersion\":\"v1\",})");
  });
});
