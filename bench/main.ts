/**
 * `npm run bench [-- flags]`: runs the selected scenarios, prints progress to stderr, the results
 * table to stdout, and one JSON record per scenario into bench/results/. A missed target shows as
 * ✗ in the table but does not fail the run; a scenario that breaks prints a "failed" row and the
 * run exits 1.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { parseBenchArgs } from './options.js';
import { installSignalCleanup } from './proc/cleanup.js';
import { note } from './progress.js';
import { missedTargets, renderTable, writeRecord } from './report.js';
import { failedRow, type BenchOptions, type ResultRow } from './scenario.js';
import { ON_REQUEST_SCENARIOS, REAL_CLUSTER_SCENARIOS, SCENARIOS, scenarioSet, selectScenarios } from './scenarios/index.js';

async function runAll(opts: BenchOptions): Promise<ResultRow[]> {
  const rows: ResultRow[] = [];
  for (const scenario of selectScenarios(opts.scenarios, scenarioSet(opts.realCluster))) {
    const startedAt = new Date();
    note(`== ${scenario.name}: ${scenario.description}`);
    let result;
    try {
      result = await scenario.run(opts);
    } catch (err) {
      result = { rows: [failedRow(scenario.name, 'scenario', err)], details: { error: String(err) } };
    }
    const path = writeRecord(opts, scenario.name, result, startedAt);
    note(`== ${scenario.name}: record ${path}`);
    rows.push(...result.rows);
  }
  return rows;
}

export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseBenchArgs(argv, [...SCENARIOS, ...REAL_CLUSTER_SCENARIOS, ...ON_REQUEST_SCENARIOS].map((s) => s.name));
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    throw err;
  }
  const set = scenarioSet(parsed.options.realCluster);
  if (parsed.list) {
    const all = [...set, ...ON_REQUEST_SCENARIOS];
    const width = Math.max(...all.map((s) => s.name.length));
    for (const s of all) process.stdout.write(`${s.name.padEnd(width)}  ${s.description}\n`);
    return 0;
  }
  try {
    selectScenarios(parsed.options.scenarios, set); // fail fast on unknown names
  } catch (err) {
    process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
  mkdirSync(parsed.options.resultsDir, { recursive: true });
  const opts: BenchOptions = { ...parsed.options, workDir: mkdtempSync(join(tmpdir(), 'pv-bench-')) };
  installSignalCleanup(() => rmSync(opts.workDir, { recursive: true, force: true }));
  try {
    const rows = await runAll(opts);
    process.stdout.write(`\n${renderTable(rows)}\n`);
    const missed = missedTargets(rows);
    if (missed.length > 0) process.stdout.write(`\n${missed.length} target(s) missed (✗); see docs/benchmarks.md\n`);
    return rows.some((r) => r.status === 'failed') ? 1 : 0;
  } finally {
    rmSync(opts.workDir, { recursive: true, force: true });
  }
}

main(process.argv).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
