import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { startEmbeddedTestApiServer, type EmbeddedTestApiServer, withEmbeddedTestApiServer } from '../../../test/helpers/apiserver.js';
import type { ApiServerOptions } from '@pv-controller/apiserver/server.js';
import type { ResourceStrategy } from '@pv-controller/apiserver/resources/strategy.js';
import { api, watch } from './http-client.js';
import { fakeStrategies, gadgets, namespaces, widgets } from './fake-strategies.js';

const W = '/apis/example.com/v1/widgets';

const withServer = (fn: (t: EmbeddedTestApiServer) => Promise<void>, opts: Partial<ApiServerOptions> = {}): Promise<void> =>
  withEmbeddedTestApiServer(fn, { strategies: fakeStrategies, ...opts });

async function until(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('a watch without resourceVersion sends ADDED for current objects, then live events', () =>
  withServer(async ({ server }) => {
    const empty = await watch(server, `${W}?watch=true`);
    assert.equal(empty.status, 200, 'headers arrive before any event');
    assert.equal(empty.headers['content-type'], 'application/json');
    empty.close();
    await api(server, 'POST', W, { body: { metadata: { name: 'a' }, spec: { size: 1 } } });
    const w = await watch(server, `${W}?watch=true`);
    const first = await w.next();
    assert.equal(first.type, 'ADDED');
    assert.equal(first.object.metadata.name, 'a');
    await api(server, 'PATCH', `${W}/a`, { body: { spec: { size: 2 } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
    const second = await w.next();
    assert.equal(second.type, 'MODIFIED');
    assert.equal(second.object.spec.size, 2);
    await api(server, 'DELETE', `${W}/a`);
    assert.equal((await w.next()).type, 'DELETED');
    w.close();
  }));

test('a watch from resourceVersion N replays every later change, DELETED included', () =>
  withServer(async ({ server }) => {
    const a = await api(server, 'POST', W, { body: { metadata: { name: 'a' }, spec: { size: 1 } } });
    await api(server, 'POST', W, { body: { metadata: { name: 'b' }, spec: { size: 1 } } });
    await api(server, 'DELETE', `${W}/a`);
    const w = await watch(server, `${W}?watch=true&resourceVersion=${a.json.metadata.resourceVersion}`);
    const b = await w.next();
    assert.deepEqual([b.type, b.object.metadata.name], ['ADDED', 'b']);
    const gone = await w.next();
    assert.deepEqual([gone.type, gone.object.metadata.name], ['DELETED', 'a']);
    assert.ok(Number(gone.object.metadata.resourceVersion) > Number(b.object.metadata.resourceVersion));
    w.close();
  }));

test('a watch from a compacted resourceVersion gets one ERROR 410 Expired event and the stream ends', () =>
  withServer(
    async ({ server }) => {
      for (let i = 0; i < 8; i++) await api(server, 'POST', W, { body: { metadata: { name: `w${i}` }, spec: { size: 1 } } });
      const w = await watch(server, `${W}?watch=true&resourceVersion=1`);
      const ev = await w.next();
      assert.equal(ev.type, 'ERROR');
      assert.equal(ev.object.kind, 'Status');
      assert.equal(ev.object.code, 410);
      assert.equal(ev.object.reason, 'Expired');
      assert.match(ev.object.message, /^too old resource version: 1 \(\d+\)$/);
      await w.ended;
    },
    { retainChanges: 3 },
  ));

test('a watch from a resourceVersion the server never issued (data lost in a restart) is Expired, so clients re-list', () =>
  withServer(async ({ server }) => {
    const w = await watch(server, `${W}?watch=true&resourceVersion=999999`);
    const ev = await w.next();
    assert.equal(ev.type, 'ERROR');
    assert.equal(ev.object.code, 410);
    await w.ended;
  }));

test('objects entering a label selector arrive as ADDED and leaving it as DELETED with the last state that matched, at the new resourceVersion', () =>
  withServer(async ({ server }) => {
    await api(server, 'POST', W, { body: { metadata: { name: 'a' }, spec: { size: 1 } } });
    const w = await watch(server, `${W}?watch=true&labelSelector=tier%3Dgold`);
    const merge = { 'Content-Type': 'application/merge-patch+json' };
    await api(server, 'PATCH', `${W}/a`, { body: { metadata: { labels: { tier: 'gold' } } }, headers: merge });
    assert.equal((await w.next()).type, 'ADDED');
    await api(server, 'PATCH', `${W}/a`, { body: { spec: { size: 3 } }, headers: merge });
    assert.equal((await w.next()).type, 'MODIFIED');
    const moved = await api(server, 'PATCH', `${W}/a`, { body: { metadata: { labels: { tier: 'bronze' } } }, headers: merge });
    const left = await w.next();
    assert.equal(left.type, 'DELETED');
    assert.equal(left.object.metadata.labels.tier, 'gold', 'the DELETED carries the state the watcher last matched');
    assert.equal(left.object.metadata.resourceVersion, (moved.json as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
    w.close();
  }));

test('bookmarks: sendInitialEvents ends its burst with an initial-events-end bookmark, timeoutSeconds ends with one', () =>
  withServer(async ({ server }) => {
    await api(server, 'POST', W, { body: { metadata: { name: 'a' }, spec: { size: 1 } } });
    const w = await watch(server, `${W}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1`);
    assert.equal((await w.next()).type, 'ADDED');
    const initialEnd = await w.next();
    assert.equal(initialEnd.type, 'BOOKMARK');
    assert.equal(initialEnd.object.metadata.annotations['k8s.io/initial-events-end'], 'true');
    const last = await w.next(5000);
    assert.equal(last.type, 'BOOKMARK');
    assert.ok(Number(last.object.metadata.resourceVersion) >= Number(initialEnd.object.metadata.resourceVersion));
    await w.ended;
  }));

test('a bookmark\'s object is the kind\'s empty object: a claim bookmark carries the empty spec.resources and status the Go type always serialises', async () => {
  const t = await startEmbeddedTestApiServer();
  try {
    const claims = '/api/v1/namespaces/default/persistentvolumeclaims';
    const w = await watch(t.server, `${claims}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
    const bookmark = await w.next();
    assert.equal(bookmark.type, 'BOOKMARK');
    const { metadata, ...rest } = bookmark.object;
    assert.deepEqual(rest, { kind: 'PersistentVolumeClaim', apiVersion: 'v1', spec: { resources: {} }, status: {} });
    assert.deepEqual(Object.keys(metadata), ['resourceVersion', 'annotations']);
    w.close();
  } finally {
    await t.stop();
  }
});

test('periodic bookmarks carry a resourceVersion the watcher has seen everything up to', () =>
  withServer(
    async ({ server }) => {
      const w = await watch(server, `${W}?watch=true&allowWatchBookmarks=true`);
      const created = await api(server, 'POST', W, { body: { metadata: { name: 'a' }, spec: { size: 1 } } });
      const createdRV = Number(created.json.metadata.resourceVersion);
      let ev = await w.next();
      while (ev.type === 'BOOKMARK') {
        assert.ok(Number(ev.object.metadata.resourceVersion) < createdRV, 'no bookmark may pass an event not yet sent');
        ev = await w.next();
      }
      assert.equal(ev.type, 'ADDED');
      ev = await w.next();
      assert.equal(ev.type, 'BOOKMARK');
      assert.equal(ev.object.kind, 'Widget');
      assert.ok(Number(ev.object.metadata.resourceVersion) >= createdRV);
      w.close();
    },
    { bookmarkIntervalMs: 50 },
  ));

test('Table watches get one-row Tables, built once per change however many watch', async () => {
  let rowsBuilt = 0;
  const counted: ResourceStrategy = { ...widgets, tableRow: (o, now) => (rowsBuilt++, widgets.tableRow(o, now)) };
  await withServer(
    async ({ server }) => {
      const accept = { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' };
      const watchers = await Promise.all([1, 2, 3].map(() => watch(server, `${W}?watch=true`, accept)));
      const plain = await watch(server, `${W}?watch=true`);
      await api(server, 'POST', W, { body: { metadata: { name: 'a' }, spec: { size: 7 } } });
      for (const w of watchers) {
        const ev = await w.next();
        assert.equal(ev.type, 'ADDED');
        assert.equal(ev.object.kind, 'Table');
        assert.deepEqual(ev.object.rows[0].cells, ['a', 7, 'Pending']);
        w.close();
      }
      assert.equal((await plain.next()).object.kind, 'Widget');
      plain.close();
      assert.equal(rowsBuilt, 1);
    },
    { strategies: [counted, gadgets, namespaces] },
  );
});

test('the legacy /watch/ path and a single-object watch work', () =>
  withServer(async ({ server }) => {
    await api(server, 'POST', W, { body: { metadata: { name: 'a' }, spec: { size: 1 } } });
    await api(server, 'POST', W, { body: { metadata: { name: 'b' }, spec: { size: 1 } } });
    const w = await watch(server, '/apis/example.com/v1/watch/widgets/b');
    const ev = await w.next();
    assert.deepEqual([ev.type, ev.object.metadata.name], ['ADDED', 'b']);
    assert.deepEqual(w.pending(), []);
    w.close();
  }));

test('stopping the server ends every open watch', async () => {
  const t = await startEmbeddedTestApiServer({ strategies: fakeStrategies });
  const a = await watch(t.server, `${W}?watch=true`);
  const b = await watch(t.server, '/api/v1/gadgets?watch=true');
  await until(() => t.server.stats().activeWatches === 2, 'two watches');
  await t.stop();
  await Promise.all([a.ended, b.ended]);
});

test('a watcher that stops reading is cut off instead of buffering without bound', () =>
  withServer(
    async ({ server }) => {
      const res = await new Promise<IncomingMessage>((resolve, reject) => {
        const url = new URL(`${W}?watch=true`, server.url);
        const req = httpsRequest(url, { headers: { Authorization: `Bearer ${server.token}` }, ca: server.caPem }, resolve);
        req.on('error', reject);
        req.end();
      });
      res.pause();
      await until(() => server.stats().activeWatches === 1, 'the watch to register');
      const filler = 'x'.repeat(200_000);
      for (let i = 0; i < 60 && server.stats().activeWatches > 0; i++) {
        await api(server, 'POST', W, { body: { metadata: { name: `w${i}`, annotations: { filler } }, spec: { size: 1 } } });
      }
      await until(() => server.stats().activeWatches === 0, 'the slow watcher to be dropped');
      res.destroy();
    },
    { watchWindowBytes: 256 * 1024, watchStallMs: 200 },
  ));
