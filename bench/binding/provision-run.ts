/**
 * One provision/reclaim measurement with the host-path plugin: a StorageClass for it, the
 * controller started with a fresh host-path root and proven live by a canary claim, then
 * (1) N claims created by the client loop, clock stopped when the last is Bound; and
 * (2) those N claims deleted, clock stopped when the last of their volumes is gone (policy
 * Delete: backing directory removed, PV object deleted). The directories the volumes name
 * (spec.hostPath.path) are checked on disk after each half, so a fast but wrong run cannot pass;
 * checking the volumes' own paths, not a root's entries, works for a provisioner whose root is
 * not ours to choose (kube-controller-manager's is /tmp/hostpath_pv, shared by the machine).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { connect, currentResourceVersion, expectOk, type BenchClient } from '../client/kube-client.js';
import { runPool } from '../client/pool.js';
import { BENCH_NAMESPACE, namespaceObject, provisioningClaim, storageClass } from '../fixtures.js';
import { startProgress } from '../progress.js';
import { cpuSnapshot, cpuSpent } from '../proc/child.js';
import { controllerAlive, type RunningControllerProcess } from '../proc/controller.js';
import { requestsBetween, type BenchServer, type ServerStats } from '../proc/servers.js';
import type { BenchOptions } from '../scenario.js';
import { trackBound } from './bound-watch.js';
import { trackDeletedVolumes } from './deleted-watch.js';
import { settled, type WallWindow } from './window.js';

export const HOST_PATH_PROVISIONER = 'kubernetes.io/host-path';

export interface ProvisionSample {
  provisionMs: number;
  deleteMs: number;
  directoriesAfterProvision: number;
  directoriesAfterDelete: number;
  /** Per volume, each way: successful writes (resourceVersion delta minus the bench's own), requests and 409s by the controller (server counters; null on a cluster). */
  traffic: { provision: Traffic; delete: Traffic };
  /** Each timed half on the wall clock (ms since the epoch) and SETTLE_MS more, to find its requests in an audit log. */
  windowsWallMs: { provision: WallWindow; delete: WallWindow };
  controllerPeakRssBytes: number | null;
}

/** Starts the controller under test against a server, with a fresh host-path root it may use. */
export type ProvisionLauncher = (kubeconfig: string, hostPathRoot: string) => Promise<RunningControllerProcess>;

export interface Traffic {
  writesPerVolume: number;
  requestsPerVolume: number | null;
  conflictsPerVolume: number | null;
  /** CPU time (user + system, /proc) per volume of the controller and of the API server; null when unreadable or a cluster. */
  controllerCpuMsPerVolume: number | null;
  serverCpuMsPerVolume: number | null;
  /** Requests per volume by "verb resource" (server counters, the bench's own included); null on a cluster. */
  byVerbResourcePerVolume: Record<string, number> | null;
}

/** Per-volume request counts by "verb resource" between two counter reads. */
export function perVolumeByVerb(before: ServerStats, after: ServerStats, n: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, count] of Object.entries(after.byVerbResource)) {
    const delta = count - (before.byVerbResource[key] ?? 0);
    if (delta > 0) out[key] = Number((delta / n).toFixed(3));
  }
  return out;
}

/** What the controller cost the API server while `work` ran, per volume; the bench made `benchRequests` of the requests (its writes bump the RV by one each). */
async function measured(
  client: BenchClient,
  server: BenchServer,
  controllerPid: number,
  n: number,
  work: () => Promise<number>,
): Promise<{ ms: number; traffic: Traffic; window: WallWindow }> {
  const rvBefore = await currentResourceVersion(client);
  const statsBefore = await server.stats();
  const cpuBefore = cpuSnapshot(controllerPid, server.pids);
  const from = Date.now();
  const ms = await work();
  const cpu = cpuSpent(cpuBefore, cpuSnapshot(controllerPid, server.pids), n);
  const window = { from, to: await settled() };
  const statsAfter = await server.stats();
  const rvAfter = await currentResourceVersion(client);
  const both = statsBefore && statsAfter;
  return {
    ms,
    window,
    traffic: {
      writesPerVolume: (rvAfter - rvBefore - n) / n,
      requestsPerVolume: both ? (requestsBetween(statsBefore, statsAfter) - n) / n : null,
      conflictsPerVolume: both ? (statsAfter.conflicts - statsBefore.conflicts) / n : null,
      controllerCpuMsPerVolume: cpu.controller,
      serverCpuMsPerVolume: cpu.server,
      byVerbResourcePerVolume: both ? perVolumeByVerb(statsBefore, statsAfter, n) : null,
    },
  };
}

