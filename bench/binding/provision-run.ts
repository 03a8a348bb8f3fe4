/**
 * One provision/reclaim measurement with the host-path plugin: a StorageClass for it, the
 * controller started with a fresh host-path root and proven live by a canary claim, then
 * (1) N claims created by the client loop, clock stopped when the last is Bound; and
 * (2) those N claims deleted, clock stopped when the last of their volumes is gone (policy
 * Delete: backing directory removed, PV object deleted). The directories on disk are counted
 * after each half, so a fast but wrong run cannot pass.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { connect, currentResourceVersion, expectOk, type BenchClient } from '../client/kube-client.js';
import { runPool } from '../client/pool.js';
import { BENCH_NAMESPACE, namespaceObject, provisioningClaim, storageClass } from '../fixtures.js';
import { startProgress } from '../progress.js';
import { cpuSnapshot, cpuSpent, logTail } from '../proc/child.js';
import { startController, type OptionalFlag } from '../proc/controller.js';
import { requestsBetween, type BenchServer } from '../proc/servers.js';
import type { BenchOptions } from '../scenario.js';
import { trackBound } from './bound-watch.js';
import { trackDeletedVolumes } from './deleted-watch.js';

export const HOST_PATH_PROVISIONER = 'kubernetes.io/host-path';

export interface ProvisionSample {
  provisionMs: number;
  deleteMs: number;
  directoriesAfterProvision: number;
  directoriesAfterDelete: number;
  /** Per volume, each way: successful writes (resourceVersion delta minus the bench's own), requests and 409s by the controller (server counters; null on a cluster). */
  traffic: { provision: Traffic; delete: Traffic };
}

export interface Traffic {
  writesPerVolume: number;
  requestsPerVolume: number | null;
  conflictsPerVolume: number | null;
  /** CPU time (user + system, /proc) per volume of the controller and of the API server; null when unreadable or a cluster. */
  controllerCpuMsPerVolume: number | null;
  serverCpuMsPerVolume: number | null;
}

/** What the controller cost the API server while `work` ran, per volume; the bench made `benchRequests` of the requests (its writes bump the RV by one each). */
async function measured(
  client: BenchClient,
  server: BenchServer,
  controllerPid: number,
  n: number,
  work: () => Promise<number>,
): Promise<{ ms: number; traffic: Traffic }> {
  const rvBefore = await currentResourceVersion(client);
  const statsBefore = await server.stats();
  const cpuBefore = cpuSnapshot(controllerPid, server.child?.pid);
  const ms = await work();
  const cpu = cpuSpent(cpuBefore, cpuSnapshot(controllerPid, server.child?.pid), n);
  const statsAfter = await server.stats();
  const rvAfter = await currentResourceVersion(client);
  const both = statsBefore && statsAfter;
  return {
    ms,
    traffic: {
      writesPerVolume: (rvAfter - rvBefore - n) / n,
      requestsPerVolume: both ? (requestsBetween(statsBefore, statsAfter) - n) / n : null,
      conflictsPerVolume: both ? (statsAfter.conflicts - statsBefore.conflicts) / n : null,
      controllerCpuMsPerVolume: cpu.controller,
      serverCpuMsPerVolume: cpu.server,
    },
  };
}

async function createIfMissing(client: BenchClient, path: string, body: unknown): Promise<void> {
  const res = await client.raw('POST', path, JSON.stringify(body));
  if (res.status !== 409) expectOk(res, `create ${path}`);
}

function countEntries(dir: string): number {
  return readdirSync(dir).filter((name) => !name.startsWith('.')).length;
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
  rootFlag: (root: string) => OptionalFlag[],
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
  const controller = startController(opts, { kubeconfig: server.kubeconfig, flags: rootFlag(root) });
  const alive = (): void => {
    const status = controller.child.exitStatus();
    if (status !== undefined) throw new Error(`controller exited (${status}):\n${logTail(controller.child.logPath)}`);
  };
  try {
    await create(n); // the canary
    await bound.waitForBound(`bench-${runId}-dyn-${n}`, 1, alive, 30_000).catch((err: unknown) => {
      throw new Error(`the canary claim was not provisioned (is a host-path provisioner running in the controller?): ${String(err)}`);
    });
    const provision = await measured(client, server, controller.child.pid, n, () =>
      timed(`provision ${n}`, n, 'claims', async (progress) => {
        await runPool(n, opts.concurrency, create);
        await bound.waitForBound(`bench-${runId}-dyn-`, n + 1, () => {
          alive();
          progress.advance(bound.boundAt.size - 1 - progress.done());
        });
      }),
    );
    const directoriesAfterProvision = countEntries(root) - 1;
    const volumes = new Set<string>();
    for (let i = 0; i < n; i++) volumes.add(bound.volumeOf.get(`bench-${runId}-dyn-${i}`) ?? '');
    const deleted = await trackDeletedVolumes(client, await currentResourceVersion(client));
    try {
      const reclaim = await measured(client, server, controller.child.pid, n, () =>
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
        directoriesAfterDelete: countEntries(root) - 1,
        traffic: { provision: provision.traffic, delete: reclaim.traffic },
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
