/**
 * One bind measurement: N Available PVs (untimed set-up), the controller started and proven
 * live by a canary pair, then N claims created by the client loop while the controller binds.
 * The clock runs from the first claim create to the last claim seen Bound; each claim's latency
 * runs from its create request to its Bound event. API writes per bound claim come from the
 * server's global resourceVersion (every successful write bumps it by one) minus the bench's own
 * creates; the controller's peak RSS from /proc.
 */
import type { V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { connect, currentResourceVersion, type BenchClient } from '../client/kube-client.js';
import { runPool } from '../client/pool.js';
import { BENCH_NAMESPACE, claimFor, pairSpec } from '../fixtures.js';
import { startProgress } from '../progress.js';
import { cpuSnapshot, cpuSpent, ownCpuMsSince, peakRssBytes } from '../proc/child.js';
import { controllerAlive, startController, type OptionalFlag, type RunningControllerProcess } from '../proc/controller.js';
import { requestsBetween, type BenchServer } from '../proc/servers.js';
import type { BenchOptions } from '../scenario.js';
import { trackBound, type BoundTracker } from './bound-watch.js';
import { settled, type WallWindow } from './window.js';
import { createAvailableVolumes, deleteRunObjects, ensureNamespaceAndClasses } from './setup.js';

export interface BindSample {
  bindMs: number;
  /** Per-claim create → Bound, milliseconds. */
  latenciesMs: number[];
  /** Successful API writes during the window, other than the bench's claim creates. */
  controllerWrites: number;
  /** Requests the server answered in the window, other than the bench's claim creates; null without server counters. */
  controllerRequests: number | null;
  /** 409 Conflict responses in the window; null without server counters. */
  conflicts: number | null;
  /** CPU time (user + system, /proc) the controller and the API server spent in the bind window; null when unreadable. */
  controllerCpuMs: number | null;
  serverCpuMs: number | null;
  /** CPU ms of the bench's own process in the window (its claim creates and its Bound watch). */
  clientCpuMs: number;
  /** Distinct volumes the claims were bound to (should equal N). */
  distinctVolumes: number;
  controllerPeakRssBytes: number | null;
  /** VmHWM of the API server's process (its first process: kube-apiserver, not etcd); null when unreadable. */
  serverPeakRssBytes: number | null;
  /** The timed window on the wall clock (ms since the epoch) and SETTLE_MS more, to find its requests in an audit log. */
  windowWallMs: WallWindow;
  /** Times the server ended the Bound watch and it was resumed; a re-list stamps claims late. */
  watchResumes: { reopened: number; relisted: number };
}

/** Starts the controller under test against a server's kubeconfig. */
export type LaunchController = (kubeconfig: string) => Promise<RunningControllerProcess>;

export const launchOurController =
  (opts: BenchOptions, flags: OptionalFlag[] = []): LaunchController =>
  async (kubeconfig) =>
    startController(opts, { kubeconfig, flags });

/** Creates pair `index`'s claim with the same client as the floor's creates. */
async function createClaim(client: BenchClient, runId: string, index: number): Promise<void> {
  const body = claimFor(pairSpec(runId, index)) as V1PersistentVolumeClaim;
  await client.core.createNamespacedPersistentVolumeClaim({ namespace: BENCH_NAMESPACE, body });
}

/**
 * How long the canary may take: the controller first lists and syncs the N PVs of the set-up
 * (5,000 took 13 s and 20,000 took 26 s on a busy machine; 100,000 took over 6 minutes there),
 * so the allowance grows with N. The controller is checked alive all the while.
 */
const canaryAllowanceMs = (n: number): number => 60_000 + 10 * n;

/** Creates pair `n`'s claim (its PV exists) and waits until the controller has bound it. */
export async function bindCanary(client: BenchClient, runId: string, n: number, tracker: BoundTracker, alive: () => void): Promise<void> {
  await createClaim(client, runId, n);
  await tracker.waitForBound(pairSpec(runId, n).claimName, 1, alive, canaryAllowanceMs(n));
}

async function createClaimsUntilBound(
  opts: BenchOptions,
  client: BenchClient,
  runId: string,
  n: number,
  tracker: BoundTracker,
  alive: () => void,
): Promise<{ startedAt: number; createdAt: number[] }> {
  const createdAt = new Array<number>(n);
  const progress = startProgress(`bind ${n}: claims Bound`, n, 'claims');
  const progressTimer = setInterval(() => progress.advance(tracker.boundAt.size - 1 - progress.done()), 200);
  const startedAt = performance.now();
  try {
    await runPool(n, opts.concurrency, async (i) => {
      createdAt[i] = performance.now();
      await createClaim(client, runId, i);
    });
    await tracker.waitForBound(`bench-${runId}-claim-`, n + 1, alive);
  } finally {
    clearInterval(progressTimer);
    progress.advance(tracker.boundAt.size - 1 - progress.done());
    progress.finish();
  }
  return { startedAt, createdAt };
}

export async function runBind(
  opts: BenchOptions,
  server: BenchServer,
  runId: string,
  n: number,
  launch: LaunchController = launchOurController(opts),
): Promise<BindSample> {
  const client = await connect(server.kubeconfig);
  let controller: RunningControllerProcess | undefined;
  let tracker: BoundTracker | undefined;
  try {
    await ensureNamespaceAndClasses(client, runId);
    await createAvailableVolumes(client, runId, n + 1, opts.concurrency, `bind ${n}`);
    tracker = await trackBound(client, await currentResourceVersion(client));
    controller = await launch(server.kubeconfig);
    const alive = controllerAlive(controller);
    await bindCanary(client, runId, n, tracker, alive);
    const rvBefore = await currentResourceVersion(client);
    const statsBefore = await server.stats();
    const cpuBefore = cpuSnapshot(controller.pid, server.pids);
    const clientCpuBefore = process.cpuUsage();
    const wallFrom = Date.now();
    const { startedAt, createdAt } = await createClaimsUntilBound(opts, client, runId, n, tracker, alive);
    const cpu = cpuSpent(cpuBefore, cpuSnapshot(controller.pid, server.pids));
    const clientCpuMs = ownCpuMsSince(clientCpuBefore);
    const wallTo = await settled();
    const statsAfter = await server.stats();
    const rvAfter = await currentResourceVersion(client);
    const latenciesMs: number[] = [];
    let lastBound = startedAt;
    for (let i = 0; i < n; i++) {
      const at = tracker.boundAt.get(pairSpec(runId, i).claimName)!;
      latenciesMs.push(Math.max(0, at - createdAt[i]));
      lastBound = Math.max(lastBound, at);
    }
    const volumes = new Set([...tracker.volumeOf.values()].filter(Boolean));
    return {
      bindMs: lastBound - startedAt,
      latenciesMs,
      controllerWrites: rvAfter - rvBefore - n,
      controllerRequests: statsBefore && statsAfter ? requestsBetween(statsBefore, statsAfter) - n : null,
      conflicts: statsBefore && statsAfter ? statsAfter.conflicts - statsBefore.conflicts : null,
      controllerCpuMs: cpu.controller,
      serverCpuMs: cpu.server,
      clientCpuMs,
      distinctVolumes: volumes.size - 1, // minus the canary's
      controllerPeakRssBytes: controller.peakRss(),
      serverPeakRssBytes: server.pids.length > 0 ? peakRssBytes(server.pids[0]) : null,
      windowWallMs: { from: wallFrom, to: wallTo },
      watchResumes: tracker.resumes(),
    };
  } finally {
    tracker?.stop();
    await controller?.stop();
    if (server.kind === 'cluster') await deleteRunObjects(client, runId, n + 1, opts.concurrency);
    client.close();
  }
}
