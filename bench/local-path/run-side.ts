/**
 * One side of the side by side, measured: the provisioner (local-path-provisioner, or our node
 * agent) is started fresh, provisions one warm-up volume (not counted: it proves the provisioner
 * is up and the image is in the runtime), then N claims each consumed by a pod, in waves that
 * stay within the node's pod limit. After each wave is Running, every pod's CPU is read from its
 * cgroup and the wave's pods are deleted (claims stay); once all N are provisioned, the claims
 * are deleted at once and the PVs waited for. Then what the root still holds is listed.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ManagedProcess } from '../../tools/cluster/processes.js';
import { expectOk, type BenchClient } from '../client/kube-client.js';
import { runPool } from '../client/pool.js';
import { cpuTimeMs, currentRssBytes, peakRssBytes, waitFor } from '../proc/child.js';
import { note } from '../progress.js';
import { percentile } from '../stats.js';
import { cgroupCpuMs, cpuWithChildrenMs, findPodCgroup, helperCpuMs, type CgroupLayout } from './accounting.js';
import { leftoverCount, leftoversUnder, type Leftovers } from './leftovers.js';
import type { BenchNode } from './nodes-api.js';
import { LOCAL_PATH_NAMESPACE, WORKLOAD_NAMESPACE, workloadClaim, workloadName, workloadPod, type Side } from './objects.js';
import { startTracker, type Tracker } from './tracker.js';

export interface SideSetup {
  side: Side;
  client: BenchClient;
  node: BenchNode;
  /** Pods the harness must leave room for on the node (its own, and local-path's helper workers). */
  podReserve: number;
  root: string;
  image: string;
  /** Starts the provisioner; its pid is the one measured. */
  start(): ManagedProcess;
  cgroups: CgroupLayout | undefined;
  concurrency: number;
  timeoutMs: number;
}

export interface SideResult {
  side: Side;
  n: number;
  waves: number;
  /** N / the sum of the waves' create→last Bound windows. */
  boundPerSecond: number;
  boundP50Ms: number | null;
  runningP50Ms: number | null;
  runningP99Ms: number | null;
  deletePerSecond: number;
  provisionerCpuMs: number | null;
  /** Helper pods' CPU (Δ kubepods − Σ workload pods); null without a readable pods cgroup. */
  helperCpuMs: number | null;
  runtimeCpuMs: number | null;
  cpuPerVolumeMs: number | null;
  rssStartBytes: number | null;
  rssPeakBytes: number | null;
  leftovers: Leftovers;
  leftoverCount: number;
}

const BASE = `/api/v1/namespaces/${WORKLOAD_NAMESPACE}`;

async function post(client: BenchClient, path: string, body: Record<string, unknown>): Promise<void> {
  expectOk(await client.raw('POST', path, JSON.stringify(body)), `create ${path}`);
}

async function del(client: BenchClient, path: string, body?: Record<string, unknown>): Promise<void> {
  const res = await client.raw('DELETE', path, body === undefined ? undefined : JSON.stringify(body));
  if (res.status !== 404) expectOk(res, `delete ${path}`);
}

async function count(client: BenchClient, path: string, selector?: string): Promise<number> {
  const query = selector === undefined ? '' : `?labelSelector=${encodeURIComponent(selector)}`;
  const res = expectOk(await client.raw('GET', `${path}${query}`), `list ${path}`);
  return (JSON.parse(res.body) as { items?: unknown[] }).items?.length ?? 0;
}

async function pvCount(client: BenchClient, className: string): Promise<number> {
  const res = expectOk(await client.raw('GET', '/api/v1/persistentvolumes'), 'list PVs');
  const items = (JSON.parse(res.body) as { items?: Array<{ spec?: { storageClassName?: string } }> }).items ?? [];
  return items.filter((pv) => pv.spec?.storageClassName === className).length;
}

const selector = (side: Side): string => `bench.pv-controller.io/side=${side}`;

