/**
 * Hostile request lines (paths, query parameters) and a JSON-patch amplification against the
 * embedded server with a controller running: each gets kube-apiserver v1.37's answer (read off the
 * real server), nothing stored changes, and a claim created afterwards still binds.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { TestServerAddress } from '../../../../test/helpers/apiserver.js';
import { startTestApiServer } from '../../../../test/helpers/apiserver.js';
import { startTestCluster, type TestCluster } from '../../../../test/helpers/cluster.js';
import { waitFor } from '../../../../test/helpers/wait.js';
import { api, type ApiResponse } from '../http-client.js';

const MERGE = { 'Content-Type': 'application/merge-patch+json' };

function volume(name: string, cls: string) {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: cls, persistentVolumeReclaimPolicy: 'Retain', hostPath: { path: `/tmp/${name}` } },
  };
}

function claim(name: string, namespace: string, cls: string) {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace },
    spec: { accessModes: ['ReadWriteOnce'], storageClassName: cls, resources: { requests: { storage: '1Gi' } } },
  };
}

interface Expected {
  code: number;
  message: string;
  reason?: string;
  details?: Record<string, unknown>;
}

/** The exact Status body: reason and details only where kube-apiserver sends them. */
function assertStatus(r: ApiResponse, want: Expected, what: string): void {
  const body: Record<string, unknown> = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: want.message };
  if (want.reason !== undefined) body.reason = want.reason;
  if (want.details !== undefined) body.details = want.details;
  body.code = want.code;
  assert.equal(r.status, want.code, `${what}: ${r.text}`);
  assert.deepEqual(r.json, body, what);
}

const notFound: Expected = { code: 404, reason: 'NotFound', message: 'the server could not find the requested resource', details: {} };
const nameInvalid = (name: string, why: string): Expected => ({ code: 400, reason: 'BadRequest', message: `Name parameter invalid: "${name}": ${why}` });
const invalidKey = (key: string): Expected => ({ code: 500, message: `invalid key: "${key}"` });

function unsupportedDryRun(kind: string): Expected {
  const message = 'Unsupported value: ["all"]: supported values: "All"';
  return {
    code: 422,
    reason: 'Invalid',
    message: `${kind}.meta.k8s.io "" is invalid: dryRun: ${message}`,
    details: { group: 'meta.k8s.io', kind, causes: [{ reason: 'FieldValueNotSupported', message, field: 'dryRun' }] },
  };
}

