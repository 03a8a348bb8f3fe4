/**
 * Secrets and CSINodes over HTTP: stringData never stored, size checked before storing, field
 * selectors, protobuf, a CSINode collected with the Node that owns it, and no Secret content in
 * any line the server logs. Runs against the embedded server (its log is captured here).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { decodeObject, encodeObject } from '@pv-controller/apiserver/protobuf/envelope.js';
import { startEmbeddedTestApiServer, type EmbeddedTestApiServer } from '../../../../test/helpers/apiserver.js';
import { waitFor } from '../../../../test/helpers/wait.js';
import { api } from '../http-client.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const SECRETS = '/api/v1/namespaces/default/secrets';
const CSINODES = '/apis/storage.k8s.io/v1/csinodes';
/** A value that must never reach the log, plain or in base64. */
const PLAIN = 'hunter2-never-logged';
const ENCODED = Buffer.from(PLAIN).toString('base64');

const logLines: string[] = [];
let t: EmbeddedTestApiServer;

before(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  t = await startEmbeddedTestApiServer({ logger: pino({ level: 'trace' }, sink) });
});

after(async () => {
  await t.stop();
});

const secret = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'v1', kind: 'Secret', metadata: { name }, ...extra,
});

test('stringData is stored as data and never returned, on create, get, list and patch', async () => {
  const created = await api(t.server, 'POST', SECRETS, { body: secret('merged', { stringData: { password: PLAIN } }) });
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(created.json.data, { password: ENCODED });
  assert.equal(created.json.stringData, undefined);
  assert.equal(created.json.type, 'Opaque');
  const got = await api(t.server, 'GET', `${SECRETS}/merged`);
  assert.deepEqual(got.json.data, { password: ENCODED });
  assert.equal(got.json.stringData, undefined);
  const patched = await api(t.server, 'PATCH', `${SECRETS}/merged`, {
    rawBody: JSON.stringify({ stringData: { user: 'u' } }), headers: { 'Content-Type': 'application/merge-patch+json' },
  });
  assert.equal(patched.status, 200, patched.text);
  assert.deepEqual(patched.json.data, { password: ENCODED, user: 'dQ==' });
  const list = await api(t.server, 'GET', SECRETS);
  assert.equal(list.json.items.some((s: { stringData?: unknown }) => s.stringData !== undefined), false);
});

test('a Secret over 1 MiB is refused with 422 and nothing is stored', async () => {
  const big = Buffer.alloc(1024 * 1024 + 1, 7).toString('base64');
  const res = await api(t.server, 'POST', SECRETS, { body: secret('too-big', { data: { blob: big } }) });
  assert.equal(res.status, 422, res.text.slice(0, 300));
  assert.equal(res.json.details.causes[0].message, 'Too long: may not be more than 1048576 bytes');
  assert.equal((await api(t.server, 'GET', `${SECRETS}/too-big`)).status, 404);
});

test('Secrets are selected by type with a field selector; other fields are refused', async () => {
  const tls = await api(t.server, 'POST', SECRETS, { body: secret('cert', { type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } }) });
  assert.equal(tls.status, 201, tls.text);
  const selected = await api(t.server, 'GET', `${SECRETS}?fieldSelector=type%3Dkubernetes.io%2Ftls`);
  assert.deepEqual(selected.json.items.map((s: { metadata: { name: string } }) => s.metadata.name), ['cert']);
  const refused = await api(t.server, 'GET', `${SECRETS}?fieldSelector=immutable%3Dtrue`);
  assert.equal(refused.status, 400);
  assert.equal(refused.json.message, 'field label not supported: immutable');
});

test('a Secret goes through protobuf with its data as bytes', async () => {
  const body = encodeObject(secret('pb', { data: { key: ENCODED } }));
  const created = await api(t.server, 'POST', SECRETS, { rawBody: body, headers: { 'Content-Type': PROTOBUF, Accept: PROTOBUF } });
  assert.equal(created.status, 201, created.text);
  const decoded = decodeObject(created.bytes, { apiVersion: 'v1', kind: 'Secret' }).value;
  assert.deepEqual(decoded.data, { key: ENCODED });
});

// The embedded garbage collector acts on the Foreground and Orphan finalizers only: a Background
// delete of the Node leaves its CSINode (kube-controller-manager would collect it).
test('a CSINode owned by its Node is deleted with the Node in the foreground', async () => {
  const node = await api(t.server, 'POST', '/api/v1/nodes', { body: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-gc' } } });
  assert.equal(node.status, 201, node.text);
  const owner = { apiVersion: 'v1', kind: 'Node', name: 'node-gc', uid: node.json.metadata.uid };
  const csiNode = await api(t.server, 'POST', CSINODES, {
    body: { apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: { name: 'node-gc', ownerReferences: [owner] },
      spec: { drivers: [{ name: 'hostpath.csi.k8s.io', nodeID: 'node-gc', topologyKeys: ['topology.hostpath.csi/node'] }] } },
  });
  assert.equal(csiNode.status, 201, csiNode.text);
  assert.deepEqual(csiNode.json.status, {});
  const deleted = await api(t.server, 'DELETE', '/api/v1/nodes/node-gc', { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' } });
  assert.equal(deleted.status, 200, deleted.text);
  await waitFor(async () => (await api(t.server, 'GET', `${CSINODES}/node-gc`)).status === 404, 'the CSINode collected with its Node');
});

test('the server logs no Secret content, whatever the request did', async () => {
  const bodies = [
    JSON.stringify(secret('log-ok', { stringData: { p: PLAIN } })),
    JSON.stringify(secret('log-bad-key', { stringData: { 'bad key': PLAIN } })),
    JSON.stringify(secret('log-bad-b64', { data: { p: `${ENCODED}*` } })),
    `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"log-bad-json"},"stringData":{"p":"${PLAIN}"`,
    JSON.stringify(secret('log-docker', { type: 'kubernetes.io/dockerconfigjson', stringData: { '.dockerconfigjson': `{"${PLAIN}` } })),
  ];
  for (const body of bodies) await api(t.server, 'POST', SECRETS, { rawBody: body, headers: { 'Content-Type': 'application/json' } });
  await api(t.server, 'GET', `${SECRETS}/log-ok?pretty=true`);
  await api(t.server, 'PUT', `${SECRETS}/log-ok`, { body: secret('log-ok', { type: 'Other', stringData: { p: PLAIN } }) });
  assert.ok(logLines.some((l) => l.includes('"msg":"request"')), 'requests are logged at trace level, so the log was looked at');
  const leaked = logLines.filter((l) => l.includes(PLAIN) || l.includes(ENCODED));
  assert.deepEqual(leaked, []);
});
