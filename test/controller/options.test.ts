import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseDuration, formatDuration } from '../../src/controller/duration.js';
import { OptionsError, parseControllerOptions, parseControllers } from '../../src/controller/options.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

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
  assert.deepEqual(o.controllers, ['binder', 'provisioner', 'reclaimer', 'pvc-protection', 'pv-protection']);
  assert.equal(o.logFormat, 'json');
  assert.equal(o.metricsBindAddress, '127.0.0.1:10258');
  assert.equal(o.volumeStatsAggPeriodMs, 60_000);
  assert.deepEqual(o.hostPathRoots, []);
});

test('flags override defaults', () => {
  const o = parseControllerOptions({
    pvclaimbinderSyncPeriod: '10m',
    leaderElect: 'false',
    hostPathRoot: ['/srv/a', '/srv/b'],
    logFormat: 'text',
    nodeName: 'n1',
    kubeApiQps: '500.5',
  });
  assert.equal(o.syncPeriodMs, 600_000);
  assert.equal(o.leaderElection.enabled, false);
  assert.deepEqual(o.hostPathRoots, ['/srv/a', '/srv/b']);
  assert.equal(o.logFormat, 'text');
  assert.equal(o.nodeName, 'n1');
  assert.equal(o.kubeApiQps, 500.5);
  assert.equal(parseControllerOptions({ metricsBindAddress: '0' }).metricsBindAddress, '0', '0 turns /metrics off');
});

test('--controllers takes *, names and -name like kube-controller-manager', () => {
  assert.deepEqual(parseControllers('*,-reclaimer,-pv-protection'), ['binder', 'provisioner', 'pvc-protection']);
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
    [{ hostPathRoot: ['relative'] }, /--host-path-root/],
    [{ metricsBindAddress: 'nope' }, /--metrics-bind-address/],
  ];
  for (const [raw, msg] of cases) assert.throws(() => parseControllerOptions(raw), (e: unknown) => e instanceof OptionsError && msg.test(e.message));
});

test('the controller command exits 2 with a clear message on a bad flag value or an unknown flag', () => {
  for (const args of [['--pvclaimbinder-sync-period', '10x'], ['--no-such-flag'], ['--concurrent-syncs', '-1'], ['--nfs-mount', 'nfs.example:share']]) {
    const r = spawnSync(process.execPath, [MAIN, 'controller', ...args], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /error: /);
  }
});

test('the controller command documents its flags in --help', () => {
  const r = spawnSync(process.execPath, [MAIN, 'controller', '--help'], { encoding: 'utf8', timeout: 20_000 });
  assert.equal(r.status, 0);
  for (const flag of ['--pvclaimbinder-sync-period', '--leader-elect-resource-namespace', '--kube-api-qps', '--host-path-root']) {
    assert.ok(r.stdout.includes(flag), flag);
  }
});

test('--volume-stats-agg-period 0 disables collection; a negative or malformed period is refused', () => {
  assert.equal(parseControllerOptions({ volumeStatsAggPeriod: '0' }).volumeStatsAggPeriodMs, 0);
  assert.equal(parseControllerOptions({ volumeStatsAggPeriod: '30s' }).volumeStatsAggPeriodMs, 30_000);
  assert.throws(() => parseControllerOptions({ volumeStatsAggPeriod: '-1s' }), /--volume-stats-agg-period/);
  assert.throws(() => parseControllerOptions({ volumeStatsAggPeriod: 'soon' }), /--volume-stats-agg-period/);
});
