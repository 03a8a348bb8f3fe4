/**
 * Scenario 7, the API server alone: PV creates/s through the same client loop against (a) the
 * bare node:https server — the physical limit on this machine — and (b) our API server on
 * memory storage with 0 and 10 watchers and on SQLite (every acknowledged write durable). Every
 * server is a fresh child process per repetition; each repetition measures all cases back to
 * back, so every ratio compares numbers taken in the same minute, and the table reports the
 * median of the per-repetition ratios.
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
}

function caseId(group: Group, client: ClientKind): string {
  return `${group.server}${group.watchers ? `+${group.watchers}w` : ''}/${client}`;
}

function groupsFor(opts: BenchOptions): Group[] {
  const groups: Group[] = [{ server: 'bare', watchers: 0, clients: ['client-node', 'raw-https'] }];
  if (opts.storages.includes('memory') || opts.kubeconfig) {
    groups.push({ server: 'memory', watchers: 0, clients: ['client-node', 'raw-https'] });
    groups.push({ server: 'memory', watchers: WATCHERS, clients: ['client-node'] });
  }
  if (opts.storages.includes('sqlite') && !opts.kubeconfig) {
    groups.push({ server: 'sqlite', watchers: 0, clients: ['client-node', 'raw-https'] });
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
    group.server === 'bare' ? await startBareServer(opts) : await startApiServer(opts, group.server);
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

interface RowSpec {
  id: string;
  label: string;
  min?: number;
  against: string;
}

function rowsFrom(opts: BenchOptions, samples: Map<string, number[]>): ResultRow[] {
  const ours = opts.kubeconfig ? 'cluster' : 'API server';
  const specs: RowSpec[] = [
    { id: 'bare/client-node', label: 'bare node:https server, client-node (the limit)', against: '' },
    { id: 'bare/raw-https', label: 'bare node:https server, raw https', against: '' },
    { id: 'memory/client-node', label: `${ours}${opts.kubeconfig ? '' : ' memory'}, 0 watchers`, min: 0.6, against: 'bare/client-node' },
    { id: 'memory/raw-https', label: `${ours}${opts.kubeconfig ? '' : ' memory'}, 0 watchers, raw https`, against: 'bare/raw-https' },
    { id: `memory+${WATCHERS}w/client-node`, label: `${ours}${opts.kubeconfig ? '' : ' memory'}, ${WATCHERS} watchers`, min: 0.45, against: 'bare/client-node' },
    { id: 'sqlite/client-node', label: `${ours} sqlite (durable), 0 watchers`, min: 0.35, against: 'bare/client-node' },
    { id: 'sqlite/raw-https', label: `${ours} sqlite (durable), raw https`, against: 'bare/raw-https' },
  ];
  const rows: ResultRow[] = [];
  for (const spec of specs) {
    const values = samples.get(spec.id);
    if (!values) continue;
    const rate = median(values);
    let measured = `${formatNumber(rate)} writes/s`;
    if (spec.id === 'bare/raw-https') {
      measured += ` (client-node gets ${formatRatio(medianOfRatios(samples.get('bare/client-node') ?? [], values))} of it)`;
    }
    if (!spec.against) {
      rows.push({ scenario: NAME, label: spec.label, status: 'ok', measured });
      continue;
    }
    const r = medianOfRatios(values, samples.get(spec.against) ?? []);
    measured += ` = ${formatRatio(r)} ${spec.against.startsWith('bare/raw') ? 'bare raw' : 'bare'}`;
    const target = spec.min !== undefined && !opts.kubeconfig ? checkAtLeast(r, spec.min, `≥ ${spec.min}× bare`) : undefined;
    rows.push({ scenario: NAME, label: spec.label, status: 'ok', measured, target });
  }
  return rows;
}

async function run(opts: BenchOptions): Promise<ScenarioResult> {
  const count = opts.writes ?? (opts.quick ? 1000 : 10_000);
  const sizes: Sizes = { warmup: Math.min(500, Math.ceil(count / 10)), count };
  const unavailable = await embeddedServerUnavailable(opts);
  const groups = groupsFor(opts).filter((g) => g.server === 'bare' || unavailable === undefined);
  const samples = new Map<string, number[]>();
  const watchEvents: number[][] = [];
  const rows: ResultRow[] = [];
  for (let rep = 0; rep < opts.repetitions; rep++) {
    for (const group of groups) {
      note(`[${NAME}] repetition ${rep + 1}/${opts.repetitions}: ${group.server}, ${group.watchers} watchers`);
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
