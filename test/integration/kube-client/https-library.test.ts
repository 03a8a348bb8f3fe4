import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { HttpMethod, RequestContext } from '@kubernetes/client-node';
import { nodeHttpLibrary, sendOverNodeHttp } from '../../../src/kube-client/https-library.js';

interface Seen {
  method?: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let server: http.Server;
let base: string;
const seen: Seen[] = [];

before(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (req.url === '/gzip') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(gzipSync(JSON.stringify({ kind: 'PersistentVolumeList', items: [] })));
      } else if (req.url === '/slow') {
        setTimeout(() => res.end('late'), 5_000).unref();
      } else {
        res.setHeader('Set-Cookie', ['a=1', 'b=2']);
        res.writeHead(404, { 'Content-Type': 'application/json', 'X-Thing': 'yes' });
        res.end('{"kind":"Status","reason":"NotFound"}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

test('status, lower-case headers (repeated ones joined) and the whole body come back as a ResponseContext', async () => {
  const res = await sendOverNodeHttp(new RequestContext(`${base}/missing`, HttpMethod.GET));
  assert.equal(res.httpStatusCode, 404);
  assert.equal(res.headers['x-thing'], 'yes');
  assert.equal(res.headers['set-cookie'], 'a=1, b=2');
  assert.equal(await res.body.text(), '{"kind":"Status","reason":"NotFound"}');
});

test('method, headers and a multi-byte body arrive intact, with the right content-length; gzip is asked for', async () => {
  const ctx = new RequestContext(`${base}/put`, HttpMethod.PUT);
  ctx.setHeaderParam('Content-Type', 'application/json');
  const body = JSON.stringify({ metadata: { name: 'pv-ü', annotations: { note: 'ünïcode ✓' } } });
  ctx.setBody(body);
  await sendOverNodeHttp(ctx);
  const got = seen[seen.length - 1];
  assert.equal(got.method, 'PUT');
  assert.equal(got.body, body);
  assert.equal(got.headers['content-type'], 'application/json');
  assert.equal(Number(got.headers['content-length']), Buffer.byteLength(body));
  assert.match(String(got.headers['accept-encoding']), /gzip/);
});

test('a gzip-encoded response is decoded', async () => {
  const res = await sendOverNodeHttp(new RequestContext(`${base}/gzip`, HttpMethod.GET));
  assert.deepEqual(JSON.parse(await res.body.text()), { kind: 'PersistentVolumeList', items: [] });
});

test('an aborted signal rejects the request with an AbortError', async () => {
  const ctx = new RequestContext(`${base}/slow`, HttpMethod.GET);
  const abort = new AbortController();
  ctx.setSignal(abort.signal);
  const pending = sendOverNodeHttp(ctx);
  setTimeout(() => abort.abort(), 20);
  await assert.rejects(pending, { name: 'AbortError' });
});

test('a refused connection rejects (no answer, no status)', async () => {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  await assert.rejects(sendOverNodeHttp(new RequestContext(`http://127.0.0.1:${port}/`, HttpMethod.GET)), { code: 'ECONNREFUSED' });
});

test('the library client-node gets answers through the same path (Observable)', async () => {
  const res = await nodeHttpLibrary().send(new RequestContext(`${base}/missing`, HttpMethod.GET)).toPromise();
  assert.equal(res.httpStatusCode, 404);
});
