/**
 * application/vnd.kubernetes.protobuf through the server over HTTP: bodies our encoder builds,
 * answers decoded and compared with the JSON answers, errors, DeleteOptions and watch frames.
 * Runs against the embedded server, and against the real kube-apiserver under `npm run
 * test:cluster`, where each expectation is kube-apiserver's own answer.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { decodeObject, encodeObject } from '@pv-controller/apiserver/protobuf/envelope.js';
import { messageNamed } from '@pv-controller/apiserver/protobuf/descriptor.js';
import { startTestApiServer, type TestApiServer } from '../../../../test/helpers/apiserver.js';
import { api } from '../http-client.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const NAME = `pb-${process.pid}`;

let t: TestApiServer;

before(async () => {
  t = await startTestApiServer();
});

after(async () => {
  await api(t.server, 'DELETE', `/api/v1/persistentvolumes/${NAME}`);
  await api(t.server, 'DELETE', `/api/v1/namespaces/${NAME}`);
  await t.stop();
});

function pv(name: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, labels: { app: NAME } },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', hostPath: { path: `/tmp/${name}` } },
  };
}

function decoded(bytes: Buffer, kind: string): Record<string, unknown> {
  return decodeObject(bytes, { apiVersion: 'v1', kind }).value;
}

function sendProtobuf(method: string, path: string, body: Buffer, accept = PROTOBUF): ReturnType<typeof api> {
  return api(t.server, method, path, { rawBody: body, headers: { 'Content-Type': PROTOBUF, Accept: accept } });
}

test('a protobuf create is answered 201 in protobuf, and a GET in protobuf holds the same bytes the JSON object encodes to', async () => {
  const created = await sendProtobuf('POST', '/api/v1/namespaces', encodeObject({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAME } }));
  assert.equal(created.status, 201, created.text);
  assert.equal(created.headers['content-type'], PROTOBUF);
  const ns = decoded(created.bytes, 'Namespace');
  assert.equal((ns.metadata as Record<string, unknown>).name, NAME);
  assert.equal((ns.status as Record<string, unknown>).phase, 'Active');
  const asJson = await api(t.server, 'GET', `/api/v1/namespaces/${NAME}`);
  const asProtobuf = await api(t.server, 'GET', `/api/v1/namespaces/${NAME}`, { headers: { Accept: `${PROTOBUF},application/json` } });
  assert.ok(asProtobuf.bytes.equals(encodeObject(asJson.json)), 'the protobuf answer is the JSON answer encoded');
});

test('a PersistentVolume created from protobuf reads back the same in JSON, and lists in protobuf', async () => {
  const created = await sendProtobuf('POST', '/api/v1/persistentvolumes', encodeObject(pv(NAME)), 'application/json');
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(created.json.spec.capacity, { storage: '1Gi' });
  assert.deepEqual(created.json.spec.hostPath, { path: `/tmp/${NAME}`, type: '' });
  const list = await api(t.server, 'GET', `/api/v1/persistentvolumes?labelSelector=app%3D${NAME}`, { headers: { Accept: PROTOBUF } });
  assert.equal(list.status, 200);
  const items = decoded(list.bytes, 'PersistentVolumeList').items as Array<Record<string, unknown>>;
  assert.deepEqual(items.map((i) => (i.metadata as Record<string, unknown>).name), [NAME]);
});

test('a protobuf body without the k8s\\0 prefix, or cut short, is a 400 with kube-apiserver\'s text', async () => {
  const noMagic = await sendProtobuf('POST', '/api/v1/namespaces', Buffer.from('garbage'), 'application/json');
  assert.equal(noMagic.status, 400);
  assert.equal(noMagic.json.message,
    'the object provided is unrecognized (must be of type Namespace): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] (67617262616765)');
  const cut = await sendProtobuf('POST', '/api/v1/namespaces', Buffer.from([0x6b, 0x38, 0x73, 0x00, 0xff, 0xff]), 'application/json');
  assert.equal(cut.status, 400);
  assert.equal(cut.json.message, 'the object provided is unrecognized (must be of type Namespace): unexpected EOF (6b387300ffff)');
  const cutObject = await sendProtobuf('POST', '/api/v1/namespaces', Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x12, 0x02, 0xff, 0xff]), 'application/json');
  assert.equal(cutObject.status, 400);
  assert.equal(cutObject.json.message, 'Namespace in version "v1" cannot be handled as a Namespace: unexpected EOF');
});

test('a create body of an unknown media type is a 415 that lists protobuf', async () => {
  const r = await api(t.server, 'POST', '/api/v1/namespaces', { rawBody: '{}', headers: { 'Content-Type': 'text/plain' } });
  assert.equal(r.status, 415);
  assert.equal(r.json.message,
    'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf');
});

test('an error for a client that asks for protobuf is a protobuf Status', async () => {
  const json = await api(t.server, 'GET', '/api/v1/persistentvolumes/pb-missing');
  const r = await api(t.server, 'GET', '/api/v1/persistentvolumes/pb-missing', { headers: { Accept: PROTOBUF } });
  assert.equal(r.status, 404);
  assert.equal(r.headers['content-type'], PROTOBUF);
  assert.ok(r.bytes.equals(encodeObject(json.json)));
  assert.equal(decoded(r.bytes, 'Status').reason, 'NotFound');
});

test('protobuf DeleteOptions are read: a UID precondition that does not match is a 409', async () => {
  const options = encodeObject({ apiVersion: 'meta.k8s.io/v1', kind: 'DeleteOptions', preconditions: { uid: 'not-the-uid' } });
  const r = await sendProtobuf('DELETE', `/api/v1/persistentvolumes/${NAME}`, options, 'application/json');
  assert.equal(r.status, 409, r.text);
  assert.equal(r.json.reason, 'Conflict');
  // the precondition was read from the protobuf body: the message names its UID
  assert.match(r.json.message, /not-the-uid/);
});

/** Reads length-prefixed WatchEvent frames until `count` arrived; the response's content type too. */
function readFrames(path: string, count: number): Promise<{ contentType: string; events: Array<{ type: string; object: Buffer }> }> {
  const { hostname, port } = new URL(t.server.url);
  const headers = { Accept: PROTOBUF, Authorization: `Bearer ${t.server.token}` };
  const WatchEvent = messageNamed('k8s.io/apimachinery/pkg/apis/meta/v1.WatchEvent').type;
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ hostname, port, path, headers, ca: t.server.caPem }, (res) => {
      let pending = Buffer.alloc(0);
      const events: Array<{ type: string; object: Buffer }> = [];
      res.on('data', (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        while (pending.length >= 4 && pending.length >= 4 + pending.readUInt32BE(0)) {
          const size = pending.readUInt32BE(0);
          const ev = WatchEvent.decode(pending.subarray(4, 4 + size)) as unknown as { type: string; object: { raw: Uint8Array } };
          events.push({ type: ev.type, object: Buffer.from(ev.object.raw) });
          pending = pending.subarray(4 + size);
        }
        if (events.length >= count) {
          req.destroy();
          resolve({ contentType: String(res.headers['content-type']), events });
        }
      });
      res.on('end', () => resolve({ contentType: String(res.headers['content-type']), events }));
    });
    req.on('error', (err) => (err.message === 'socket hang up' ? undefined : reject(err)));
    req.end();
  });
}

test('a protobuf watch sends length-prefixed WatchEvent frames holding enveloped objects', async () => {
  const { contentType, events } = await readFrames(`/api/v1/persistentvolumes?watch=1&timeoutSeconds=5&fieldSelector=metadata.name%3D${NAME}`, 1);
  assert.equal(contentType, `${PROTOBUF};stream=watch`);
  assert.equal(events[0].type, 'ADDED');
  const object = decoded(events[0].object, 'PersistentVolume');
  assert.equal((object.metadata as Record<string, unknown>).name, NAME);
});
