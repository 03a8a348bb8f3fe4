import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { parse } from 'yaml';
import { startEmbeddedTestApiServer, type EmbeddedTestApiServer, withEmbeddedTestApiServer } from '../../../test/helpers/apiserver.js';
import { api } from './http-client.js';
import { fakeStrategies } from './fake-strategies.js';

const withServer = (fn: (t: EmbeddedTestApiServer) => Promise<void>): Promise<void> => withEmbeddedTestApiServer(fn, { strategies: fakeStrategies });

test('health and version answer without a token; everything else needs the right bearer token', () =>
  withServer(async ({ server }) => {
    for (const path of ['/healthz', '/readyz', '/livez']) {
      const r = await api(server, 'GET', path, { token: null });
      assert.equal(r.status, 200, path);
      assert.equal(r.text, 'ok');
    }
    const v = await api(server, 'GET', '/version', { token: null });
    assert.equal(v.status, 200);
    assert.equal(v.json.major, '1');
    assert.equal(v.json.minor, '37');
    assert.equal(v.json.gitVersion, 'v1.37.2-pvcontroller');
    for (const token of [null, 'wrong']) {
      const r = await api(server, 'GET', '/api/v1/namespaces', { token });
      assert.equal(r.status, 401);
      assert.equal(r.json.kind, 'Status');
      assert.equal(r.json.reason, 'Unauthorized');
    }
    assert.equal((await api(server, 'GET', '/api/v1/namespaces')).status, 200);
  }));

test('discovery lists groups, resources with shortNames and status subresources; /api/v1 has no apiVersion, as on kube-apiserver', () =>
  withServer(async ({ server }) => {
    const apis = await api(server, 'GET', '/api');
    assert.deepEqual(apis.json.versions, ['v1']);
    const groups = await api(server, 'GET', '/apis');
    assert.equal(groups.json.kind, 'APIGroupList');
    const review = (g: string) => ({ name: g, versions: [{ groupVersion: `${g}/v1`, version: 'v1' }], preferredVersion: { groupVersion: `${g}/v1`, version: 'v1' } });
    assert.deepEqual(groups.json.groups, [
      { name: 'example.com', versions: [{ groupVersion: 'example.com/v1', version: 'v1' }], preferredVersion: { groupVersion: 'example.com/v1', version: 'v1' } },
      review('authorization.k8s.io'),
      review('authentication.k8s.io'),
    ]);
    const group = await api(server, 'GET', '/apis/example.com');
    assert.equal(group.json.kind, 'APIGroup');
    const gv = await api(server, 'GET', '/apis/example.com/v1');
    assert.equal(gv.json.groupVersion, 'example.com/v1');
    assert.equal(gv.json.apiVersion, 'v1');
    const names = gv.json.resources.map((r: { name: string }) => r.name);
    assert.deepEqual(names, ['widgets', 'widgets/status']);
    assert.deepEqual(gv.json.resources[0].shortNames, ['wd']);
    const core = await api(server, 'GET', '/api/v1');
    assert.equal(core.json.apiVersion, undefined, "kube-apiserver's /api/v1 carries no apiVersion");
    const gadget = core.json.resources.find((r: { name: string }) => r.name === 'gadgets');
    assert.equal(gadget.namespaced, true);
    assert.equal(gadget.kind, 'Gadget');
    assert.equal((await api(server, 'GET', '/apis/nope.io/v1')).status, 404);
  }));

test('OpenAPI documents leave out kinds without a published schema (the fake kinds here)', () =>
  withServer(async ({ server }) => {
    const index = await api(server, 'GET', '/openapi/v3');
    assert.equal(index.json.paths['apis/example.com/v1'].serverRelativeURL.startsWith('/openapi/v3/apis/example.com/v1?hash='), true);
    const doc = await api(server, 'GET', index.json.paths['apis/example.com/v1'].serverRelativeURL);
    assert.deepEqual(Object.keys(doc.json.paths), ['/apis/example.com/v1/']);
    const v2 = await api(server, 'GET', '/openapi/v2');
    assert.equal(v2.json.swagger, '2.0');
    assert.equal(v2.json.paths['/apis/example.com/v1/widgets/{name}'], undefined);
  }));

