import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { register as globalRegistry } from 'prom-client';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { VolumeUsageCollector } from '../../src/metrics/collector.js';
import { ControllerMetrics } from '../../src/metrics/prometheus.js';
import { parseExposition } from '../../src/metrics/text-format.js';
import { scrape, valueOf } from './exposition.js';
import { boundPair, failingProvider, fixedProvider, MapStore, pendingClaim, tableSource, unboundVolume, usage } from './collector-fixtures.js';

describe('ControllerMetrics', () => {
  test('Unused condition writes are counted by result under kube-controller-manager 1.37\'s name', async () => {
    const metrics = new ControllerMetrics();
    metrics.unusedConditions.unusedConditionSync('success');
    metrics.unusedConditions.unusedConditionSync('success');
    metrics.unusedConditions.unusedConditionSync('error');
    const samples = await scrape(metrics);
    assert.equal(valueOf(samples, 'pvc_protection_controller_unused_condition_syncs_total', { result: 'success' }), 2);
    assert.equal(valueOf(samples, 'pvc_protection_controller_unused_condition_syncs_total', { result: 'error' }), 1);
  });

  test('kubelet volume stats carry the claim labels and the measured values; a failing claim is marked', async () => {
    const a = boundPair('data', { namespace: 'shop' });
    const b = boundPair('logs', { namespace: 'shop' });
    const volumes = new MapStore<PersistentVolume>([a.pv, b.pv]);
    const claims = new MapStore<PersistentVolumeClaim>([a.pvc, b.pvc]);
    const collector = new VolumeUsageCollector({
      volumes,
      claims,
      periodMs: 0,
      source: tableSource({ 'pv-data': fixedProvider(usage(250_000n, 1_000_000n)), 'pv-logs': failingProvider('disk gone') }),
    });
    const metrics = new ControllerMetrics();
    metrics.setSources({ usage: () => collector.snapshot() });
    await collector.collectOnce();
    const samples = await scrape(metrics);
    const data = { namespace: 'shop', persistentvolumeclaim: 'data' };
    assert.equal(valueOf(samples, 'kubelet_volume_stats_capacity_bytes', data), 1_000_000);
    assert.equal(valueOf(samples, 'kubelet_volume_stats_used_bytes', data), 250_000);
    assert.equal(valueOf(samples, 'kubelet_volume_stats_available_bytes', data), 750_000);
    assert.equal(valueOf(samples, 'kubelet_volume_stats_inodes', data), 1000);
    assert.equal(valueOf(samples, 'kubelet_volume_stats_inodes_used', data), 10);
    assert.equal(valueOf(samples, 'kubelet_volume_stats_inodes_free', data), 990);
    const logs = { namespace: 'shop', persistentvolumeclaim: 'logs' };
    assert.equal(valueOf(samples, 'kubelet_volume_stats_used_bytes', logs), undefined, 'never measured: no numbers');
    assert.equal(valueOf(samples, 'pv_collector_volume_stats_failing', { ...logs, reason: 'failed' }), 1);
    assert.equal(valueOf(samples, 'pv_collector_volume_stats_failing', { ...data, reason: 'failed' }), undefined);
  });

  test('pv_collector counts match the objects in the stores, by class and by namespace', async () => {
    const fastA = boundPair('a', { storageClass: 'fast', namespace: 'team-1' });
    const fastB = boundPair('b', { storageClass: 'fast', namespace: 'team-2' });
    const slow = boundPair('c', { storageClass: 'slow', namespace: 'team-1' });
    const volumes = new MapStore<PersistentVolume>([fastA.pv, fastB.pv, slow.pv, unboundVolume('spare-1', 'fast'), unboundVolume('spare-2', 'fast')]);
    const claims = new MapStore<PersistentVolumeClaim>([fastA.pvc, fastB.pvc, slow.pvc, pendingClaim('waiting', 'team-1', 'slow')]);
    const metrics = new ControllerMetrics();
    metrics.setSources({ volumes, claims, pluginNameOf: (pv) => (pv.metadata.name?.startsWith('spare') ? undefined : 'kubernetes.io/host-path') });
    let samples = await scrape(metrics);
    assert.equal(valueOf(samples, 'pv_collector_bound_pv_count', { storage_class: 'fast' }), 2);
    assert.equal(valueOf(samples, 'pv_collector_bound_pv_count', { storage_class: 'slow' }), 1);
    assert.equal(valueOf(samples, 'pv_collector_unbound_pv_count', { storage_class: 'fast' }), 2);
    assert.equal(valueOf(samples, 'pv_collector_unbound_pv_count', { storage_class: 'slow' }), undefined);
    const pvc = (namespace: string, storage_class: string) => ({ namespace, storage_class, volume_attributes_class: '' });
    assert.equal(valueOf(samples, 'pv_collector_bound_pvc_count', pvc('team-1', 'fast')), 1);
    assert.equal(valueOf(samples, 'pv_collector_bound_pvc_count', pvc('team-1', 'slow')), 1);
    assert.equal(valueOf(samples, 'pv_collector_bound_pvc_count', pvc('team-2', 'fast')), 1);
    assert.equal(valueOf(samples, 'pv_collector_unbound_pvc_count', pvc('team-1', 'slow')), 1);
    assert.equal(valueOf(samples, 'pv_collector_total_pv_count', { plugin_name: 'kubernetes.io/host-path', volume_mode: 'Filesystem' }), 3);
    assert.equal(valueOf(samples, 'pv_collector_total_pv_count', { plugin_name: 'N/A', volume_mode: 'Filesystem' }), 2);

    // Counted on scrape: a claim that goes away leaves no stale series behind.
    claims.delete('team-1/waiting');
    samples = await scrape(metrics);
    assert.equal(valueOf(samples, 'pv_collector_unbound_pvc_count', pvc('team-1', 'slow')), undefined);
  });

  test('each Failed PV is one pv_controller_persistentvolume_failed series, gone once it is no longer Failed', async () => {
    const failed: PersistentVolume = { ...unboundVolume('broken', 'fast'), status: { phase: 'Failed', reason: 'VolumeFailedDelete' } };
    const volumes = new MapStore<PersistentVolume>([failed, unboundVolume('spare', 'fast')]);
    const metrics = new ControllerMetrics();
    metrics.setSources({ volumes });
    let samples = await scrape(metrics);
    assert.equal(valueOf(samples, 'pv_controller_persistentvolume_failed', { persistentvolume: 'broken', storage_class: 'fast' }), 1);
    assert.equal(samples.filter((s) => s.name === 'pv_controller_persistentvolume_failed').length, 1, 'only Failed volumes have a series');

    volumes.put({ ...failed, status: { phase: 'Released' } });
    samples = await scrape(metrics);
    assert.equal(samples.filter((s) => s.name === 'pv_controller_persistentvolume_failed').length, 0);
  });

  test('plugin operations feed storage_operation_duration_seconds and volume_operation_total_errors', async () => {
    const metrics = new ControllerMetrics();
    metrics.operations.onOperation('kubernetes.io/host-path', 'provision', 0.2);
    metrics.operations.onOperation('kubernetes.io/host-path', 'provision', 3);
    metrics.operations.onOperation('kubernetes.io/host-path', 'delete', 0.01, new Error('busy'));
    const samples = await scrape(metrics);
    const provision = { volume_plugin: 'kubernetes.io/host-path', operation_name: 'provision', status: 'success', migrated: 'false' };
    assert.equal(valueOf(samples, 'storage_operation_duration_seconds_count', provision), 2);
    assert.equal(valueOf(samples, 'storage_operation_duration_seconds_sum', provision), 3.2);
    assert.equal(valueOf(samples, 'storage_operation_duration_seconds_bucket', { ...provision, le: '0.25' }), 1);
    const failedDelete = { volume_plugin: 'kubernetes.io/host-path', operation_name: 'delete', status: 'fail-unknown', migrated: 'false' };
    assert.equal(valueOf(samples, 'storage_operation_duration_seconds_count', failedDelete), 1);
    assert.equal(valueOf(samples, 'volume_operation_total_errors', { plugin_name: 'kubernetes.io/host-path', operation_name: 'delete' }), 1);
    assert.equal(valueOf(samples, 'volume_operation_total_errors', { plugin_name: 'kubernetes.io/host-path', operation_name: 'provision' }), undefined);
  });

  test('work queues and the lease are exposed under client-go names', async () => {
    const metrics = new ControllerMetrics();
    let leading = false;
    metrics.setSources({
      queues: () => ({
        claims: { depth: 3, adds: 40, retries: 2 },
        volumes: { depth: 0, adds: 5, retries: 0 },
      }),
      leaderElection: { name: 'pv-controller', isLeader: () => leading },
    });
    let samples = await scrape(metrics);
    assert.equal(valueOf(samples, 'workqueue_depth', { name: 'claims' }), 3);
    assert.equal(valueOf(samples, 'workqueue_adds_total', { name: 'claims' }), 40);
    assert.equal(valueOf(samples, 'workqueue_retries_total', { name: 'claims' }), 2);
    metrics.workqueue.queued('claims', 1.5);
    metrics.workqueue.worked('volumes', 0.02);
    samples = await scrape(metrics);
    assert.equal(valueOf(samples, 'workqueue_queue_duration_seconds_sum', { name: 'claims' }), 1.5);
    assert.equal(valueOf(samples, 'workqueue_queue_duration_seconds_count', { name: 'claims' }), 1);
    assert.equal(valueOf(samples, 'workqueue_work_duration_seconds_sum', { name: 'volumes' }), 0.02);
    assert.equal(valueOf(samples, 'leader_election_master_status', { name: 'pv-controller' }), 0);
    leading = true;
    samples = await scrape(metrics);
    assert.equal(valueOf(samples, 'leader_election_master_status', { name: 'pv-controller' }), 1);
    const families = parseExposition((await metrics.render()).body).families;
    assert.equal(families.get('workqueue_queue_duration_seconds')?.type, 'histogram');
    assert.equal(families.get('workqueue_adds_total')?.type, 'counter');
  });

  test('collection cost is exposed: last pass duration and time, per-volume histogram, errors by reason', async () => {
    const metrics = new ControllerMetrics();
    metrics.collection.volumeMeasured('kubernetes.io/host-path', 0.02);
    metrics.collection.volumeMeasured('kubernetes.io/host-path', 0.5, 'timeout');
    metrics.collection.volumeMeasured('kubernetes.io/aws-ebs', 0.0001, 'not_supported');
    metrics.collection.passFinished({ volumes: 3, measured: 1, failed: 2, seconds: 0.52, finishedAt: new Date(1_700_000_000_000) });
    const samples = await scrape(metrics);
    assert.equal(valueOf(samples, 'pv_collector_volume_stats_collection_duration_seconds_count', { volume_plugin: 'kubernetes.io/host-path' }), 2);
    assert.equal(valueOf(samples, 'pv_collector_volume_stats_errors_total', { reason: 'timeout' }), 1);
    assert.equal(valueOf(samples, 'pv_collector_volume_stats_errors_total', { reason: 'not_supported' }), 1);
    assert.equal(valueOf(samples, 'pv_collector_volume_stats_last_pass_duration_seconds'), 0.52);
    assert.equal(valueOf(samples, 'pv_collector_volume_stats_last_pass_timestamp_seconds'), 1_700_000_000);
  });

  test('uses its own registry, never prom-client\'s global one, so two instances do not collide', async () => {
    const first = new ControllerMetrics();
    const second = new ControllerMetrics();
    first.operations.onOperation('p', 'provision', 1);
    assert.equal(globalRegistry.getSingleMetric('storage_operation_duration_seconds'), undefined);
    assert.equal(globalRegistry.getSingleMetric('kubelet_volume_stats_used_bytes'), undefined);
    const samples = await scrape(second);
    assert.equal(valueOf(samples, 'storage_operation_duration_seconds_count', { volume_plugin: 'p', operation_name: 'provision', status: 'success', migrated: 'false' }), undefined);
  });
});
