import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { controllerReadiness, type ObservedController } from '../../src/metrics/observability.js';
import { ControllerMetrics } from '../../src/metrics/prometheus.js';
import { BindAddressError, parseBindAddress, startMetricsServer, type RunningMetricsServer } from '../../src/metrics/server.js';
import { parseExposition } from '../../src/metrics/text-format.js';

/** A controller whose state the test sets by hand. */
function fakeController() {
  const state = { synced: false, leading: true, workers: false };
  let loseLease: () => void = () => undefined;
  const controller: ObservedController = {
    stats: () => ({ synced: state.synced, leading: state.leading, queues: {} }),
    ready: () => state.synced && state.leading && state.workers,
    context: { volumes: { get: () => undefined, list: () => [] }, claims: { get: () => undefined, list: () => [] } },
    lost: new Promise<void>((resolve) => (loseLease = resolve)),
  };
  return { state, controller, loseLease: () => loseLease() };
}

const servers: RunningMetricsServer[] = [];
after(() => Promise.all(servers.map((s) => s.stop())));

async function serve(controller: ObservedController, electing: boolean): Promise<RunningMetricsServer> {
  const metrics = new ControllerMetrics();
  metrics.operations.onOperation('kubernetes.io/host-path', 'provision', 0.5);
  const server = await startMetricsServer({ listen: '127.0.0.1:0', metrics, readiness: controllerReadiness(controller, electing) });
  servers.push(server);
  return server;
}

async function get(url: string, method = 'GET'): Promise<{ status: number; body: string; type: string | null }> {
  const res = await fetch(url, { method });
  return { status: res.status, body: await res.text(), type: res.headers.get('content-type') };
}

describe('metrics server', () => {
  test('serves the registry as Prometheus text over HTTP', async () => {
    const { controller } = fakeController();
    const server = await serve(controller, false);
    const res = await get(`${server.url}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.type ?? '', /^text\/plain; version=0\.0\.4/);
    const { samples } = parseExposition(res.body);
    const count = samples.find((s) => s.name === 'storage_operation_duration_seconds_count');
    assert.deepEqual(count?.labels, { volume_plugin: 'kubernetes.io/host-path', operation_name: 'provision', status: 'success', migrated: 'false' });
    assert.equal(count?.value, 1);
  });

  test('/readyz turns ready once the caches synced and the workers run; /healthz is ok throughout', async () => {
    const { state, controller } = fakeController();
    const server = await serve(controller, false);
    let ready = await get(`${server.url}/readyz`);
    assert.equal(ready.status, 503);
    assert.match(ready.body, /\[-\]informer-sync failed: informer caches have not synced yet/);
    assert.equal((await get(`${server.url}/healthz`)).body, 'ok');
    state.synced = true;
    ready = await get(`${server.url}/readyz`);
    assert.equal(ready.status, 503);
    assert.match(ready.body, /\[\+\]informer-sync ok\n\[-\]controller failed: workers are not running/);
    state.workers = true;
    ready = await get(`${server.url}/readyz`);
    assert.deepEqual([ready.status, ready.body], [200, 'ok']);
    const verbose = await get(`${server.url}/readyz?verbose`);
    assert.equal(verbose.status, 200);
    assert.match(verbose.body, /\[\+\]informer-sync ok\n\[\+\]controller ok\nreadyz check passed\n$/);
  });

  test('with leader election a synced standby is ready, and a lost lease makes it unready', async () => {
    const { state, controller, loseLease } = fakeController();
    state.synced = true;
    state.leading = false;
    const server = await serve(controller, true);
    assert.equal((await get(`${server.url}/readyz`)).status, 200);
    loseLease();
    await new Promise((r) => setImmediate(r));
    const ready = await get(`${server.url}/readyz`);
    assert.equal(ready.status, 503);
    assert.match(ready.body, /\[-\]leader-election failed: the lease was lost/);
  });

  test('answers 404 for unknown paths, 405 for writes, and HEAD without a body', async () => {
    const { controller } = fakeController();
    const server = await serve(controller, false);
    assert.equal((await get(`${server.url}/nope`)).status, 404);
    const post = await fetch(`${server.url}/metrics`, { method: 'POST' });
    await post.text();
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
    const head = await get(`${server.url}/healthz`, 'HEAD');
    assert.deepEqual([head.status, head.body], [200, '']);
  });

  test('stop closes the port', async () => {
    const { controller } = fakeController();
    const server = await serve(controller, false);
    await server.stop();
    await assert.rejects(fetch(`${server.url}/healthz`));
  });

  test('bind addresses are host:port, [v6]:port or :port', () => {
    assert.deepEqual(parseBindAddress('127.0.0.1:10258'), { host: '127.0.0.1', port: 10258 });
    assert.deepEqual(parseBindAddress('[::1]:0'), { host: '::1', port: 0 });
    assert.deepEqual(parseBindAddress(':9090'), { host: '', port: 9090 });
    for (const bad of ['10258', 'host:', 'host:70000', '::1:80']) assert.throws(() => parseBindAddress(bad), BindAddressError, bad);
  });
});