test('bootstrap namespaces exist, and the four path shapes route to their resources', () =>
  withServer(async ({ server }) => {
    const nss = await api(server, 'GET', '/api/v1/namespaces');
    assert.deepEqual(
      nss.json.items.map((n: { metadata: { name: string } }) => n.metadata.name),
      ['default', 'kube-node-lease', 'kube-public', 'kube-system'],
    );
    const created = await api(server, 'POST', '/api/v1/namespaces/default/gadgets', { body: { metadata: { name: 'g1' }, spec: { size: 1 } } });
    assert.equal(created.status, 201);
    assert.equal(created.json.metadata.namespace, 'default');
    assert.equal((await api(server, 'GET', '/api/v1/namespaces/default/gadgets/g1')).status, 200);
    const all = await api(server, 'GET', '/api/v1/gadgets');
    assert.equal(all.json.kind, 'GadgetList');
    assert.equal(all.json.items.length, 1);
    const w = await api(server, 'POST', '/apis/example.com/v1/widgets', { body: { metadata: { name: 'w1' }, spec: { size: 1 } } });
    assert.equal(w.status, 201);
    const st = await api(server, 'PUT', '/apis/example.com/v1/widgets/w1/status', { body: { ...w.json, status: { phase: 'Ready' } } });
    assert.equal(st.status, 200);
    assert.equal(st.json.status.phase, 'Ready');
  }));

test('unknown paths are 404, wrong verbs 405, and scope mistakes 404', () =>
  withServer(async ({ server }) => {
    const cases: Array<[string, string, number]> = [
      ['GET', '/api/v1/things', 404],
      ['GET', '/apis/example.com/v1/namespaces/default/widgets', 404],
      ['GET', '/api/v1/gadgets/g1', 404],
      ['GET', '/api/v1/namespaces/default/gadgets/g1/status', 404],
      ['POST', '/apis/example.com/v1/widgets/w1', 405],
      ['PUT', '/apis/example.com/v1/widgets', 405],
      ['DELETE', '/apis/example.com/v1/widgets/w1/status', 405],
    ];
    for (const [method, path, code] of cases) {
      const r = await api(server, method, path, { body: method === 'GET' ? undefined : {} });
      assert.equal(r.status, code, `${method} ${path}: ${r.text}`);
      assert.equal(r.json.kind, 'Status');
      assert.equal(r.json.code, code);
    }
    // Outside the API groups, Go's plain-text 404, as kube-apiserver answers.
    const nope = await api(server, 'GET', '/nope');
    assert.equal(nope.status, 404);
    assert.equal(nope.text, '404 page not found\n');
  }));

