/**
 * The shared output of every scenario: a fixed-width table on stdout (one row per measurement,
 * the target and ✓/✗ beside it) and one JSON record per scenario in the results directory,
 * named `<scenario>-<timestamp>.json`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import type { BenchOptions, ResultRow, ScenarioResult, TargetCheck } from './scenario.js';

const HEADER = ['scenario', 'case', 'measured', 'target', ''];

function mark(target: TargetCheck | undefined): string {
  if (!target) return '';
  if (target.pass === null) return '?';
  return target.pass ? '✓' : '✗';
}

function cells(row: ResultRow): string[] {
  return [row.scenario, row.label, row.measured, row.target?.text ?? '', mark(row.target)];
}

/** Renders rows as an aligned text table (no trailing spaces). */
export function renderTable(rows: readonly ResultRow[]): string {
  const all = [HEADER, ...rows.map(cells)];
  const widths = HEADER.map((_, col) => Math.max(...all.map((r) => [...r[col]].length)));
  const line = (r: string[]): string =>
    r.map((c, i) => c + ' '.repeat(widths[i] - [...c].length)).join('  ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(HEADER), rule, ...rows.map((r) => line(cells(r)))].join('\n');
}

/** Timestamp safe for file names: 2026-11-29T21-24-45-123Z. */
export function fileTimestamp(date = new Date()): string {
  return date.toISOString().replace(/[:.]/g, '-');
}

export function environment(): Record<string, unknown> {
  return {
    node: process.version,
    platform: process.platform,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    totalMemoryBytes: totalmem(),
    loadAverage: loadavg(),
  };
}

/** Writes the scenario's JSON record and returns its path. */
export function writeRecord(
  opts: BenchOptions,
  scenario: string,
  result: ScenarioResult,
  startedAt: Date,
): string {
  mkdirSync(opts.resultsDir, { recursive: true });
  const path = join(opts.resultsDir, `${scenario}-${fileTimestamp(startedAt)}.json`);
  const record = {
    scenario,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    options: { ...opts, workDir: undefined },
    environment: environment(),
    rows: result.rows,
    details: result.details,
  };
  writeFileSync(path, `${JSON.stringify(record, null, 2)}\n`);
  return path;
}

/** Rows whose target was evaluated and missed. */
export function missedTargets(rows: readonly ResultRow[]): ResultRow[] {
  return rows.filter((r) => r.target?.pass === false);
}
