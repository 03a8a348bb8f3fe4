import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { CoreV1Api, HttpMethod, KubeConfig, RequestContext } from '@kubernetes/client-node';
import { loadOrCreateTls } from '@pv-controller/apiserver/http/tls.js';
import { KubeApiClient } from '../../../src/kube-client/kube-api-client.js';
import { SharedAgentAuthentication, identityKey } from '../../../src/kube-client/shared-agent-auth.js';
import { RestTransport, TransportError } from '../../../src/kube-client/transport.js';
import { ApiError } from '@pv-controller/kube/errors.js';

const TOKEN = 'right-token';

interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

interface FakeApi {
  kc: KubeConfig;
  seen: SeenRequest[];
  connections(): number;
}

/** A TLS server answering like an API server: 401 without the token, paths under /hang never. */
async function startFakeApi(t: { after(fn: () => Promise<void>): void }): Promise<FakeApi> {
  const dir = await mkdtemp(join(tmpdir(), 'fake-api-'));
  const tls = await loadOrCreateTls(dir, '127.0.0.1');
  const seen: SeenRequest[] = [];
  let connections = 0;
  const server = https.createServer({ cert: tls.certPem, key: tls.keyPem }, (req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    if (req.url?.includes('/hang')) return;
    req.resume();
    req.on('end', () => answer(req, res));
  });
  server.on('secureConnection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });
  const kc = kubeConfigFor(`https://127.0.0.1:${(server.address() as AddressInfo).port}`, tls.caPem, TOKEN);
  return { kc, seen, connections: () => connections };
}

function answer(req: http.IncomingMessage, res: http.ServerResponse): void {
  res.setHeader('Content-Type', 'application/json');
  if (req.headers.authorization !== `Bearer ${TOKEN}`) {
    res.statusCode = 401;
    res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', code: 401, message: 'Unauthorized' }));
    return;
  }
  const name = decodeURIComponent((req.url ?? '').split('?')[0].split('/').pop() ?? '');
  const meta = { name, namespace: 'default', resourceVersion: '7', creationTimestamp: '2026-01-02T03:04:05Z' };
  const body = req.url?.includes('/events/')
    ? { apiVersion: 'v1', kind: 'Event', metadata: meta, involvedObject: {}, count: 2 }
    : { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { ...meta, namespace: undefined }, spec: {} };
  res.end(JSON.stringify(body));
}

function kubeConfigFor(server: string, caPem: string, token: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'fake', server, caData: Buffer.from(caPem).toString('base64'), skipTLSVerify: false }],
    users: [{ name: 'user', token }],
    contexts: [{ name: 'fake', cluster: 'fake', user: 'user' }],
    currentContext: 'fake',
  });
  return kc;
}

test('calls through the generated API share one TLS connection; client-node’s default agent opens one per call', async (t) => {
  const fake = await startFakeApi(t);
  const transport = new RestTransport(fake.kc, { qps: 0, burst: 0 });
  t.after(() => transport.close());
  const api = new KubeApiClient(transport);
  for (let i = 0; i < 10; i++) assert.equal((await api.getVolume(`pv-${i}`))?.metadata.name, `pv-${i}`);
  assert.equal(fake.connections(), 1);
  assert.equal(transport.agentCount(), 1);

  const perCall = fake.kc.makeApiClient(CoreV1Api);
  for (let i = 0; i < 3; i++) await perCall.readPersistentVolume({ name: `pv-${i}` });
  assert.equal(fake.connections(), 1 + 3, 'the default path handshakes every time');
});

test('credentials come from the kubeconfig: a token changed in place is used by the next call (after one 401 on the reused one)', async (t) => {
  const fake = await startFakeApi(t);
  const cluster = fake.kc.getCurrentCluster()!;
  const kc = kubeConfigFor(cluster.server, Buffer.from(cluster.caData ?? '', 'base64').toString(), 'stale-token');
  const transport = new RestTransport(kc, { qps: 0, burst: 0 });
  t.after(() => transport.close());
  const api = new KubeApiClient(transport);
  await assert.rejects(api.getVolume('a'), (e: unknown) => e instanceof ApiError && e.code === 401 && e.reason === 'Unauthorized');
  kc.loadFromOptions({ clusters: kc.clusters, contexts: kc.contexts, currentContext: kc.currentContext, users: [{ name: 'user', token: TOKEN }] });
  assert.equal((await api.getVolume('a'))?.metadata.name, 'a');
  assert.equal(transport.agentCount(), 1, 'a new token is not a new TLS identity');
  // The stale token's call (not retried: fresh credentials were the same), then the next call's
  // 401 on the reused stale credentials and its retry with the new token.
  assert.deepEqual(transport.counters.snapshot().get, { requests: 3, conflicts: 0, errors: 2 });
});