describe('hostile request lines against the embedded server, with the controller running', () => {
  let cluster: TestCluster;
  let server: TestServerAddress;
  let bound = 0;

  before(async () => {
    cluster = await startTestCluster();
    server = cluster.api.server;
    for (const [path, body] of [
      ['/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'victim' } }],
      ['/api/v1/namespaces/victim/persistentvolumeclaims', claim('c1', 'victim', 'nothing-serves-this')],
      ['/api/v1/persistentvolumes', volume('pv-keep', 'kept')],
    ] as const) {
      assert.equal((await api(server, 'POST', path, { body })).status, 201, path);
    }
  });
  after(async () => cluster.stop());

  /** The namespace, its claim and the volume are all still there and not being deleted. */
  async function assertNothingChanged(): Promise<void> {
    for (const path of ['/api/v1/namespaces/victim', '/api/v1/namespaces/victim/persistentvolumeclaims/c1', '/api/v1/persistentvolumes/pv-keep']) {
      const r = await api(server, 'GET', path);
      assert.equal(r.status, 200, `${path} is still there`);
      assert.equal(r.json.metadata.deletionTimestamp, undefined, `${path} is not being deleted`);
    }
    const pv = await api(server, 'GET', '/api/v1/persistentvolumes/pv-keep');
    assert.deepEqual(pv.json.spec.mountOptions, undefined, 'no patch reached the volume');
  }

  /** The server keeps serving and the controller keeps binding: a new claim binds a new volume. */
  async function assertStillBinding(): Promise<void> {
    bound += 1;
    const cls = `after-${bound}`;
    assert.equal((await api(server, 'POST', '/api/v1/persistentvolumes', { body: volume(`pv-${cls}`, cls) })).status, 201);
    assert.equal((await api(server, 'POST', '/api/v1/namespaces/default/persistentvolumeclaims', { body: claim(cls, 'default', cls) })).status, 201);
    const c = await waitFor(async () => {
      const r = await api(server, 'GET', `/api/v1/namespaces/default/persistentvolumeclaims/${cls}`);
      return r.json.status?.phase === 'Bound' ? r.json : undefined;
    }, `claim ${cls} Bound`);
    assert.equal(c.spec.volumeName, `pv-${cls}`);
  }

  test('a claim named "..", encoded or not, cannot delete its namespace: 400 and nothing deleted', async () => {
    for (const [segment, name] of [['%2e%2e', '..'], ['..', '..'], ['%2E%2e', '..'], ['.', '.'], ['%2e', '.']]) {
      const r = await api(server, 'DELETE', `/api/v1/namespaces/victim/persistentvolumeclaims/${segment}`);
      assertStatus(r, nameInvalid(name, `may not be '${name}'`), segment);
    }
    await assertNothingChanged();
    await assertStillBinding();
  });

  test('dot-segments reach no other object: every position answers as kube-apiserver does', async () => {
    const claimBody = { body: claim('x', '..', 'kept') };
    const cases: Array<[string, string, Expected, object?]> = [
      ['GET', '/api/v1/namespaces/victim/persistentvolumeclaims/%2e%2e/%2e%2e/%2e%2e/persistentvolumes/pv-keep', notFound],
      ['GET', '/api/v1/namespaces/victim/persistentvolumeclaims/../../../persistentvolumes/pv-keep', notFound],
      ['GET', '/api/v1/persistentvolumes/pv-keep/%2e%2e', notFound],
      ['GET', '/api/v1/persistentvolumes/pv-keep%2F%2e%2e', notFound],
      ['GET', '/api/v1/%2e%2e/persistentvolumes', notFound],
      ['GET', '/api/v1/persistentvolumes//pv-keep', notFound],
      ['DELETE', '/api/v1/namespaces/%2e%2e', nameInvalid('..', "may not be '..'")],
      ['PATCH', '/api/v1/persistentvolumes/%2e%2e', nameInvalid('..', "may not be '..'"), { body: {}, headers: MERGE }],
      ['GET', '/api/v1/persistentvolumes/a%25b', nameInvalid('a%b', "may not contain '%'")],
      ['GET', '/api/v1/namespaces/%2e%2e/persistentvolumeclaims', invalidKey('/persistentvolumeclaims/..')],
      ['DELETE', '/api/v1/namespaces/%2e%2e/persistentvolumeclaims/c1', invalidKey('/persistentvolumeclaims/../c1')],
      ['DELETE', '/api/v1/namespaces/./persistentvolumeclaims', invalidKey('/persistentvolumeclaims/.')],
      ['GET', '/api/v1/watch/namespaces/%2e%2e/persistentvolumeclaims', invalidKey('/persistentvolumeclaims/..')],
      ['DELETE', '/api/v1/namespaces//persistentvolumeclaims', { code: 400, reason: 'BadRequest', message: 'Namespace parameter required.' }],
      ['GET', '/api/v1/persistentvolumes//status', { code: 400, reason: 'BadRequest', message: 'name must be provided' }],
      ['POST', '/api/v1/namespaces/%2e%2e/persistentvolumeclaims', {
        code: 500, reason: 'InternalError', message: 'Internal error occurred: invalid resource name "..": [may not be \'..\']',
        details: { causes: [{ message: 'invalid resource name "..": [may not be \'..\']' }] },
      }, claimBody],
    ];
    for (const [method, path, want, opts] of cases) assertStatus(await api(server, method, path, opts), want, `${method} ${path}`);
    for (const path of ['/healthz/%2e%2e', '/healthz/..', '//api/v1/persistentvolumes', '/apis/%2e%2e/v1/storageclasses']) {
      const r = await api(server, 'GET', path);
      assert.deepEqual([r.status, r.text], [404, '404 page not found\n'], path);
    }
    const slash = await api(server, 'GET', '/api/v1/persistentvolumes/pv-keep/');
    assert.deepEqual([slash.status, slash.json.metadata.name], [200, 'pv-keep'], 'a trailing slash is the same path');
    await assertNothingChanged();
    await assertStillBinding();
  });

  test('dryRun=all and every other value but All is 422 on each verb, and nothing is deleted or written', async () => {
    const pv = '/api/v1/persistentvolumes/pv-keep';
    assertStatus(await api(server, 'DELETE', `${pv}?dryRun=all`), unsupportedDryRun('DeleteOptions'), 'DELETE ?dryRun=all');
    assertStatus(await api(server, 'DELETE', pv, { body: { dryRun: ['all'] } }), unsupportedDryRun('DeleteOptions'), 'DeleteOptions body');
    assertStatus(await api(server, 'DELETE', '/api/v1/persistentvolumes?dryRun=all'), unsupportedDryRun('DeleteOptions'), 'deletecollection');
    assertStatus(await api(server, 'POST', '/api/v1/persistentvolumes?dryRun=all', { body: volume('pv-dry', 'kept') }), unsupportedDryRun('CreateOptions'), 'POST');
    const current = (await api(server, 'GET', pv)).json;
    assertStatus(await api(server, 'PUT', `${pv}?dryRun=all`, { body: { ...current, metadata: { ...current.metadata, labels: { a: 'b' } } } }), unsupportedDryRun('UpdateOptions'), 'PUT');
    assertStatus(await api(server, 'PATCH', `${pv}?dryRun=all`, { body: { metadata: { labels: { a: 'b' } } }, headers: MERGE }), unsupportedDryRun('PatchOptions'), 'PATCH');
    const dry = await api(server, 'DELETE', `${pv}?dryRun=All`);
    assert.equal(dry.status, 200, dry.text);
    assert.equal((await api(server, 'GET', '/api/v1/persistentvolumes/pv-dry')).status, 404, 'the refused create wrote nothing');
    assert.equal((await api(server, 'GET', pv)).json.metadata.labels, undefined, 'the refused update and patch wrote nothing');
    await assertNothingChanged();
    await assertStillBinding();
  });

  test('a watch with timeoutSeconds=abc is refused at once; a negative limit lists everything', { timeout: 20_000 }, async () => {
    assertStatus(await api(server, 'GET', '/api/v1/persistentvolumes?watch=1&timeoutSeconds=abc'),
      { code: 400, reason: 'BadRequest', message: 'strconv.ParseInt: parsing "abc": invalid syntax' }, 'timeoutSeconds=abc');
    assertStatus(await api(server, 'GET', '/api/v1/persistentvolumes?watch=1&resourceVersion=abc'),
      { code: 500, message: 'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax' }, 'resourceVersion=abc');
    const all = await api(server, 'GET', '/api/v1/persistentvolumes');
    const negative = await api(server, 'GET', '/api/v1/persistentvolumes?limit=-1');
    assert.equal(negative.status, 200, negative.text);
    assert.equal(negative.json.items.length, all.json.items.length);
    assert.equal(negative.json.metadata.continue, undefined);
    await assertNothingChanged();
    await assertStillBinding();
  });

  test('a 2.5 KB JSON patch that doubles a list 19 times is 422 before it grows the process', async () => {
    const ops: unknown[] = [{ op: 'add', path: '/spec/mountOptions', value: ['x'.repeat(1024)] }];
    for (let i = 0; i < 19; i++) ops.push({ op: 'copy', from: '/spec/mountOptions', path: '/spec/mountOptions/-' });
    const rssBefore = process.memoryUsage().rss;
    const r = await api(server, 'PATCH', '/api/v1/persistentvolumes/pv-keep', { body: ops, headers: { 'Content-Type': 'application/json-patch+json' } });
    // A safety bound, not a measurement: the unbounded patch took the process to over 2 GB.
    assert.ok(process.memoryUsage().rss - rssBefore < 200 * 1024 * 1024, 'the patch result was never built');
    assertStatus(r, { code: 422, reason: 'Invalid', message: 'the server rejected our request due to an error in our request', details: {} }, 'amplifying patch');
    await assertNothingChanged();
    await assertStillBinding();
  });
});

test('a URL with a bad percent escape gets a bare 400, the connection closed, and one log line without a stack', async () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter((l) => l !== ''));
      done();
    },
  });
  const t = await startTestApiServer({ logger: pino({ level: 'debug' }, sink) });
  try {
    const r = await api(t.server, 'GET', '/api/v1/persistentvolumes/%zz');
    assert.deepEqual([r.status, r.text, r.headers.connection, r.headers['content-type']], [400, '400 Bad Request', 'close', 'text/plain; charset=utf-8']);
    const about = lines.filter((l) => l.includes('%zz'));
    assert.equal(about.length, 1, about.join('\n'));
    assert.deepEqual(lines.filter((l) => /stack|"level":50/.test(l)), [], 'no error and no stack is logged');
    const list = await api(t.server, 'GET', '/api/v1/persistentvolumes?limit=%zz');
    assert.equal(list.status, 200, 'a query pair that does not decode is dropped, as url.ParseQuery drops it');
  } finally {
    await t.stop();
  }
});
