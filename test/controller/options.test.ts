import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDuration, formatDuration } from '../../src/controller/duration.js';
import { OptionsError, parseControllerOptions, parseControllers } from '../../src/controller/options.js';

test('durations parse like Go', () => {
  assert.equal(parseDuration('15s'), 15_000);
  assert.equal(parseDuration('10m'), 600_000);
  assert.equal(parseDuration('1h30m'), 5_400_000);
  assert.equal(parseDuration('1.5h'), 5_400_000);
  assert.equal(parseDuration('250ms'), 250);
  assert.equal(parseDuration('0'), 0);
  for (const bad of ['', '15', '10x', 'm', '1h 30m', '5d']) assert.throws(() => parseDuration(bad), /invalid duration/);
  assert.equal(formatDuration(5_400_000), '1h30m0s');
});

test('defaults match kube-controller-manager, with the seed\'s 10m sync period', () => {
  const o = parseControllerOptions({});
  assert.equal(o.clusterName, 'kubernetes');
  assert.equal(o.syncPeriodMs, 600_000);
  assert.equal(o.recyclerMaximumRetry, 3);
  assert.equal(o.concurrentSyncs, 4);
  assert.equal(o.kubeApiQps, 20);
  assert.equal(o.kubeApiBurst, 30);
  assert.deepEqual(o.leaderElection, {
    enabled: true,
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 2_000,
    resourceName: 'pv-controller',
    resourceNamespace: 'kube-system',
  });
  assert.deepEqual(o.controllers, ['binder', 'provisioner', 'reclaimer', 'pvc-protection', 'pvc-unused', 'pv-protection', 'expander', 'node-gone', 'snapshot']);
  assert.equal(o.logFormat, 'json');
  assert.equal(o.metricsBindAddress, '127.0.0.1:10258');
  assert.equal(o.volumeStatsAggPeriodMs, 60_000);
  assert.equal(o.nodeGoneDelayMs, 300_000);
  assert.equal(o.snapshotRole, 'controller+sidecar');
});

test('flags override defaults', () => {
  const o = parseControllerOptions({
    pvclaimbinderSyncPeriod: '10m',
    leaderElect: 'false',
    logFormat: 'text',
    kubeApiQps: '500.5',
  });
  assert.equal(o.syncPeriodMs, 600_000);
  assert.equal(o.leaderElection.enabled, false);
  assert.equal(o.logFormat, 'text');
  assert.equal(o.kubeApiQps, 500.5);
  assert.equal(parseControllerOptions({ metricsBindAddress: '0' }).metricsBindAddress, '0', '0 turns /metrics off');
});

test('--controllers takes *, names and -name like kube-controller-manager', () => {
  assert.deepEqual(parseControllers('*,-reclaimer,-pv-protection,-pvc-unused'), ['binder', 'provisioner', 'pvc-protection', 'expander', 'node-gone', 'snapshot']);
  assert.deepEqual(parseControllers('binder'), ['binder']);
  assert.throws(() => parseControllers('binder,attach'), /unknown controller "attach"/);
});

test('bad values are refused with a message naming the flag', () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ concurrentSyncs: '0' }, /--concurrent-syncs/],
    [{ kubeApiBurst: 'x' }, /--kube-api-burst/],
    [{ logFormat: 'xml' }, /--log-format/],
    [{ leaderElectLeaseDuration: '5s' }, /lease-duration must be greater/],
    [{ leaderElect: 'maybe' }, /--leader-elect/],
    [{ metricsBindAddress: 'nope' }, /--metrics-bind-address/],
    [{ nodeGoneDelay: 'soon' }, /--node-gone-delay/],
    [{ snapshotRole: 'controller' }, /--snapshot-role must be one of controller\+sidecar, sidecar/],
  ];
  for (const [raw, msg] of cases) assert.throws(() => parseControllerOptions(raw), (e: unknown) => e instanceof OptionsError && msg.test(e.message));
});

test('--volume-stats-agg-period 0 disables collection; a negative or malformed period is refused', () => {
  assert.equal(parseControllerOptions({ volumeStatsAggPeriod: '0' }).volumeStatsAggPeriodMs, 0);
  assert.equal(parseControllerOptions({ volumeStatsAggPeriod: '30s' }).volumeStatsAggPeriodMs, 30_000);
  assert.throws(() => parseControllerOptions({ volumeStatsAggPeriod: '-1s' }), /--volume-stats-agg-period/);
  assert.throws(() => parseControllerOptions({ volumeStatsAggPeriod: 'soon' }), /--volume-stats-agg-period/);
});

test('--snapshot-role takes controller+sidecar or sidecar', () => {
  assert.equal(parseControllerOptions({ snapshotRole: 'sidecar' }).snapshotRole, 'sidecar');
  assert.equal(parseControllerOptions({ snapshotRole: 'controller+sidecar' }).snapshotRole, 'controller+sidecar');
});
