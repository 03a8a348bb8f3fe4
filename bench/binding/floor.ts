/**
 * The write floor of binding: the writes that reach the API server during a bind run — the
 * claim's create (the user's) and the binder's four (PV claimRef, PV status Bound, PVC
 * volumeName, PVC status Bound) — issued by a bare client loop with the controller's kind of
 * client (@kubernetes/client-node's CoreV1Api over one TLS keep-alive agent) and the same
 * concurrency, with no watching, caching or deciding. A perfect controller could not bind
 * faster than this on the same server.
 */
import type { V1PersistentVolume, V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER, ANN_VALUE_YES } from '@pv-controller/kube/annotations.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { connect, type BenchClient } from '../client/kube-client.js';
import { runPool } from '../client/pool.js';
import { BENCH_NAMESPACE, claimFor, pairSpec } from '../fixtures.js';
import { ownCpuMsSince, serverCpuTimeMs } from '../proc/child.js';
import type { BenchServer } from '../proc/servers.js';
import { startProgress } from '../progress.js';
import type { BenchOptions } from '../scenario.js';
import { createAvailableVolumes, deleteRunObjects, ensureNamespaceAndClasses } from './setup.js';

/** Binds pair `index` by hand: the five writes, in the binder's order. */
async function bindByHand(client: BenchClient, runId: string, index: number, volume: PersistentVolume): Promise<void> {
  const pair = pairSpec(runId, index);
  const namespace = BENCH_NAMESPACE;
  const claim = await client.core.createNamespacedPersistentVolumeClaim({ namespace, body: claimFor(pair) as V1PersistentVolumeClaim });
  const pv = structuredClone(volume) as V1PersistentVolume;
  pv.spec!.claimRef = {
    kind: 'PersistentVolumeClaim',
    apiVersion: 'v1',
    namespace,
    name: pair.claimName,
    uid: claim.metadata!.uid,
    resourceVersion: claim.metadata!.resourceVersion,
  };
  pv.metadata!.annotations = { ...pv.metadata!.annotations, [ANN_BOUND_BY_CONTROLLER]: ANN_VALUE_YES };
  const withClaimRef = await client.core.replacePersistentVolume({ name: pair.pvName, body: pv });
  withClaimRef.status = { ...withClaimRef.status, phase: 'Bound' };
  await client.core.replacePersistentVolumeStatus({ name: pair.pvName, body: withClaimRef });
  claim.spec!.volumeName = pair.pvName;
  claim.metadata!.annotations = {
    ...claim.metadata!.annotations,
    [ANN_BIND_COMPLETED]: ANN_VALUE_YES,
    [ANN_BOUND_BY_CONTROLLER]: ANN_VALUE_YES,
  };
  const withVolume = await client.core.replaceNamespacedPersistentVolumeClaim({ name: pair.claimName, namespace, body: claim });
  withVolume.status = { ...withVolume.status, phase: 'Bound', accessModes: volume.spec.accessModes, capacity: volume.spec.capacity };
  await client.core.replaceNamespacedPersistentVolumeClaimStatus({ name: pair.claimName, namespace, body: withVolume });
}

export const FLOOR_WRITES_PER_PAIR = 5;

/** Times binding `volumes.length` pairs by hand; returns elapsed milliseconds. */
export async function runWriteFloor(
  client: BenchClient,
  runId: string,
  volumes: PersistentVolume[],
  concurrency: number,
  label: string,
): Promise<number> {
  const progress = startProgress(`${label} floor`, volumes.length, 'pairs');
  try {
    const result = await runPool(volumes.length, concurrency, (i) => bindByHand(client, runId, i, volumes[i]), progress);
    return result.elapsedMs;
  } finally {
    progress.finish();
  }
}

export interface FloorSample {
  ms: number;
  /** CPU ms (user + system) the API server and the bench's own process spent in the timed loop; null when unreadable. */
  serverCpuMs: number | null;
  clientCpuMs: number;
}

/** The floor on a running server: the bind run's untimed set-up, then the timed hand-binding. */
export async function measureFloorOn(opts: BenchOptions, server: BenchServer, runId: string, n: number, label: string): Promise<FloorSample> {
  const client = await connect(server.kubeconfig);
  try {
    await ensureNamespaceAndClasses(client, runId);
    const volumes = await createAvailableVolumes(client, runId, n, opts.concurrency, `floor ${n}`);
    const serverBefore = serverCpuTimeMs(server.pids);
    const clientBefore = process.cpuUsage();
    const ms = await runWriteFloor(client, runId, volumes, opts.concurrency, label);
    const clientCpuMs = ownCpuMsSince(clientBefore);
    const serverAfter = serverCpuTimeMs(server.pids);
    return { ms, serverCpuMs: serverBefore === null || serverAfter === null ? null : serverAfter - serverBefore, clientCpuMs };
  } finally {
    if (server.kind === 'cluster') await deleteRunObjects(client, runId, n, opts.concurrency);
    client.close();
  }
}
