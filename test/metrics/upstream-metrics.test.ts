/**
 * The metrics under upstream names and with real histograms: the work queues' latency histograms
 * with client-go's buckets (a p99 over them is a number), kube-controller-manager's and
 * external-provisioner's operation families, client-go's REST client metrics from the transport,
 * and prom-client's process metrics.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Registry } from 'prom-client';
import { WorkQueue } from '../../src/controller/runtime/queue.js';
import { RestTransport } from '../../src/kube-client/transport.js';
import { registerOperationMetrics } from '../../src/metrics/operation-metrics.js';
import { ControllerMetrics } from '../../src/metrics/prometheus.js';
import { parseExposition } from '../../src/metrics/text-format.js';
import { exponentialBuckets } from '../../src/metrics/workqueue-metrics.js';
import { controllerKubeConfig, withTestApiServer } from '../helpers/apiserver.js';
import { bucketBounds, histogramQuantile, scrape, valueOf } from './exposition.js';

const KUBE_WORKQUEUE_BOUNDS = ['1e-8', '1e-7', '0.000001', '0.00001', '0.0001', '0.001', '0.01', '0.1', '1', '10', '+Inf'];

describe('work-queue histograms', () => {
  test('exponentialBuckets(10e-9, 10, 10) is client-go\'s 10 ns … 10 s, without float noise', () => {
    assert.deepEqual(exponentialBuckets(10e-9, 10, 10), [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1, 10]);
    assert.throws(() => exponentialBuckets(0, 10, 3), RangeError);
  });

  test('a queue that worked items exposes every bucket, and a p99 over them is a number', async () => {
    const metrics = new ControllerMetrics();
    const queue = new WorkQueue({ name: 'claims', latency: metrics.workqueue });
    metrics.setSources({ queues: () => ({ claims: queue.stats() }) });
    queue.run(2, async () => {
      await new Promise<void>((resolve) => setImmediate(resolve));
      return { kind: 'done' };
    });
    for (let i = 0; i < 50; i++) queue.add(`default/claim-${i}`);
    await queue.whenIdle();
    await queue.shutDown();
    const samples = await scrape(metrics);
    for (const histogram of ['workqueue_queue_duration_seconds', 'workqueue_work_duration_seconds']) {
      assert.deepEqual(bucketBounds(samples, histogram, { name: 'claims' }), KUBE_WORKQUEUE_BOUNDS, histogram);
      assert.equal(valueOf(samples, `${histogram}_count`, { name: 'claims' }), 50);
      const p99 = histogramQuantile(0.99, samples, histogram, { name: 'claims' });
      assert.ok(Number.isFinite(p99) && p99 > 0 && p99 <= 10, `${histogram} p99 = ${p99}`);
    }
  });

  test('a histogram with only the +Inf bucket has no p99 (what the queues exposed before)', () => {
    const onlyInf = parseExposition('# TYPE h histogram\nh_bucket{le="+Inf"} 37\nh_sum 1.5\nh_count 37\n').samples;
    assert.ok(Number.isNaN(histogramQuantile(0.99, onlyInf, 'h', {})));
  });
});

describe('operation metrics under kube-controller-manager\'s and external-provisioner\'s names', () => {
  async function operations(): Promise<{ observer: ReturnType<typeof registerOperationMetrics>; advance: (ms: number) => void; text: () => Promise<string> }> {
    const registry = new Registry();
    let clock = 0;
    const observer = registerOperationMetrics(registry, () => clock);
    return { observer, advance: (ms) => (clock += ms), text: () => registry.metrics() };
  }

  test('a provision counts under its class and source; a failed attempt counts as failed and not in the duration', async () => {
    const { observer, text } = await operations();
    const ctx = { key: 'default/data', storageClass: 'standard', source: '' };
    observer.onOperation('kubernetes.io/host-path', 'provision', 0.3, new Error('no space'), ctx);
    observer.onOperation('kubernetes.io/host-path', 'provision', 0.2, undefined, ctx);
    observer.onOperation('kubernetes.io/host-path', 'provision', 0.4, undefined, { key: 'default/copy', storageClass: 'standard', source: 'VolumeSnapshot' });
    const samples = parseExposition(await text()).samples;
    const plain = { class: 'standard', source: '' };
    assert.equal(valueOf(samples, 'controller_persistentvolumeclaim_provision_total', plain), 1);
    assert.equal(valueOf(samples, 'controller_persistentvolumeclaim_provision_failed_total', plain), 1);
    assert.equal(valueOf(samples, 'controller_persistentvolumeclaim_provision_duration_seconds_count', plain), 1);
    assert.equal(valueOf(samples, 'controller_persistentvolumeclaim_provision_total', { class: 'standard', source: 'VolumeSnapshot' }), 1);
    assert.deepEqual(bucketBounds(samples, 'controller_persistentvolumeclaim_provision_duration_seconds', plain), [
      '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf',
    ]);
    assert.equal(valueOf(samples, 'volume_operation_errors_total', { plugin_name: 'kubernetes.io/host-path', operation_name: 'provision' }), 1);
    assert.equal(valueOf(samples, 'volume_operation_total_errors', { plugin_name: 'kubernetes.io/host-path', operation_name: 'provision' }), 1);
  });

  test('a delete counts under the volume\'s class; a plugin call without a class feeds only the kube families', async () => {
    const { observer, text } = await operations();
    observer.onOperation('kubernetes.io/host-path', 'delete', 0.1, undefined, { key: 'pvc-1', storageClass: 'standard' });
    observer.onOperation('kubernetes.io/host-path', 'delete', 0.1, new Error('busy'), { key: 'pvc-2', storageClass: 'standard' });
    observer.onOperation('kubernetes.io/host-path', 'delete', 0.1);
    const samples = parseExposition(await text()).samples;
    assert.equal(valueOf(samples, 'controller_persistentvolume_delete_total', { class: 'standard' }), 1);
    assert.equal(valueOf(samples, 'controller_persistentvolume_delete_failed_total', { class: 'standard' }), 1);
    const status = { volume_plugin: 'kubernetes.io/host-path', operation_name: 'delete', migrated: 'false' };
    assert.equal(valueOf(samples, 'storage_operation_duration_seconds_count', { ...status, status: 'success' }), 2);
  });

  test('volume_operation_total_seconds runs from the first attempt to the one that succeeds', async () => {
    const { observer, advance, text } = await operations();
    const ctx = { key: 'default/data', storageClass: 'standard' };
    advance(10_000);
    // The first attempt started at 9 s and failed at 10 s; the retry succeeds at 70 s.
    observer.onOperation('kubernetes.io/host-path', 'provision', 1, new Error('busy'), ctx);
    advance(60_000);
    observer.onOperation('kubernetes.io/host-path', 'provision', 2, undefined, ctx);
    // A second success for the same claim starts over: it measures only itself.
    advance(1_000);
    observer.onOperation('kubernetes.io/host-path', 'provision', 0.5, undefined, ctx);
    const samples = parseExposition(await text()).samples;
    const labels = { plugin_name: 'kubernetes.io/host-path', operation_name: 'provision' };
    assert.equal(valueOf(samples, 'volume_operation_total_seconds_count', labels), 2);
    assert.equal(valueOf(samples, 'volume_operation_total_seconds_sum', labels), 61.5);
  });

  test('no claim or volume name becomes a label', async () => {
    const { observer, text } = await operations();
    observer.onOperation('p', 'provision', 0.1, undefined, { key: 'secret-ns/secret-claim', storageClass: 'standard', source: '' });
    observer.onOperation('p', 'delete', 0.1, new Error('x'), { key: 'pvc-secret-volume', storageClass: 'standard' });
    assert.doesNotMatch(await text(), /secret/);
  });
});

describe('REST client and process metrics', () => {
  test('each request to the API server counts by code, method and host, with its latency', async () => {
    await withTestApiServer(async (srv) => {
      const metrics = new ControllerMetrics();
      const kc = controllerKubeConfig(srv);
      const transport = new RestTransport(kc, { qps: 0, burst: 0, observer: metrics.restClient });
      try {
        await transport.request({ method: 'GET', verb: 'list', path: '/api/v1/persistentvolumes' });
        await assert.rejects(transport.request({ method: 'GET', verb: 'get', path: '/api/v1/persistentvolumes/missing' }));
      } finally {
        transport.close();
      }
      const host = new URL(kc.getCurrentCluster()?.server ?? '').host;
      const samples = await scrape(metrics);
      assert.equal(valueOf(samples, 'rest_client_requests_total', { code: '200', method: 'GET', host }), 1);
      assert.equal(valueOf(samples, 'rest_client_requests_total', { code: '404', method: 'GET', host }), 1);
      assert.equal(valueOf(samples, 'rest_client_request_duration_seconds_count', { verb: 'GET', host }), 2);
      assert.ok(bucketBounds(samples, 'rest_client_request_duration_seconds', { verb: 'GET', host }).includes('0.025'));
    });
  });

  test('collectProcessMetrics adds process_* and nodejs_* to the controller\'s registry, once', async () => {
    const metrics = new ControllerMetrics();
    assert.equal(valueOf(await scrape(metrics), 'process_start_time_seconds'), undefined);
    metrics.collectProcessMetrics();
    metrics.collectProcessMetrics();
    const samples = await scrape(metrics);
    assert.ok((valueOf(samples, 'process_start_time_seconds') ?? 0) > 0);
    assert.ok(samples.some((s) => s.name === 'nodejs_heap_size_used_bytes'));
  });
});