function runtimeCpu(node: BenchNode): number | null {
  const pids = [node.kubeletPid, ...(node.containerdPid === undefined ? [] : [node.containerdPid])];
  const values = pids.map(cpuTimeMs);
  return values.every((v) => v !== null) ? values.reduce((a, b) => a! + b!, 0) : null;
}

/** Creates claims+pods [from, to), waits until each pod is Running; returns the wave's create→last Bound window in ms. */
async function wave(s: SideSetup, t: Tracker, from: number, to: number): Promise<number> {
  const names = Array.from({ length: to - from }, (_, i) => workloadName(s.side, from + i));
  const t0 = performance.now();
  await runPool(names.length, s.concurrency, async (i) => {
    t.created.set(names[i], performance.now());
    await post(s.client, `${BASE}/persistentvolumeclaims`, workloadClaim(s.side, names[i]));
    await post(s.client, `${BASE}/pods`, workloadPod(s.side, names[i], s.image, s.node.name));
  });
  const progress = (): string => `${names.filter((n) => t.bound.has(n)).length} Bound, ${names.filter((n) => t.running.has(n)).length} Running`;
  await waitFor(`${s.side}: ${names.length} pods Running (wave ${from}..${to - 1}; so far ${names.length} created)`, () => {
    const failed = names.find((n) => t.failed.has(n));
    if (failed) throw new Error(`${s.side}: pod ${failed} failed: ${t.failed.get(failed)}`);
    const broken = t.failure();
    if (broken) throw new Error(broken);
    return names.every((n) => t.running.has(n) && t.bound.has(n)) ? true : undefined;
  }, s.timeoutMs, 100).catch((err: unknown) => {
    throw new Error(`${err instanceof Error ? err.message : String(err)}: ${progress()}`);
  });
  return Math.max(...names.map((n) => t.bound.get(n)!)) - t0;
}

/** Reads the wave's pods' CPU from their cgroups, then deletes them and waits until they are gone. */
async function endWave(s: SideSetup, t: Tracker, from: number, to: number, podCpu: number[]): Promise<void> {
  const names = Array.from({ length: to - from }, (_, i) => workloadName(s.side, from + i));
  for (const n of names) {
    const uid = t.podUid.get(n);
    const dir = s.cgroups && uid ? findPodCgroup(s.cgroups, uid) : undefined;
    const ms = dir && s.cgroups ? cgroupCpuMs(s.cgroups.version, dir) : null;
    if (ms !== null) podCpu.push(ms);
  }
  await runPool(names.length, s.concurrency, (i) => del(s.client, `${BASE}/pods/${names[i]}`));
  await waitFor(`${s.side}: wave's pods gone`, async () => ((await count(s.client, `${BASE}/pods`, selector(s.side))) === 0 ? true : undefined), s.timeoutMs, 200);
}

/** Provisioner CPU per volume, plus local-path's helper pods' (unknown helper CPU: unknown). */
export function cpuPerVolume(side: Side, provisionerMs: number | null, helperMs: number | null, n: number): number | null {
  if (provisionerMs === null) return null;
  if (side !== 'local-path') return provisionerMs / n;
  return helperMs === null ? null : (provisionerMs + helperMs) / n;
}

