import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { VolumeUsageCollector, type UsageCollectorOptions, type UsageSource } from '../../src/metrics/collector.js';
import type { MetricsProvider, VolumeMetrics } from '../../src/metrics/provider.js';
import {
  boundPair,
  failingProvider,
  fixedProvider,
  hangingProvider,
  MapStore,
  pendingClaim,
  tableSource,
  unboundVolume,
  unsupportedProvider,
  usage,
} from './collector-fixtures.js';
import { waitFor } from '../helpers/wait.js';

function setup(pairs: Array<ReturnType<typeof boundPair>>, source: UsageSource, extra: Partial<UsageCollectorOptions> = {}) {
  const volumes = new MapStore<PersistentVolume>(pairs.map((p) => p.pv));
  const claims = new MapStore<PersistentVolumeClaim>(pairs.map((p) => p.pvc));
  const collector = new VolumeUsageCollector({ volumes, claims, source, periodMs: 0, ...extra });
  return { volumes, claims, collector };
}

const byClaim = (collector: VolumeUsageCollector) => new Map(collector.snapshot().map((u) => [u.claimName, u]));

describe('VolumeUsageCollector', () => {
  test('a provider that hangs is reported as a timeout after the deadline while the other volumes are still measured', async () => {
    const a = boundPair('a');
    const b = boundPair('b');
    const c = boundPair('c');
    const signals: AbortSignal[] = [];
    const source = tableSource({
      'pv-a': fixedProvider(usage(100n)),
      'pv-b': hangingProvider(signals),
      'pv-c': fixedProvider(usage(300n)),
    });
    // One worker: the hung volume must not hold up the volume queued behind it.
    const { collector } = setup([a, b, c], source, { concurrency: 1, timeoutMs: 50 });
    const summary = await collector.collectOnce();
    assert.deepEqual({ volumes: summary.volumes, measured: summary.measured, failed: summary.failed }, { volumes: 3, measured: 2, failed: 1 });
    const got = byClaim(collector);
    assert.equal(got.get('a')?.metrics?.usedBytes, 100n);
    assert.equal(got.get('c')?.metrics?.usedBytes, 300n);
    assert.equal(got.get('b')?.metrics, undefined);
    assert.equal(got.get('b')?.error?.reason, 'timeout');
    assert.equal(signals.length, 1);
    assert.equal(signals[0].aborted, true, 'the provider was told to stop at the deadline');
  });

  test('a volume whose previous measurement is still running is skipped as busy instead of measured twice', async () => {
    const a = boundPair('a');
    let calls = 0;
    const stuck: MetricsProvider = {
      getMetrics: () => {
        calls += 1;
        return new Promise<VolumeMetrics>(() => undefined);
      },
    };
    const { collector } = setup([a], tableSource({ 'pv-a': stuck }), { timeoutMs: 20 });
    await collector.collectOnce();
    await collector.collectOnce();
    assert.equal(calls, 1);
    assert.equal(byClaim(collector).get('a')?.error?.reason, 'busy');
  });

  test('only volumes bound both ways to a claim in the store are measured and reported', async () => {
    const good = boundPair('good');
    const noClaim = boundPair('no-claim');
    const otherUid = boundPair('other-uid', { refUid: 'an-older-claim' });
    const claimPointsElsewhere = boundPair('elsewhere');
    const released = boundPair('released');
    released.pv.status = { phase: 'Released' };
    claimPointsElsewhere.pvc.spec.volumeName = 'pv-someone-else';
    const table = Object.fromEntries(
      [good, noClaim, otherUid, claimPointsElsewhere, released].map((p) => [p.pv.metadata.name ?? '', fixedProvider(usage(1n))]),
    );
    const source = tableSource(table);
    const volumes = new MapStore<PersistentVolume>([good, noClaim, otherUid, claimPointsElsewhere, released].map((p) => p.pv));
    volumes.put(unboundVolume('pv-available'));
    const claims = new MapStore<PersistentVolumeClaim>([good.pvc, otherUid.pvc, claimPointsElsewhere.pvc, released.pvc, pendingClaim('pending')]);
    const collector = new VolumeUsageCollector({ volumes, claims, source, periodMs: 0 });
    await collector.collectOnce();
    assert.deepEqual(source.asked, ['pv-good']);
    assert.deepEqual(
      collector.snapshot().map((u) => [u.namespace, u.claimName, u.pvName]),
      [['default', 'good', 'pv-good']],
    );
  });

  test('a failed measurement keeps the last good numbers and records the error; the next success clears it', async () => {
    const a = boundPair('a');
    let next: MetricsProvider = fixedProvider(usage(10n));
    const { collector } = setup([a], { providerFor: () => ({ plugin: 'p', provider: next }) });
    await collector.collectOnce();
    next = failingProvider('du exploded');
    await collector.collectOnce();
    let entry = byClaim(collector).get('a');
    assert.equal(entry?.metrics?.usedBytes, 10n);
    assert.equal(entry?.error?.reason, 'failed');
    assert.match(entry?.error?.message ?? '', /du exploded/);
    next = fixedProvider(usage(20n));
    await collector.collectOnce();
    entry = byClaim(collector).get('a');
    assert.equal(entry?.metrics?.usedBytes, 20n);
    assert.equal(entry?.error, undefined);
  });

  test('unsupported volumes, volumes no plugin owns and throwing plugins get their own reasons', async () => {
    const nil = boundPair('nil');
    const orphan = boundPair('orphan');
    const throwing = boundPair('throwing');
    const source: UsageSource = {
      providerFor: (pv) => {
        if (pv.metadata.name === 'pv-nil') return { plugin: 'cloud', provider: unsupportedProvider };
        if (pv.metadata.name === 'pv-throwing') throw new Error('metricsFor blew up');
        return undefined;
      },
    };
    const { collector } = setup([nil, orphan, throwing], source);
    await collector.collectOnce();
    const got = byClaim(collector);
    assert.equal(got.get('nil')?.error?.reason, 'not_supported');
    assert.equal(got.get('nil')?.plugin, 'cloud');
    assert.equal(got.get('orphan')?.error?.reason, 'no_plugin');
    assert.equal(got.get('orphan')?.plugin, 'N/A');
    assert.equal(got.get('throwing')?.error?.reason, 'failed');
  });

  test('a volume no plugin measures is warned about once, not on every pass, and again when it fails differently', async () => {
    const orphan = boundPair('orphan');
    const lines: Array<{ level: string; msg: string }> = [];
    const at = (level: string) => (_fields: object, msg: string) => void lines.push({ level, msg });
    const logger = { warn: at('warn'), debug: at('debug'), error: at('error'), info: at('info') } as unknown as UsageCollectorOptions['logger'];
    let owned = false;
    const source: UsageSource = { providerFor: () => (owned ? { plugin: 'p', provider: failingProvider('disk gone') } : undefined) };
    const { collector } = setup([orphan], source, { logger });
    for (let pass = 0; pass < 3; pass += 1) await collector.collectOnce();
    assert.deepEqual(lines.filter((l) => l.level === 'warn').length, 1, 'three passes, one warning');
    assert.equal(lines.filter((l) => l.msg === 'volume usage still not measured').length, 2);
    owned = true;
    await collector.collectOnce();
    assert.equal(lines.filter((l) => l.level === 'warn').length, 2, 'a new reason is said again');
  });

  test('never runs more measurements at once than its concurrency', async () => {
    const pairs = Array.from({ length: 12 }, (_, i) => boundPair(`v${i}`));
    let running = 0;
    let peak = 0;
    const gated: MetricsProvider = {
      getMetrics: async () => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((r) => setImmediate(r));
        running -= 1;
        return usage(1n);
      },
    };
    const { collector } = setup(pairs, { providerFor: () => ({ plugin: 'p', provider: gated }) }, { concurrency: 3 });
    const summary = await collector.collectOnce();
    assert.equal(summary.measured, 12);
    assert.equal(peak, 3);
  });

  test('a volume unbound after it was measured disappears from the snapshot before the next pass', async () => {
    const a = boundPair('a');
    const b = boundPair('b');
    const { collector, volumes, claims } = setup([a, b], { providerFor: () => ({ plugin: 'p', provider: fixedProvider(usage(5n)) }) });
    await collector.collectOnce();
    assert.equal(collector.snapshot().length, 2);
    claims.delete('default/a');
    volumes.put({ ...b.pv, status: { phase: 'Released' } });
    assert.deepEqual(collector.snapshot(), []);
  });

  test('tells its observer about every volume and every pass', async () => {
    const a = boundPair('a');
    const b = boundPair('b');
    const measured: string[] = [];
    const passes: number[] = [];
    const { collector } = setup([a, b], tableSource({ 'pv-a': fixedProvider(usage(1n)), 'pv-b': failingProvider('no') }, 'kubernetes.io/host-path'), {
      observer: {
        volumeMeasured: (plugin, seconds, error) => {
          assert.ok(seconds >= 0);
          measured.push(`${plugin} ${error ?? 'ok'}`);
        },
        passFinished: (s) => passes.push(s.volumes),
      },
    });
    await collector.collectOnce();
    assert.deepEqual(measured.sort(), ['kubernetes.io/host-path failed', 'kubernetes.io/host-path ok']);
    assert.deepEqual(passes, [2]);
  });
});

