/**
 * The shapes every benchmark scenario shares. A scenario is a small module exporting a
 * `Scenario`; the harness (main.ts) selects, runs and reports them, so the table, the JSON
 * records and the progress lines look the same for all of them.
 */

import type { ProvisionerKind } from './csi/binaries.js';

export type StorageKind = 'memory' | 'sqlite';

export interface BenchOptions {
  /** One-minute smoke run: small sizes, few repetitions. */
  quick: boolean;
  /** Scenario names to run (empty: all). */
  scenarios: string[];
  /** Sizes for the size-dependent scenarios (bind, provision); undefined: the scenario's defaults. */
  sizes: number[] | undefined;
  /** Claim counts for provision (--provision-n); undefined: the smallest of `sizes`, else its default. */
  provisionSizes?: number[];
  storages: StorageKind[];
  /** Run client-side scenarios against this cluster instead of a child API server. */
  kubeconfig: string | undefined;
  /** Run the side-by-side scenarios on a kube-apiserver + etcd the bench starts (instead of the others). */
  realCluster: boolean;
  /** Pass `--cpu-prof` to every child process (profiles land in resultsDir). */
  cpuProf: boolean;
  /** bind: skip the write floor (a run too large to afford it twice, e.g. 100,000 pairs). */
  noFloor: boolean;
  /** The compiled CLI of a second checkout measured beside this one (--baseline); undefined: none. */
  baselineCli?: string;
  /** How many times each measurement is repeated; the table reports medians. */
  repetitions: number;
  /** Whether --repetitions was given (then every scenario uses it as is). */
  repetitionsGiven: boolean;
  /** Measured writes per loop of the apiserver scenario; undefined: its default (quick 1000, else 10000). */
  writes: number | undefined;
  /** The CSI scenarios' provisioners under test (--provisioner), in the order they run. */
  provisioners: ProvisionerKind[];
  /** Rounds of csi-leak (--rounds); undefined: its default. */
  rounds: number | undefined;
  /** In-flight requests of every client loop (and the controller's worker count). */
  concurrency: number;
  /** Where result JSON files (and cpu profiles) are written. */
  resultsDir: string;
  /** Scratch space for data dirs of child servers; removed afterwards. */
  workDir: string;
}

/** A target checked against a measured value: `pass` is null when the value is missing. */
export interface TargetCheck {
  /** Human-readable, e.g. "≥ 0.6× bare". */
  text: string;
  pass: boolean | null;
}

/** One line of the results table. */
export interface ResultRow {
  scenario: string;
  /** What was measured, e.g. "memory, 0 watchers, client-node". */
  label: string;
  status: 'ok' | 'skipped' | 'failed';
  /** The formatted measurement ("5,102 writes/s", "0.71× bare") or "skipped: <why>". */
  measured: string;
  target?: TargetCheck;
}

export interface ScenarioResult {
  rows: ResultRow[];
  /** Raw numbers for the JSON record: samples, medians, sizes, environment. */
  details: Record<string, unknown>;
}

export interface Scenario {
  name: string;
  /** Other names `--scenario` accepts for this scenario. */
  aliases: string[];
  description: string;
  run(opts: BenchOptions): Promise<ScenarioResult>;
}

export function skippedRow(scenario: string, label: string, why: string): ResultRow {
  return { scenario, label, status: 'skipped', measured: `skipped: ${why}` };
}

export function failedRow(scenario: string, label: string, err: unknown): ResultRow {
  const message = err instanceof Error ? err.message : String(err);
  return { scenario, label, status: 'failed', measured: `failed: ${message.split('\n')[0]}` };
}

/** A target check: `atLeast` (≥) or `atMost` (≤, or < when strict). */
export function checkAtLeast(value: number | null, min: number, text: string): TargetCheck {
  return { text, pass: value === null || !Number.isFinite(value) ? null : value >= min };
}

export function checkAtMost(value: number | null, max: number, text: string, strict = false): TargetCheck {
  if (value === null || !Number.isFinite(value)) return { text, pass: null };
  return { text, pass: strict ? value < max : value <= max };
}

/**
 * Repetitions of the heavy, child-process scenarios (bind, provision): at most 3, and 1 in a
 * --quick smoke run unless --repetitions says otherwise.
 */
export function heavyRepetitions(opts: Pick<BenchOptions, 'quick' | 'repetitions' | 'repetitionsGiven'>): number {
  if (opts.repetitionsGiven) return opts.repetitions;
  return opts.quick ? 1 : Math.min(opts.repetitions, 3);
}