/** Creates an object; one that exists already is fine. */
export async function createIfMissing(client: BenchClient, path: string, body: unknown): Promise<void> {
  const res = await client.raw('POST', path, JSON.stringify(body));
  if (res.status !== 409) expectOk(res, `create ${path}`);
}

/** Where each named volume keeps its data on this machine (its hostPath), from one PV list. */
async function hostPathsOf(client: BenchClient, names: ReadonlySet<string>): Promise<string[]> {
  const res = expectOk(await client.raw('GET', '/api/v1/persistentvolumes'), 'list PVs');
  const items = (JSON.parse(res.body) as { items: PersistentVolume[] }).items;
  return items.filter((pv) => names.has(pv.metadata.name ?? '')).map((pv) => pv.spec.hostPath?.path ?? '');
}

function countExisting(paths: readonly string[]): number {
  return paths.filter((p) => p !== '' && existsSync(p)).length;
}

async function timed(label: string, n: number, unit: string, work: (progress: ReturnType<typeof startProgress>) => Promise<void>): Promise<number> {
  const progress = startProgress(label, n, unit);
  const startedAt = performance.now();
  try {
    await work(progress);
    return performance.now() - startedAt;
  } finally {
    progress.finish();
  }
}

export async function runProvision(
  opts: BenchOptions,
  server: BenchServer,
  runId: string,
  n: number,
  launch: ProvisionLauncher,
): Promise<ProvisionSample> {
  const root = join(opts.workDir, `host-path-${runId}`);
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const className = `bench-${runId}-host-path`;
  const client = await connect(server.kubeconfig);
  const claimsPath = `/api/v1/namespaces/${BENCH_NAMESPACE}/persistentvolumeclaims`;
  const create = async (i: number): Promise<void> => {
    expectOk(await client.raw('POST', claimsPath, JSON.stringify(provisioningClaim(runId, i, className))), 'create claim');
  };
  await createIfMissing(client, '/api/v1/namespaces', namespaceObject());
  await createIfMissing(client, '/apis/storage.k8s.io/v1/storageclasses', storageClass(className, HOST_PATH_PROVISIONER));
  const bound = await trackBound(client, await currentResourceVersion(client));
  const controller = await launch(server.kubeconfig, root);
  const alive = controllerAlive(controller);
  try {
    await create(n); // the canary
    await bound.waitForBound(`bench-${runId}-dyn-${n}`, 1, alive, 30_000).catch((err: unknown) => {
      throw new Error(`the canary claim was not provisioned (is a host-path provisioner running in the controller?): ${String(err)}`);
    });
    const provision = await measured(client, server, controller.pid, n, () =>
      timed(`provision ${n}`, n, 'claims', async (progress) => {
        await runPool(n, opts.concurrency, create);
        await bound.waitForBound(`bench-${runId}-dyn-`, n + 1, () => {
          alive();
          progress.advance(bound.boundAt.size - 1 - progress.done());
        });
      }),
    );
    const volumes = new Set<string>();
    for (let i = 0; i < n; i++) volumes.add(bound.volumeOf.get(`bench-${runId}-dyn-${i}`) ?? '');
    const paths = await hostPathsOf(client, volumes);
    const directoriesAfterProvision = countExisting(paths);
    const deleted = await trackDeletedVolumes(client, await currentResourceVersion(client));
    try {
      const reclaim = await measured(client, server, controller.pid, n, () =>
        timed(`delete ${n}`, n, 'volumes', async (progress) => {
          await runPool(n, opts.concurrency, async (i) => {
            expectOk(await client.raw('DELETE', `${claimsPath}/bench-${runId}-dyn-${i}`), 'delete claim');
          });
          await deleted.waitForDeleted(volumes, () => {
            alive();
            progress.advance(deleted.deletedAt.size - progress.done());
          });
        }),
      );
      return {
        provisionMs: provision.ms,
        deleteMs: reclaim.ms,
        directoriesAfterProvision,
        directoriesAfterDelete: countExisting(paths),
        traffic: { provision: provision.traffic, delete: reclaim.traffic },
        windowsWallMs: { provision: provision.window, delete: reclaim.window },
        controllerPeakRssBytes: controller.peakRss(),
      };
    } finally {
      deleted.stop();
    }
  } finally {
    bound.stop();
    await controller.stop();
    client.close();
  }
}
