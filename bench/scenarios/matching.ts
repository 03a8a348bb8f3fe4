/**
 * Scenario 3, matching cost: the binder's per-claim decision time (VolumeIndex.findBestMatch,
 * in-process) with 1,000 versus 10,000 Available volumes of mixed classes, modes and sizes.
 * Target: the 10k time under 2× the 1k time (an index, not a scan). The two sizes are measured
 * back to back in every repetition (order alternating), each as the median of several timed
 * batches, and the table reports the median of the per-repetition ratios.
 */
import { pathToFileURL } from 'node:url';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { claimFor, pairSpec, volumeFor } from '../fixtures.js';
import { compiled } from '../paths.js';
import { note } from '../progress.js';
import { moduleProblem } from '../proc/servers.js';
import { checkAtMost, failedRow, skippedRow, type BenchOptions, type ResultRow, type Scenario, type ScenarioResult } from '../scenario.js';
import { formatNumber, formatRatio, median, medianOfRatios } from '../stats.js';

const NAME = 'matching';
const INDEX_MODULE = 'src/controller/binder/index.js';
const SIZES = [1000, 10_000] as const;

/** The part of h5's VolumeIndex the bench calls. */
interface VolumeIndexLike {
  upsert(pv: PersistentVolume): void;
  findBestMatch(claim: PersistentVolumeClaim, delayBinding: boolean): PersistentVolume | undefined | null;
}

interface IndexModule {
  VolumeIndex: new () => VolumeIndexLike;
}

async function loadIndexModule(): Promise<IndexModule | string> {
  const problem = await moduleProblem(INDEX_MODULE, 'VolumeIndex', "the binder's VolumeIndex (src/controller/binder/index.ts)");
  if (problem) return problem;
  return (await import(pathToFileURL(compiled(INDEX_MODULE)).href)) as IndexModule;
}

function availableVolume(index: number): PersistentVolume {
  const pv = volumeFor(pairSpec('m', index));
  pv.metadata.uid = `pv-uid-${index}`;
  pv.metadata.resourceVersion = String(index + 1);
  pv.status = { phase: 'Available' };
  return pv;
}

function claim(index: number): PersistentVolumeClaim {
  const pvc = claimFor(pairSpec('m', index));
  pvc.metadata.uid = `claim-uid-${index}`;
  pvc.metadata.resourceVersion = String(index + 1);
  pvc.status = { phase: 'Pending' };
  return pvc;
}

interface SizeSample {
  microsPerClaim: number;
  unmatched: number;
}

/** Timed batches per size: the median batch ignores a GC pause or a neighbour's burst. */
const BATCHES = 7;

/**
 * Builds an index of `size` volumes, then times BATCHES batches of `queries` decisions for
 * claims spread over it; the per-claim time is the median batch's.
 */
function measureSize(mod: IndexModule, size: number, queries: number): SizeSample {
  const index = new mod.VolumeIndex();
  for (let i = 0; i < size; i++) index.upsert(availableVolume(i));
  // Claims whose partners are spread over the whole index; a prime stride avoids patterns.
  const claims = Array.from({ length: queries }, (_, q) => claim((q * 7919) % size));
  for (const c of claims) index.findBestMatch(c, false); // JIT warm-up
  let unmatched = 0;
  const batchMicros: number[] = [];
  for (let b = 0; b < BATCHES; b++) {
    const startedAt = performance.now();
    for (const c of claims) {
      if (!index.findBestMatch(c, false)) unmatched++;
    }
    batchMicros.push(((performance.now() - startedAt) * 1000) / queries);
  }
  return { microsPerClaim: median(batchMicros)!, unmatched };
}

async function run(opts: BenchOptions): Promise<ScenarioResult> {
  const mod = await loadIndexModule();
  if (typeof mod === 'string') return { rows: [skippedRow(NAME, 'per-claim decision, 1k vs 10k PVs', mod)], details: { skipped: mod } };
  const queries = 2000;
  const samples: Record<string, number[]> = { '1000': [], '10000': [] };
  let unmatched = 0;
  try {
    for (let rep = 0; rep < opts.repetitions; rep++) {
      note(`[${NAME}] repetition ${rep + 1}/${opts.repetitions}`);
      for (const size of rep % 2 === 0 ? SIZES : [...SIZES].reverse()) {
        const sample = measureSize(mod, size, queries);
        samples[String(size)].push(sample.microsPerClaim);
        unmatched += sample.unmatched;
      }
    }
  } catch (err) {
    return { rows: [failedRow(NAME, 'per-claim decision', err)], details: { samples } };
  }
  const r = medianOfRatios(samples['10000'], samples['1000']);
  const rows: ResultRow[] = SIZES.map((size) => ({
    scenario: NAME,
    label: `per-claim decision, ${formatNumber(size)} Available PVs`,
    status: 'ok',
    measured: `${formatNumber(median(samples[String(size)]), 1)} µs/claim`,
  }));
  rows.push({
    scenario: NAME,
    label: 'decision time 10k / 1k',
    status: unmatched > 0 ? 'failed' : 'ok',
    measured: unmatched > 0 ? `${formatRatio(r)} but ${unmatched} claims found no match` : formatRatio(r),
    target: checkAtMost(r, 2, '< 2×', true),
  });
  return { rows, details: { queries, microsPerClaim: samples, unmatched } };
}

export const matchingScenario: Scenario = {
  name: NAME,
  aliases: ['match', '3'],
  description: 'per-claim matching decision time with 1,000 vs 10,000 Available PVs (in-process VolumeIndex)',
  run,
};
