/**
 * The write floor of binding: the writes that reach the API server during a bind run — the
 * claim's create (the user's) and the binder's four (PV claimRef, PV status Bound, PVC
 * volumeName, PVC status Bound) — issued by a bare client loop with the controller's kind of
 * client (plain JSON over one TLS keep-alive agent built from the kubeconfig, as
 * src/controller/client/transport.ts does) and the same concurrency, with no watching, caching
 * or deciding. A perfect controller could not bind faster than this on the same server.
 */
import { ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER, ANN_VALUE_YES } from '../../src/kube/annotations.js';
import type { PersistentVolume, PersistentVolumeClaim } from '../../src/kube/types.js';
import { expectOk, type BenchClient } from '../client/kube-client.js';
import { runPool } from '../client/pool.js';
import { BENCH_NAMESPACE, claimFor, pairSpec } from '../fixtures.js';
import { startProgress } from '../progress.js';

async function write<T>(client: BenchClient, method: 'POST' | 'PUT', path: string, body: unknown, what: string): Promise<T> {
  return JSON.parse(expectOk(await client.raw(method, path, JSON.stringify(body)), what).body) as T;
}

/** Binds pair `index` by hand: the five writes, in the binder's order. */
async function bindByHand(client: BenchClient, runId: string, index: number, volume: PersistentVolume): Promise<void> {
  const pair = pairSpec(runId, index);
  const claims = `/api/v1/namespaces/${BENCH_NAMESPACE}/persistentvolumeclaims`;
  const pvPath = `/api/v1/persistentvolumes/${pair.pvName}`;
  const claim = await write<PersistentVolumeClaim>(client, 'POST', claims, claimFor(pair), 'create claim');
  const pv = structuredClone(volume);
  pv.spec.claimRef = {
    kind: 'PersistentVolumeClaim',
    apiVersion: 'v1',
    namespace: BENCH_NAMESPACE,
    name: pair.claimName,
    uid: claim.metadata.uid,
    resourceVersion: claim.metadata.resourceVersion,
  };
  pv.metadata.annotations = { ...pv.metadata.annotations, [ANN_BOUND_BY_CONTROLLER]: ANN_VALUE_YES };
  const withClaimRef = await write<PersistentVolume>(client, 'PUT', pvPath, pv, 'bind PV');
  withClaimRef.status = { ...withClaimRef.status, phase: 'Bound' };
  await write(client, 'PUT', `${pvPath}/status`, withClaimRef, 'PV status Bound');
  claim.spec.volumeName = pair.pvName;
  claim.metadata.annotations = {
    ...claim.metadata.annotations,
    [ANN_BIND_COMPLETED]: ANN_VALUE_YES,
    [ANN_BOUND_BY_CONTROLLER]: ANN_VALUE_YES,
  };
  const withVolume = await write<PersistentVolumeClaim>(client, 'PUT', `${claims}/${pair.claimName}`, claim, 'bind claim');
  withVolume.status = { ...withVolume.status, phase: 'Bound', accessModes: volume.spec.accessModes, capacity: volume.spec.capacity };
  await write(client, 'PUT', `${claims}/${pair.claimName}/status`, withVolume, 'claim status Bound');
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
