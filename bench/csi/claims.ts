/**
 * The claims of the CSI runs and the waits on them: claims of the CSI class created and deleted
 * by the bench's client loop (each one's send time kept, for create→Bound), a watch for a claim
 * condition (capacity grown), and the wait until the driver has no volume left.
 */
import type { PersistentVolumeClaim, WatchEvent } from '@pv-controller/kube/types.js';
import { expectOk, type BenchClient } from '../client/kube-client.js';
import { runPool } from '../client/pool.js';
import { resumableWatch } from '../client/resumable-watch.js';
import { BENCH_NAMESPACE } from '../fixtures.js';
import { percentile } from '../stats.js';
import { CLAIMS_PATH, CSI_CLASS, type CsiWorld } from './world.js';

export function csiClaim(name: string, storage = '1Gi'): PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: BENCH_NAMESPACE },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } }, storageClassName: CSI_CLASS },
  };
}

/** Creates `prefix0..prefix(n-1)`, `concurrency` in flight; returns each one's send time (performance.now()). */
export async function createClaims(client: BenchClient, prefix: string, n: number, concurrency: number): Promise<Map<string, number>> {
  const sentAt = new Map<string, number>();
  await runPool(n, concurrency, async (i) => {
    const name = `${prefix}${i}`;
    sentAt.set(name, performance.now());
    expectOk(await client.raw('POST', CLAIMS_PATH, JSON.stringify(csiClaim(name))), `create claim ${name}`);
  });
  return sentAt;
}

export async function deleteClaims(client: BenchClient, prefix: string, n: number, concurrency: number): Promise<void> {
  await runPool(n, concurrency, async (i) => {
    expectOk(await client.raw('DELETE', `${CLAIMS_PATH}/${prefix}${i}`), `delete claim ${prefix}${i}`);
  });
}

/** Sets a claim's storage request (GET + PUT, again on 409: other controllers write claims too). */
export async function requestStorage(client: BenchClient, name: string, storage: string): Promise<void> {
  for (;;) {
    const claim = JSON.parse(expectOk(await client.raw('GET', `${CLAIMS_PATH}/${name}`), `get claim ${name}`).body) as PersistentVolumeClaim;
    claim.spec.resources = { ...claim.spec.resources, requests: { ...claim.spec.resources?.requests, storage } };
    const res = await client.raw('PUT', `${CLAIMS_PATH}/${name}`, JSON.stringify(claim));
    if (res.status !== 409) return void expectOk(res, `grow claim ${name}`);
  }
}

/** Polls until `done` holds, failing when nothing changed (`progress`) for `stallMs`. */
export async function waitWithProgress(what: string, done: () => Promise<boolean> | boolean, progress: () => number | Promise<number>, check: () => void, stallMs = 60_000): Promise<void> {
  let last = Number.NaN;
  let lastChange = Date.now();
  for (;;) {
    check();
    if (await done()) return;
    const now = await progress();
    if (now !== last) {
      last = now;
      lastChange = Date.now();
    } else if (Date.now() - lastChange > stallMs) {
      throw new Error(`${what}: no progress for ${stallMs / 1000} s (at ${now})`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Resolves once the driver's log shows no live volume. */
export function waitDriverEmpty(world: CsiWorld): Promise<void> {
  const live = (): number => world.driver.ledger.refresh().liveVolumes().length;
  return waitWithProgress('the driver to have no volume', () => live() === 0, live, () => world.checkAlive());
}

export interface ClaimConditionTracker {
  /** Claim name → performance.now() when first seen matching. */
  seenAt: Map<string, number>;
  stop(): void;
}

/** Watches the bench namespace's claims from `fromResourceVersion` and stamps each the first time `matches` holds. */
export async function trackClaims(client: BenchClient, fromResourceVersion: number, matches: (c: PersistentVolumeClaim) => boolean): Promise<ClaimConditionTracker> {
  const seenAt = new Map<string, number>();
  const mark = (claim: PersistentVolumeClaim): void => {
    const name = claim.metadata.name ?? '';
    if (!seenAt.has(name) && matches(claim)) seenAt.set(name, performance.now());
  };
  const watch = await resumableWatch(client, {
    path: CLAIMS_PATH,
    fromResourceVersion,
    onLine: (line) => mark((JSON.parse(line) as WatchEvent<PersistentVolumeClaim>).object),
    async relist() {
      const list = JSON.parse(expectOk(await client.raw('GET', CLAIMS_PATH), 'list claims').body) as { metadata: { resourceVersion?: string }; items: PersistentVolumeClaim[] };
      list.items.forEach(mark);
      return Number(list.metadata.resourceVersion);
    },
  });
  return { seenAt, stop: () => watch.stop() };
}

/** p50 and p99 of `end - start` over the names both maps have (ms). */
export function latencies(start: ReadonlyMap<string, number>, end: ReadonlyMap<string, number>): { p50: number | null; p99: number | null } {
  const ms: number[] = [];
  for (const [name, t] of start) {
    const e = end.get(name);
    if (e !== undefined) ms.push(e - t);
  }
  return { p50: percentile(ms, 50), p99: percentile(ms, 99) };
}
