/**
 * csi-speed and csi-expand, one provisioner under test each: (speed) N claims of the CSI class
 * created and provisioned until Bound, then deleted until the driver has no volume; (expand) N
 * bound claims grown from 1Gi to 2Gi until each claim's status.capacity says so. Clocks, the
 * per-claim latencies and the CPU (user + system, /proc) and peak RSS (VmHWM) of the processes
 * doing the work: the provisioner under test, and kube-controller-manager, whose binder binds
 * for external-provisioner (ours binds itself; its KCM runs only the protection controllers).
 */
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { trackBound } from '../binding/bound-watch.js';
import { currentResourceVersion, expectOk } from '../client/kube-client.js';
import { runPool } from '../client/pool.js';
import type { ProvisionerKind } from './binaries.js';
import { cpuTimeMs, peakRssBytes, waitFor } from '../proc/child.js';
import { createClaims, deleteClaims, latencies, requestStorage, trackClaims, waitDriverEmpty, waitWithProgress } from './claims.js';
import { CLAIMS_PATH, type CsiWorld } from './world.js';

export interface CpuMs {
  /** The provisioner under test (csi-provisioner or ours); for expansion, the expanding process (csi-resizer or ours). */
  underTest: number | null;
  kcm: number | null;
}

export interface Phase {
  ms: number;
  perSecond: number;
  p50Ms: number | null;
  p99Ms: number | null;
  /** CPU ms per volume over the phase. */
  cpuMsPerVolume: CpuMs;
}

export interface SpeedSample {
  provisioner: ProvisionerKind;
  n: number;
  provision: Phase;
  /** Deleting: no latency per claim (until the driver is empty). */
  delete: Phase;
  /** The driver's side of provisioning: volumes made per second, first to last CreateVolume answered OK (its log's clock). */
  driverCreatesPerSecond: number | null;
  peakRssBytes: number | null;
}

export interface ExpandSample {
  provisioner: ProvisionerKind;
  n: number;
  expand: Phase;
  peakRssBytes: number | null;
}

function cpuOf(pids: { underTest: number; kcm: number }): CpuMs {
  return { underTest: cpuTimeMs(pids.underTest), kcm: cpuTimeMs(pids.kcm) };
}

function perVolume(before: CpuMs, after: CpuMs, n: number): CpuMs {
  const d = (a: number | null, b: number | null): number | null => (a === null || b === null ? null : (b - a) / n);
  return { underTest: d(before.underTest, after.underTest), kcm: d(before.kcm, after.kcm) };
}

function phase(ms: number, n: number, lat: { p50: number | null; p99: number | null }, cpu: CpuMs): Phase {
  return { ms, perSecond: (n * 1000) / ms, p50Ms: lat.p50, p99Ms: lat.p99, cpuMsPerVolume: cpu };
}

/** One claim provisioned, bound and deleted to nothing: the provisioner is live before any clock starts. */
export async function canary(world: CsiWorld): Promise<void> {
  await createClaims(world.client, 'canary-', 1, 1);
  await waitFor('the canary claim Bound', async () => {
    world.checkAlive();
    const claim = JSON.parse(expectOk(await world.client.raw('GET', `${CLAIMS_PATH}/canary-0`), 'get canary').body) as PersistentVolumeClaim;
    return claim.status?.phase === 'Bound' ? true : undefined;
  }, 180_000, 200);
  await deleteClaims(world.client, 'canary-', 1, 1);
  await waitDriverEmpty(world);
}

/** Creates `prefix0..` and waits until every one is Bound; returns the phase without CPU. */
async function provisionAll(world: CsiWorld, prefix: string, n: number, concurrency: number): Promise<{ ms: number; lat: { p50: number | null; p99: number | null } }> {
  const tracker = await trackBound(world.client, await currentResourceVersion(world.client));
  try {
    const t0 = performance.now();
    const sentAt = await createClaims(world.client, prefix, n, concurrency);
    await tracker.waitForBound(prefix, n, () => world.checkAlive(), 120_000);
    const last = Math.max(...[...tracker.boundAt].filter(([name]) => name.startsWith(prefix)).map(([, t]) => t));
    return { ms: last - t0, lat: latencies(sentAt, tracker.boundAt) };
  } finally {
    tracker.stop();
  }
}

export async function measureSpeed(world: CsiWorld, n: number, concurrency: number): Promise<SpeedSample> {
  await canary(world);
  const pids = { underTest: world.provisioner().provisioner.pid, kcm: world.kcm.pid };
  const cpu0 = cpuOf(pids);
  const fromWallMs = Date.now();
  const provisioned = await provisionAll(world, 'speed-', n, concurrency);
  const made = world.driver.ledger.refresh().createdSince(fromWallMs);
  const cpu1 = cpuOf(pids);
  const t1 = performance.now();
  await deleteClaims(world.client, 'speed-', n, concurrency);
  await waitDriverEmpty(world);
  const deleteMs = performance.now() - t1;
  const cpu2 = cpuOf(pids);
  return {
    provisioner: world.kind,
    n,
    provision: phase(provisioned.ms, n, provisioned.lat, perVolume(cpu0, cpu1, n)),
    delete: phase(deleteMs, n, { p50: null, p99: null }, perVolume(cpu1, cpu2, n)),
    driverCreatesPerSecond: made.spanMs > 0 ? ((made.count - 1) * 1000) / made.spanMs : null,
    peakRssBytes: peakRssBytes(pids.underTest),
  };
}

const GROWN = '2Gi';

export async function measureExpand(world: CsiWorld, n: number, concurrency: number): Promise<ExpandSample> {
  await canary(world);
  await provisionAll(world, 'grow-', n, concurrency);
  const pids = { underTest: world.provisioner().expander().pid, kcm: world.kcm.pid };
  const grown = (c: PersistentVolumeClaim): boolean => c.status?.capacity?.storage === GROWN;
  const tracker = await trackClaims(world.client, await currentResourceVersion(world.client), grown);
  try {
    const cpu0 = cpuOf(pids);
    const requestedAt = new Map<string, number>();
    const t0 = performance.now();
    await runPool(n, concurrency, async (i) => {
      requestedAt.set(`grow-${i}`, performance.now());
      await requestStorage(world.client, `grow-${i}`, GROWN);
    });
    const count = (): number => [...tracker.seenAt.keys()].filter((k) => k.startsWith('grow-')).length;
    await waitWithProgress(`${n} claims grown to ${GROWN}`, () => count() >= n, count, () => world.checkAlive());
    const last = Math.max(...[...tracker.seenAt].filter(([name]) => name.startsWith('grow-')).map(([, t]) => t));
    const cpu1 = cpuOf(pids);
    return {
      provisioner: world.kind,
      n,
      expand: phase(last - t0, n, latencies(requestedAt, tracker.seenAt), perVolume(cpu0, cpu1, n)),
      peakRssBytes: peakRssBytes(pids.underTest),
    };
  } finally {
    tracker.stop();
  }
}
