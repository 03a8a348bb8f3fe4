/**
 * The API server's memory with 20,000 objects (10,000 PVs + 10,000 PVCs, the bench's mixed
 * fixtures), per storage kind: resident memory of a fresh server child right after start and once
 * every object is stored, and the difference per object. One repetition is enough: memory is not
 * noisy the way rates are.
 */
import { BENCH_NAMESPACE, claimFor, pairSpec, volumeFor } from '../fixtures.js';
import { connect, expectOk } from '../client/kube-client.js';
import { runPool } from '../client/pool.js';
import { currentRssBytes, peakRssBytes } from '../proc/child.js';
import { embeddedServerUnavailable, startApiServer, type BenchServer } from '../proc/servers.js';
import { failedRow, skippedRow, type BenchOptions, type ResultRow, type Scenario, type ScenarioResult } from '../scenario.js';
import { formatNumber } from '../stats.js';

const NAME = 'apiserver-memory';
const MB = 1024 * 1024;

export interface StoredMemory {
  /** Resident memory summed over the server's processes, right after start and once loaded. */
  baseline: number;
  loaded: number;
  peak: number;
  objects: number;
  /** Loaded RSS of each process, in the order of `server.pids`. */
  loadedByProcess: number[];
}

const sumOf = (values: number[]): number => values.reduce((a, b) => a + b, 0);

/** Stores `pairs` PVs and PVCs (the bench's mixed fixtures) on a fresh server and reads its RSS. */
export async function measureStoredMemory(server: BenchServer, pairs: number, concurrency: number): Promise<StoredMemory> {
  const client = await connect(server.kubeconfig);
  try {
    const baseline = sumOf(server.pids.map((pid) => currentRssBytes(pid) ?? 0));
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: BENCH_NAMESPACE } };
    expectOk(await client.raw('POST', '/api/v1/namespaces', JSON.stringify(ns)), 'create namespace');
    const runId = `mem${Date.now().toString(36)}`;
    await runPool(pairs, concurrency, async (i) => {
      const pair = pairSpec(runId, i);
      expectOk(await client.raw('POST', '/api/v1/persistentvolumes', JSON.stringify(volumeFor(pair))), 'create PV');
      const path = `/api/v1/namespaces/${BENCH_NAMESPACE}/persistentvolumeclaims`;
      expectOk(await client.raw('POST', path, JSON.stringify(claimFor(pair))), 'create PVC');
    });
    const loadedByProcess = server.pids.map((pid) => currentRssBytes(pid) ?? 0);
    const peak = sumOf(server.pids.map((pid) => peakRssBytes(pid) ?? 0));
    return { baseline, loaded: sumOf(loadedByProcess), peak, objects: pairs * 2, loadedByProcess };
  } finally {
    client.close();
  }
}

/** "149 MB (73 MB empty; 3.9 KB/object; peak 149 MB)". */
export function describeStoredMemory(m: StoredMemory): string {
  const perObject = (m.loaded - m.baseline) / m.objects;
  return `${(m.loaded / MB).toFixed(0)} MB (${(m.baseline / MB).toFixed(0)} MB empty; ${(perObject / 1024).toFixed(1)} KB/object; peak ${(m.peak / MB).toFixed(0)} MB)`;
}

/** measureStoredMemory on a server `start` starts fresh, stopped afterwards. */
export async function measureFreshServerMemory(start: () => Promise<BenchServer>, pairs: number, concurrency: number): Promise<StoredMemory> {
  const server = await start();
  try {
    return await measureStoredMemory(server, pairs, concurrency);
  } finally {
    await server.stop();
  }
}

async function run(opts: BenchOptions): Promise<ScenarioResult> {
  const pairs = opts.quick ? 500 : 10_000;
  const unavailable = opts.kubeconfig ? 'a real cluster\'s server memory is not ours to read' : await embeddedServerUnavailable(opts);
  const rows: ResultRow[] = [];
  const details: Record<string, unknown> = { pairs };
  for (const storage of opts.storages) {
    const label = `API server RSS with ${formatNumber(pairs * 2)} objects, ${storage}`;
    if (unavailable) {
      rows.push(skippedRow(NAME, label, unavailable));
      continue;
    }
    try {
      const m = await measureFreshServerMemory(() => startApiServer(opts, storage), pairs, opts.concurrency);
      details[storage] = m;
      rows.push({ scenario: NAME, label, status: 'ok', measured: describeStoredMemory(m) });
    } catch (err) {
      rows.push(failedRow(NAME, label, err));
    }
  }
  return { rows, details };
}

export const apiserverMemoryScenario: Scenario = {
  name: NAME,
  aliases: ['memory'],
  description: 'API server resident memory with 10k PVs + 10k PVCs stored (issue: memory at 20k objects)',
  run,
};
