/**
 * Scenario 7, the API server alone: PV creates/s through the same client loop against (a) the
 * bare node:https server — the physical limit on this machine — and (b) our API server on
 * memory storage with 0 and 10 watchers and on SQLite (every acknowledged write durable). Every
 * server is a fresh child process per repetition; each repetition measures all cases back to
 * back, so every ratio compares numbers taken in the same minute, and the table reports the
 * median of the per-repetition ratios. With --baseline, each repetition also measures the other
 * checkout's memory server, and the table gives this build's rate over that one's.
 */
import { connect } from '../client/kube-client.js';
import { deleteCreated, measureCreates, type ClientKind } from '../client/write-loops.js';
import { note } from '../progress.js';
import { embeddedServerUnavailable, startApiServer, startBareServer, startWatchers, type BenchServer } from '../proc/servers.js';
import { checkAtLeast, failedRow, skippedRow, type BenchOptions, type ResultRow, type Scenario, type ScenarioResult } from '../scenario.js';
import { formatNumber, formatRatio, median, medianOfRatios } from '../stats.js';

const NAME = 'apiserver';
const WATCHERS = 10;

type ServerChoice = 'bare' | 'memory' | 'sqlite';

interface Group {
  server: ServerChoice;
  watchers: number;
  clients: ClientKind[];
  /** The --baseline checkout's server instead of this one's. */
  baseline?: boolean;
}

function caseId(group: Group, client: ClientKind): string {
  return `${group.baseline ? 'baseline:' : ''}${group.server}${group.watchers ? `+${group.watchers}w` : ''}/${client}`;
}

const BOTH: ClientKind[] = ['raw-https', 'client-node'];
/** Our server also takes protobuf writes, compared with JSON writes measured in the same minute. */
const WITH_PROTOBUF: ClientKind[] = [...BOTH, 'raw-protobuf'];

function groupsFor(opts: BenchOptions): Group[] {
  const groups: Group[] = [{ server: 'bare', watchers: 0, clients: BOTH }];
  if (opts.storages.includes('memory') || opts.kubeconfig) {
    groups.push({ server: 'memory', watchers: 0, clients: opts.kubeconfig ? BOTH : WITH_PROTOBUF });
    groups.push({ server: 'memory', watchers: WATCHERS, clients: BOTH });
  }
  if (opts.storages.includes('sqlite') && !opts.kubeconfig) {
    groups.push({ server: 'sqlite', watchers: 0, clients: BOTH });
  }
  if (opts.baselineCli && !opts.kubeconfig) {
    groups.push({ server: 'memory', watchers: 0, clients: BOTH, baseline: true });
  }
  return groups;
}

interface Sizes {
  warmup: number;
  count: number;
}

async function runGroup(
  opts: BenchOptions,
  group: Group,
  rep: number,
  sizes: Sizes,
  samples: Map<string, number[]>,
  watchEvents: number[][],
): Promise<void> {
  const server: BenchServer =
    group.server === 'bare' ? await startBareServer(opts) : await startApiServer(opts, group.server, group.baseline ? opts.baselineCli : undefined);
  const client = await connect(server.kubeconfig);
  const watch =
    group.watchers > 0
      ? await startWatchers(opts, server.kubeconfig, group.watchers, '/api/v1/persistentvolumes?watch=true')
      : undefined;
  try {
    for (const kind of group.clients) {
      const id = caseId(group, kind);
      const spec = {
        label: `${NAME} rep ${rep + 1}/${opts.repetitions} ${server.kind === 'cluster' ? 'cluster' : ''}${id}`,
        prefix: `bench-w${Date.now().toString(36)}-${rep}-${kind === 'client-node' ? 'cn' : 'raw'}`,
        warmup: sizes.warmup,
        count: sizes.count,
        concurrency: opts.concurrency,
      };
      const result = await measureCreates(client, kind, spec);
      samples.set(id, [...(samples.get(id) ?? []), result.perSecond]);
      if (server.kind === 'cluster') await deleteCreated(client, spec);
    }
  } finally {
    if (watch) watchEvents.push(await watch.stop());
    client.close();
    await server.stop();
  }
}

interface Case {
  id: string;
  label: string;
  min: number;
}

function limitRows(samples: Map<string, number[]>): ResultRow[] {
  const raw = samples.get('bare/raw-https');
  const cn = samples.get('bare/client-node');
  if (!raw || !cn) return [];
  return [
    { scenario: NAME, label: 'bare node:https server, raw https (the limit)', status: 'ok', measured: `${formatNumber(median(raw))} writes/s` },
    {
      scenario: NAME,
      label: 'bare node:https server, client-node',
      status: 'ok',
      measured: `${formatNumber(median(cn))} writes/s (= ${formatRatio(medianOfRatios(cn, raw))} raw: the client's cost)`,
    },
  ];
}