test('malformed JSON is 400, an oversized body 413, a stale update 409 with a Status body', () =>
  withServer(async ({ server }) => {
    const bad = await api(server, 'POST', '/apis/example.com/v1/widgets', { rawBody: '{"metadata":', headers: { 'Content-Type': 'application/json' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.reason, 'BadRequest');
    const big = Buffer.alloc(3 * 1024 * 1024 + 10, 0x20);
    const huge = await api(server, 'POST', '/apis/example.com/v1/widgets', { rawBody: big, headers: { 'Content-Type': 'application/json' } });
    assert.equal(huge.status, 413);
    assert.equal(huge.json.reason, 'RequestEntityTooLarge');
    const w = await api(server, 'POST', '/apis/example.com/v1/widgets', { body: { metadata: { name: 'w1' }, spec: { size: 1 } } });
    await api(server, 'PUT', '/apis/example.com/v1/widgets/w1', { body: { ...w.json, spec: { size: 2 } } });
    const stale = await api(server, 'PUT', '/apis/example.com/v1/widgets/w1', { body: { ...w.json, spec: { size: 3 } } });
    assert.equal(stale.status, 409);
    assert.deepEqual(
      { reason: stale.json.reason, code: stale.json.code, details: stale.json.details },
      { reason: 'Conflict', code: 409, details: { name: 'w1', group: 'example.com', kind: 'widgets' } },
    );
    assert.equal(server.stats().conflicts, 1);
    assert.equal(server.stats().byVerbResource['update widgets.example.com'], 2);
  }));

test('Strict field validation rejects unknown fields; Warn answers with a Warning header', () =>
  withServer(async ({ server }) => {
    const body = { metadata: { name: 'g1', colour: 'x' }, spec: { size: 1 } };
    const strict = await api(server, 'POST', '/api/v1/namespaces/default/gadgets?fieldValidation=Strict', { body });
    assert.equal(strict.status, 400);
    assert.equal(strict.json.message, 'Gadget in version "v1" cannot be handled as a Gadget: strict decoding error: unknown field "metadata.colour"');
    const warn = await api(server, 'POST', '/api/v1/namespaces/default/gadgets?fieldValidation=Warn', { body });
    assert.equal(warn.status, 201);
    assert.equal(warn.headers.warning, '299 - "unknown field \\"metadata.colour\\""');
  }));

test('as=Table answers lists and single objects with the strategy columns', () =>
  withServer(async ({ server }) => {
    await api(server, 'POST', '/apis/example.com/v1/widgets', { body: { metadata: { name: 'w1' }, spec: { size: 4 } } });
    const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
    const list = await api(server, 'GET', '/apis/example.com/v1/widgets', { headers: { Accept: accept } });
    assert.equal(list.json.kind, 'Table');
    assert.equal(list.json.apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(list.json.columnDefinitions.map((c: { name: string }) => c.name), ['Name', 'Size', 'Phase']);
    assert.deepEqual(list.json.rows[0].cells, ['w1', 4, 'Pending']);
    assert.equal(list.json.rows[0].object.kind, 'PartialObjectMetadata');
    const one = await api(server, 'GET', '/apis/example.com/v1/widgets/w1?includeObject=Object', { headers: { Accept: accept } });
    assert.equal(one.json.rows.length, 1);
    assert.equal(one.json.rows[0].object.kind, 'Widget');
  }));

test('the kubeconfig, CA and token are written once and reused by a restart on the same dir', async () => {
  const first = await startEmbeddedTestApiServer({ strategies: fakeStrategies });
  const dataDir = first.dataDir;
  const { caPem, token, kubeconfigPath } = first.server;
  try {
    const kc = parse(await readFile(kubeconfigPath, 'utf8'));
    assert.equal(kc['current-context'], 'pv-controller');
    assert.equal(kc.clusters[0].cluster.server, first.server.url);
    assert.equal(Buffer.from(kc.clusters[0].cluster['certificate-authority-data'], 'base64').toString(), caPem);
    assert.equal(kc.users[0].user.token, token);
    assert.equal((await stat(kubeconfigPath)).mode & 0o077, 0, 'kubeconfig is private');
    await first.server.stop();
    const second = await startEmbeddedTestApiServer({ strategies: fakeStrategies, dataDir });
    try {
      assert.equal(second.server.caPem, caPem);
      assert.equal(second.server.token, token);
    } finally {
      await second.stop();
    }
  } finally {
    await first.stop();
  }
});

test('request counters are readable and resettable over HTTP for a server in another process', () =>
  withServer(async ({ server }) => {
    await api(server, 'GET', '/api/v1/namespaces');
    await api(server, 'GET', '/api/v1/namespaces/default');
    const stats = await api(server, 'GET', '/debug/api-stats');
    assert.equal(stats.json.byVerb.list, 1);
    assert.equal(stats.json.byVerbResource['get namespaces'], 1);
    assert.equal((await api(server, 'GET', '/debug/api-stats', { token: null })).status, 401);
    await api(server, 'DELETE', '/debug/api-stats');
    assert.deepEqual(server.stats().byVerb, {});
  }));

test('DELETE on a collection removes the selected objects and answers with them', () =>
  withServer(async ({ server }) => {
    for (const [name, tier] of [['a', 'gold'], ['b', 'gold'], ['c', 'bronze']]) {
      await api(server, 'POST', '/apis/example.com/v1/widgets', { body: { metadata: { name, labels: { tier } }, spec: { size: 1 } } });
    }
    const r = await api(server, 'DELETE', '/apis/example.com/v1/widgets?labelSelector=tier%3Dgold');
    assert.equal(r.status, 200);
    assert.equal(r.json.kind, 'WidgetList');
    assert.deepEqual(r.json.items.map((o: { metadata: { name: string } }) => o.metadata.name), ['a', 'b']);
    const left = await api(server, 'GET', '/apis/example.com/v1/widgets');
    assert.deepEqual(left.json.items.map((o: { metadata: { name: string } }) => o.metadata.name), ['c']);
  }));
