/**
 * Untimed set-up shared by the bind run and its write floor: the namespace, the storage classes
 * and N PersistentVolumes already Available (created, then their status set), so that neither
 * measurement pays for them and both start from the same state.
 */
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { expectOk, type BenchClient } from '../client/kube-client.js';
import { runPool } from '../client/pool.js';
import { BENCH_NAMESPACE, classNames, namespaceObject, pairSpec, storageClass, volumeFor } from '../fixtures.js';
import { startProgress } from '../progress.js';

/** POST that treats 409 AlreadyExists as success (objects a previous run left behind). */
async function createIfMissing(client: BenchClient, path: string, body: unknown): Promise<void> {
  const res = await client.raw('POST', path, JSON.stringify(body));
  if (res.status !== 409) expectOk(res, `create ${path}`);
}

export async function ensureNamespaceAndClasses(client: BenchClient, runId: string): Promise<void> {
  await createIfMissing(client, '/api/v1/namespaces', namespaceObject());
  for (const name of classNames(runId)) {
    await createIfMissing(client, '/apis/storage.k8s.io/v1/storageclasses', storageClass(name));
  }
}

/**
 * In-flight requests of the untimed set-up, at least: 100,000 pairs mean 200,000 set-up writes,
 * and on a busy machine more requests per wake-up of the server is what speeds them up.
 */
const SETUP_CONCURRENCY = 64;

/** Creates PVs for pairs [0, count) and marks them Available; returns them as stored. */
export async function createAvailableVolumes(
  client: BenchClient,
  runId: string,
  count: number,
  concurrency: number,
  label: string,
): Promise<PersistentVolume[]> {
  const volumes = new Array<PersistentVolume>(count);
  const progress = startProgress(`${label} set-up`, count, 'PVs');
  try {
    await runPool(
      count,
      Math.max(concurrency, SETUP_CONCURRENCY),
      async (i) => {
        const created = expectOk(
          await client.raw('POST', '/api/v1/persistentvolumes', JSON.stringify(volumeFor(pairSpec(runId, i)))),
          'create PV',
        );
        const pv = JSON.parse(created.body) as PersistentVolume;
        pv.status = { ...pv.status, phase: 'Available' };
        const updated = expectOk(
          await client.raw('PUT', `/api/v1/persistentvolumes/${pv.metadata.name}/status`, JSON.stringify(pv)),
          'set PV status Available',
        );
        volumes[i] = JSON.parse(updated.body) as PersistentVolume;
      },
      progress,
    );
  } finally {
    progress.finish();
  }
  return volumes;
}

/** Deletes what a run created (for real clusters; embedded servers are simply discarded). */
export async function deleteRunObjects(client: BenchClient, runId: string, count: number, concurrency: number): Promise<void> {
  await runPool(count, concurrency, async (i) => {
    const pair = pairSpec(runId, i);
    await client.raw('DELETE', `/api/v1/namespaces/${BENCH_NAMESPACE}/persistentvolumeclaims/${pair.claimName}`);
    await client.raw('DELETE', `/api/v1/persistentvolumes/${pair.pvName}`);
  });
  for (const name of classNames(runId)) await client.raw('DELETE', `/apis/storage.k8s.io/v1/storageclasses/${name}`);
}
