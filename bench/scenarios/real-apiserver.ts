/**
 * `--real-cluster` API servers: our embedded server (memory and SQLite storage) against
 * kube-apiserver + etcd, with the same client loops as the apiserver scenario.
 * - real-apiserver: PV creates/s, each server fresh per repetition, in rotating order. Durability
 *   is compared like for like: memory storage against etcd with `--unsafe-no-fsync` (neither
 *   survives a power cut), SQLite (every acknowledged write durable) against etcd fsyncing its log.
 *   kube-apiserver runs without its audit log here (ours has none).
 * - real-memory: resident memory with 10,000 PVs + 10,000 PVCs stored; for kube-apiserver the
 *   RSS of both processes added (etcd holds the data, kube-apiserver its watch cache).
 */
import { connect } from '../client/kube-client.js';
import { measureCreates, type ClientKind } from '../client/write-loops.js';
import { startKubeApiServer } from '../proc/kube-control-plane.js';
import { startApiServer, type BenchServer } from '../proc/servers.js';
import { note } from '../progress.js';
import { failedRow, heavyRepetitions, type BenchOptions, type ResultRow, type Scenario, type ScenarioResult } from '../scenario.js';
import { formatNumber, formatRatio, median, medianOfRatios } from '../stats.js';
import { describeStoredMemory, measureFreshServerMemory, type StoredMemory } from './apiserver-memory.js';
import { megabytes, rotated, row, sideBySideUnavailable, skippedAll } from './side-by-side.js';

type ServerId = 'memory' | 'sqlite' | 'kube' | 'kube-fsync';

const LABELS: Record<ServerId, string> = {
  memory: 'pv-controller apiserver, memory',
  sqlite: 'pv-controller apiserver, sqlite (durable)',
  kube: 'kube-apiserver + etcd (--unsafe-no-fsync)',
  'kube-fsync': 'kube-apiserver + etcd (fsync, durable)',
};

/** The kube-apiserver case each of ours is compared with. */
const PEER: Partial<Record<ServerId, ServerId>> = { memory: 'kube', sqlite: 'kube-fsync' };

const CLIENTS: ClientKind[] = ['raw-https', 'client-node'];

function startServer(opts: BenchOptions, id: ServerId): Promise<BenchServer> {
  if (id === 'memory' || id === 'sqlite') return startApiServer(opts, id);
  // No audit log: our server keeps none, and a log line per request is kube-apiserver work.
  return startKubeApiServer(opts, `kube-${id}`, { etcdFsync: id === 'kube-fsync', auditLog: false });
}

async function createsOn(opts: BenchOptions, id: ServerId, rep: number, count: number, samples: Map<string, number[]>): Promise<void> {
  const server = await startServer(opts, id);
  const client = await connect(server.kubeconfig);
  try {
    for (const kind of CLIENTS) {
      const result = await measureCreates(client, kind, {
        label: `real-apiserver rep ${rep + 1} ${id}/${kind}`,
        prefix: `bench-w${Date.now().toString(36)}-${kind === 'client-node' ? 'cn' : 'raw'}`,
        warmup: Math.min(1000, Math.max(100, Math.ceil(count / 5))),
        count,
        concurrency: opts.concurrency,
      });
      const key = `${id}/${kind}`;
      samples.set(key, [...(samples.get(key) ?? []), result.perSecond]);
    }
  } finally {
    client.close();
    await server.stop();
  }
}

function createRows(samples: Map<string, number[]>): ResultRow[] {
  const rows: ResultRow[] = [];
  for (const kind of CLIENTS) {
    for (const id of Object.keys(LABELS) as ServerId[]) {
      const values = samples.get(`${id}/${kind}`) ?? [];
      const peer = PEER[id];
      const versus = peer ? ` = ${formatRatio(medianOfRatios(values, samples.get(`${peer}/${kind}`) ?? []))} ${LABELS[peer]}` : '';
      rows.push(row('real-apiserver', `PV creates, ${kind}, ${LABELS[id]}`, `${formatNumber(median(values))} writes/s${versus}`));
    }
  }
  return rows;
}

async function runCreates(opts: BenchOptions): Promise<ScenarioResult> {
  const why = await sideBySideUnavailable(opts, false);
  if (why) return skippedAll('real-apiserver', 'PV creates/s beside kube-apiserver', why);
  const count = opts.writes ?? (opts.quick ? 500 : 10_000);
  const samples = new Map<string, number[]>();
  const reps = heavyRepetitions(opts);
  try {
    for (let rep = 0; rep < reps; rep++) {
      for (const id of rotated(Object.keys(LABELS) as ServerId[], rep)) {
        note(`[real-apiserver] repetition ${rep + 1}/${reps}: ${LABELS[id]}`);
        await createsOn(opts, id, rep, count, samples);
      }
    }
  } catch (err) {
    return { rows: [...createRows(samples), failedRow('real-apiserver', 'PV creates', err)], details: { count, samples: Object.fromEntries(samples) } };
  }
  return { rows: createRows(samples), details: { count, concurrency: opts.concurrency, samples: Object.fromEntries(samples) } };
}

async function runMemory(opts: BenchOptions): Promise<ScenarioResult> {
  const why = await sideBySideUnavailable(opts, false);
  if (why) return skippedAll('real-memory', 'RSS with 10k PVs + 10k PVCs beside kube-apiserver', why);
  const pairs = opts.quick ? 500 : 10_000;
  const objects = formatNumber(pairs * 2);
  const measured: Partial<Record<ServerId, StoredMemory>> = {};
  const rows: ResultRow[] = [];
  for (const id of ['kube', 'memory', 'sqlite'] as const) {
    note(`[real-memory] ${LABELS[id]}: ${objects} objects`);
    try {
      const m = (measured[id] = await measureFreshServerMemory(() => startServer(opts, id), pairs, opts.concurrency));
      const kube = measured.kube;
      const text =
        id === 'kube'
          ? `${describeStoredMemory(m)}: kube-apiserver ${megabytes(m.loadedByProcess[0])} + etcd ${megabytes(m.loadedByProcess[1] ?? null)}`
          : `${describeStoredMemory(m)} = ${formatRatio(kube ? m.loaded / kube.loaded : null)} kube-apiserver + etcd`;
      rows.push(row('real-memory', `RSS with ${objects} objects, ${id === 'kube' ? 'kube-apiserver + etcd' : LABELS[id]}`, text));
    } catch (err) {
      rows.push(failedRow('real-memory', `${LABELS[id]}, ${objects} objects`, err));
    }
  }
  return { rows, details: { pairs, measured } };
}

export const realApiServerScenario: Scenario = {
  name: 'real-apiserver',
  aliases: ['kube-apiserver'],
  description: 'PV creates/s: our API server (memory, SQLite) against kube-apiserver + etcd (without and with fsync), same client loops',
  run: runCreates,
};

export const realMemoryScenario: Scenario = {
  name: 'real-memory',
  aliases: ['kube-apiserver-memory'],
  description: 'RSS with 10k PVs + 10k PVCs stored: our API server (memory, SQLite) against kube-apiserver + etcd (both processes)',
  run: runMemory,
};