test('a request the server never answers fails with a TransportError at the deadline and is counted as an error', async (t) => {
  const fake = await startFakeApi(t);
  const transport = new RestTransport(fake.kc, { qps: 0, burst: 0, timeoutMs: 300 });
  t.after(() => transport.close());
  await assert.rejects(new KubeApiClient(transport).getVolume('hang'), TransportError);
  assert.deepEqual(transport.counters.snapshot().get, { requests: 1, conflicts: 0, errors: 1 });
});

test('event patches are sent as merge patches and every request names pv-controller as its user agent', async (t) => {
  const fake = await startFakeApi(t);
  const transport = new RestTransport(fake.kc, { qps: 0, burst: 0 });
  t.after(() => transport.close());
  const out = await new KubeApiClient(transport).patchEvent('default', 'ev-1', { count: 2 });
  assert.equal(out.count, 2);
  const patch = fake.seen.find((r) => r.method === 'PATCH');
  assert.equal(patch?.url, '/api/v1/namespaces/default/events/ev-1');
  assert.equal(patch?.headers['content-type'], 'application/merge-patch+json');
  assert.equal(patch?.headers['user-agent'], 'pv-controller');
});

test('one agent per TLS identity: same CA and client certificate share it, any identity field changes it', () => {
  const kc = kubeConfigFor('https://127.0.0.1:1', 'unused', TOKEN);
  const auth = new SharedAgentAuthentication(kc);
  const tlsAgent = (extra: https.AgentOptions = {}): https.Agent =>
    new https.Agent({ ca: Buffer.from('CA-1'), cert: 'CERT', key: 'KEY', ...extra });
  const first = auth.agentLike(tlsAgent());
  assert.equal(auth.agentLike(tlsAgent()), first, 'equal content, different Buffer objects');
  assert.equal((first as https.Agent).options.keepAlive, true);
  for (const extra of [{ ca: 'CA-2' }, { cert: 'OTHER' }, { key: 'OTHER' }, { servername: 'api.example' }, { rejectUnauthorized: false }]) {
    assert.notEqual(identityKey(tlsAgent(extra)), identityKey(tlsAgent()), JSON.stringify(extra));
  }
  const other = auth.agentLike(tlsAgent({ ca: 'CA-2' }));
  assert.notEqual(other, first);
  assert.equal(auth.agentLike(tlsAgent()), first, 'switching back finds the cached agent');
  assert.equal(auth.agentLike(new http.Agent()), auth.agentLike(new http.Agent()), 'plain http shares one agent too');
  assert.equal(auth.agentCount(), 3);
  auth.destroy();
  assert.equal(auth.agentCount(), 0);
});

test('a cluster behind a proxy keeps client-node’s own proxy agent', async () => {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://10.0.0.1:6443', proxyUrl: 'http://127.0.0.1:3128', skipTLSVerify: true }],
    users: [{ name: 'u', token: TOKEN }],
    contexts: [{ name: 'c', cluster: 'c', user: 'u' }],
    currentContext: 'c',
  });
  const auth = new SharedAgentAuthentication(kc);
  const ctx = new RequestContext('https://10.0.0.1:6443/api/v1/persistentvolumes', HttpMethod.GET);
  await auth.applySecurityAuthentication(ctx);
  assert.equal(auth.agentCount(), 0);
  assert.ok(ctx.getAgent(), 'client-node set its proxy agent');
  assert.equal(ctx.getHeaders().Authorization, `Bearer ${TOKEN}`);
});

test('credentials are resolved by client-node once for a burst of calls, not once per call', async (t) => {
  const fake = await startFakeApi(t);
  let resolutions = 0;
  const original = fake.kc.applySecurityAuthentication.bind(fake.kc);
  fake.kc.applySecurityAuthentication = async (context) => {
    resolutions++;
    return original(context);
  };
  const transport = new RestTransport(fake.kc, { qps: 0, burst: 0 });
  t.after(() => transport.close());
  const api = new KubeApiClient(transport);
  await Promise.all(Array.from({ length: 20 }, (_, i) => api.getVolume(`pv-${i}`)));
  assert.equal(resolutions, 1);
});