describe('VolumeUsageCollector loop', () => {
  test('measures again every period until stopped, then never again', async () => {
    const a = boundPair('a');
    let calls = 0;
    const counting: MetricsProvider = { getMetrics: () => Promise.resolve(usage(BigInt(++calls))) };
    const { collector } = setup([a], { providerFor: () => ({ plugin: 'p', provider: counting }) }, { periodMs: 5 });
    collector.start();
    await waitFor(() => calls >= 3, 'three passes');
    await collector.stop();
    const after = calls;
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(calls, after);
  });

  test('a period of 0 disables collection', async () => {
    const a = boundPair('a');
    const source = tableSource({ 'pv-a': fixedProvider(usage(1n)) });
    const { collector } = setup([a], source, { periodMs: 0 });
    collector.start();
    await new Promise((r) => setImmediate(r));
    await collector.stop();
    assert.deepEqual(source.asked, []);
    assert.equal(collector.lastPassSummary(), undefined);
  });

  test('measures nothing while inactive and starts once active', async () => {
    const a = boundPair('a');
    const source = tableSource({ 'pv-a': fixedProvider(usage(1n)) });
    let active = false;
    let checks = 0;
    const { collector } = setup([a], source, {
      periodMs: 5,
      active: () => {
        checks += 1;
        return active;
      },
    });
    collector.start();
    await waitFor(() => checks >= 2, 'two inactive checks');
    assert.deepEqual(source.asked, []);
    active = true;
    await waitFor(() => source.asked.length > 0, 'a measurement');
    await collector.stop();
    assert.equal(byClaim(collector).get('a')?.metrics?.usedBytes, 1n);
  });

  test('stop aborts a measurement in progress and returns even when the provider ignores the abort', async () => {
    const a = boundPair('a');
    const signals: AbortSignal[] = [];
    const { collector } = setup([a], tableSource({ 'pv-a': hangingProvider(signals) }), { periodMs: 60_000, timeoutMs: 60_000 });
    collector.start();
    await waitFor(() => signals.length === 1, 'the measurement to start');
    await collector.stop();
    assert.equal(signals[0].aborted, true);
  });
});