function rowsFrom(opts: BenchOptions, samples: Map<string, number[]>): ResultRow[] {
  const ours = opts.kubeconfig ? 'cluster' : 'API server';
  const cases: Case[] = [
    { id: 'memory', label: opts.kubeconfig ? ours : `${ours} memory`, min: 0.6 },
    { id: `memory+${WATCHERS}w`, label: `${opts.kubeconfig ? ours : `${ours} memory`}, ${WATCHERS} watchers`, min: 0.45 },
    { id: 'sqlite', label: `${ours} sqlite (durable)`, min: 0.35 },
  ];
  const rows = limitRows(samples);
  for (const c of cases) {
    for (const client of WITH_PROTOBUF) {
      const values = samples.get(`${c.id}/${client}`);
      if (!values) continue;
      const bareClient = client === 'raw-protobuf' ? 'raw-https' : client;
      const r = medianOfRatios(values, samples.get(`bare/${bareClient}`) ?? []);
      rows.push({
        scenario: NAME,
        label: `${c.label}, ${client}`,
        status: 'ok',
        measured: `${formatNumber(median(values))} writes/s = ${formatRatio(r)} bare`,
        target: opts.kubeconfig ? undefined : checkAtLeast(r, c.min, `≥ ${c.min}× bare`),
      });
    }
  }
  rows.push(...protobufRows(samples), ...baselineRows(samples));
  return rows;
}

/** The --baseline checkout's memory server, and this build's rate over its rate, per repetition. */
function baselineRows(samples: Map<string, number[]>): ResultRow[] {
  const rows: ResultRow[] = [];
  for (const client of BOTH) {
    const theirs = samples.get(`baseline:memory/${client}`);
    const ours = samples.get(`memory/${client}`);
    if (!theirs || !ours) continue;
    const bare = medianOfRatios(theirs, samples.get(`bare/${client}`) ?? []);
    rows.push(
      { scenario: NAME, label: `baseline checkout's API server memory, ${client}`, status: 'ok', measured: `${formatNumber(median(theirs))} writes/s = ${formatRatio(bare)} bare` },
      { scenario: NAME, label: `API server memory, this build vs baseline, ${client}`, status: 'ok', measured: `${formatRatio(medianOfRatios(ours, theirs))} the baseline's writes/s` },
    );
  }
  return rows;
}

/** Protobuf writes against JSON writes of the same repetitions (same server, same minute). */
function protobufRows(samples: Map<string, number[]>): ResultRow[] {
  const protobuf = samples.get('memory/raw-protobuf');
  const json = samples.get('memory/raw-https');
  if (!protobuf || !json) return [];
  return [{ scenario: NAME, label: 'API server memory, protobuf writes vs JSON writes', status: 'ok', measured: `${formatRatio(medianOfRatios(protobuf, json))} JSON` }];
}

async function run(opts: BenchOptions): Promise<ScenarioResult> {
  const count = opts.writes ?? (opts.quick ? 500 : 10_000);
  const sizes: Sizes = { warmup: Math.min(1000, Math.max(100, Math.ceil(count / 5))), count };
  const unavailable = await embeddedServerUnavailable(opts);
  const groups = groupsFor(opts).filter((g) => g.server === 'bare' || unavailable === undefined);
  const samples = new Map<string, number[]>();
  const watchEvents: number[][] = [];
  const rows: ResultRow[] = [];
  for (let rep = 0; rep < opts.repetitions; rep++) {
    // Odd repetitions run the cases in reverse, so a drifting machine favours no case.
    for (const group of rep % 2 === 0 ? groups : [...groups].reverse()) {
      note(`[${NAME}] repetition ${rep + 1}/${opts.repetitions}: ${group.baseline ? 'baseline ' : ''}${group.server}, ${group.watchers} watchers`);
      try {
        await runGroup(opts, group, rep, sizes, samples, watchEvents);
      } catch (err) {
        rows.push(failedRow(NAME, `${group.server}, ${group.watchers} watchers`, err));
        return { rows: [...rowsFrom(opts, samples), ...rows], details: { sizes, samples: Object.fromEntries(samples), watchEvents } };
      }
    }
  }
  rows.push(...rowsFrom(opts, samples));
  if (unavailable) rows.push(skippedRow(NAME, 'API server memory/sqlite, 0 and 10 watchers', unavailable));
  return {
    rows,
    details: { sizes, concurrency: opts.concurrency, watchers: WATCHERS, samples: Object.fromEntries(samples), watchEvents },
  };
}

export const apiserverScenario: Scenario = {
  name: NAME,
  aliases: ['writes', 'floor-limit', '7'],
  description: 'API server alone: writes/s with 0 and 10 watchers and on SQLite, beside the bare node:https limit',
  run,
};