export async function runSide(s: SideSetup, n: number, logDir: string): Promise<SideResult> {
  mkdirSync(logDir, { recursive: true });
  const proc = s.start();
  const className = `bench-${s.side}`;
  try {
    const t = await startTracker(s.client);
    try {
      // Warm-up: one volume and pod, not counted (index n: after the measured ones).
      note(`${s.side}: warm-up volume`);
      await wave(s, t, n, n + 1);
      await endWave(s, t, n, n + 1, []);
      await del(s.client, `${BASE}/persistentvolumeclaims/${workloadName(s.side, n)}`);
      await waitFor(`${s.side}: warm-up PV deleted`, async () => ((await pvCount(s.client, className)) === 0 ? true : undefined), s.timeoutMs, 200);

      const cpu0 = { provisioner: cpuWithChildrenMs(proc.pid), pods: s.cgroups ? cgroupCpuMs(s.cgroups.version, s.cgroups.kubepods) : null, runtime: runtimeCpu(s.node) };
      const rssStart = currentRssBytes(proc.pid);
      const waveSize = Math.max(1, s.node.maxPods - s.podReserve);
      const podCpu: number[] = [];
      let provisionMs = 0;
      let waves = 0;
      for (let from = 0; from < n; from += waveSize) {
        const to = Math.min(n, from + waveSize);
        note(`${s.side}: wave ${waves + 1}, claims ${from}..${to - 1}`);
        provisionMs += await wave(s, t, from, to);
        await endWave(s, t, from, to, podCpu);
        waves++;
      }
      note(`${s.side}: deleting ${n} claims`);
      const d0 = performance.now();
      await runPool(n, s.concurrency, (i) => del(s.client, `${BASE}/persistentvolumeclaims/${workloadName(s.side, i)}`));
      await waitFor(`${s.side}: every PV deleted`, async () => ((await pvCount(s.client, className)) === 0 ? true : undefined), s.timeoutMs, 200);
      const deleteMs = performance.now() - d0;
      // The next run reuses the names: its claims must not meet these still terminating.
      await waitFor(`${s.side}: every claim gone`, async () => ((await count(s.client, `${BASE}/persistentvolumeclaims`, selector(s.side))) === 0 ? true : undefined), s.timeoutMs, 200);
      // local-path deletes its helper pod after the PV is gone: let the last ones finish.
      await waitFor(`${s.side}: helper pods gone`, async () => ((await count(s.client, `/api/v1/namespaces/${LOCAL_PATH_NAMESPACE}/pods`)) === 0 ? true : undefined), s.timeoutMs, 200);

      const provisionerCpu = cpuWithChildrenMs(proc.pid);
      const podsNow = s.cgroups ? cgroupCpuMs(s.cgroups.version, s.cgroups.kubepods) : null;
      const runtimeNow = runtimeCpu(s.node);
      const spentProvisioner = cpu0.provisioner === null || provisionerCpu === null ? null : provisionerCpu - cpu0.provisioner;
      const helper = cpu0.pods === null || podsNow === null || podCpu.length !== n ? null : helperCpuMs(cpu0.pods, podsNow, podCpu);
      const runtime = cpu0.runtime === null || runtimeNow === null ? null : runtimeNow - cpu0.runtime;
      const toBound = [...Array(n).keys()].map((i) => workloadName(s.side, i)).map((name) => t.bound.get(name)! - t.created.get(name)!);
      const toRunning = [...Array(n).keys()].map((i) => workloadName(s.side, i)).map((name) => t.running.get(name)! - t.created.get(name)!);
      const leftovers = leftoversUnder(s.root);
      return {
        side: s.side,
        n,
        waves,
        boundPerSecond: (n * 1000) / provisionMs,
        boundP50Ms: percentile(toBound, 50),
        runningP50Ms: percentile(toRunning, 50),
        runningP99Ms: percentile(toRunning, 99),
        deletePerSecond: (n * 1000) / deleteMs,
        provisionerCpuMs: spentProvisioner,
        helperCpuMs: helper,
        runtimeCpuMs: runtime,
        cpuPerVolumeMs: cpuPerVolume(s.side, spentProvisioner, helper, n),
        rssStartBytes: rssStart,
        rssPeakBytes: peakRssBytes(proc.pid),
        leftovers,
        leftoverCount: leftoverCount(leftovers),
      };
    } finally {
      t.stop();
    }
  } finally {
    await proc.stop();
  }
}

/** Where a side's logs go. */
export function sideLogDir(dir: string, side: Side, repetition: number): string {
  return join(dir, `${side}-${repetition}`);
}
