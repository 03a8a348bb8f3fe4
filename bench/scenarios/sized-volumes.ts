/**
 * Sized host-path volumes (`sizing: image`): provision and delete rates of loop-mounted ext4
 * images, and one usage pass over them (one statfs each) beside the same pass over plain
 * directories with the same files (du), in one run. Needs root and a private mount namespace
 * (bench/sized/child.ts runs inside one, on tmpfs); skipped, saying why, elsewhere.
 */
import { fileURLToPath } from 'node:url';
import { imageSupportProblem } from '../../src/plugins/host-path/image-volume.js';
import { mountNamespaceSkipReason, runInMountNamespace } from '../../test/helpers/mount-namespace.js';
import { note } from '../progress.js';
import { skippedRow, type BenchOptions, type ResultRow, type Scenario, type ScenarioResult } from '../scenario.js';
import { formatNumber, median } from '../stats.js';

const NAME = 'sized-volumes';
const CHILD = fileURLToPath(new URL('../sized/child.js', import.meta.url));

interface Pass {
  wallSeconds: number;
  selfCpuSeconds: number;
  childCpuSeconds: number;
  measured: number;
}

interface ChildResult {
  count: number;
  provisionSeconds: number;
  deleteSeconds: number;
  statfs: Pass[];
  du: Pass[];
}

function passRow(label: string, passes: Pass[], count: number): ResultRow {
  const wall = median(passes.map((p) => p.wallSeconds));
  const self = median(passes.map((p) => p.selfCpuSeconds));
  const child = median(passes.map((p) => p.childCpuSeconds));
  return {
    scenario: NAME,
    label,
    status: passes.every((p) => p.measured === count) ? 'ok' : 'failed',
    measured: `${formatNumber(wall, 2)} s wall, CPU ${formatNumber(self, 2)} s in-process + ${formatNumber(child, 2)} s children (median of ${passes.length})`,
  };
}

export const sizedVolumesScenario: Scenario = {
  name: NAME,
  aliases: ['sized'],
  description: 'sized host-path volumes (loop-mounted images): provision/delete rate, statfs usage beside du',
  async run(opts: BenchOptions): Promise<ScenarioResult> {
    const why = mountNamespaceSkipReason() ?? imageSupportProblem();
    if (why) return { rows: [skippedRow(NAME, 'sized volumes', why)], details: { skipped: why } };
    const count = opts.sizes?.[0] ?? (opts.quick ? 100 : 1000);
    note(`${NAME}: ${count} sized volumes in a private mount namespace`);
    // About a third of a second per volume on this kind of machine, made and deleted one at a time.
    const r = await runInMountNamespace<ChildResult>(CHILD, [String(count)], Math.max(120_000, count * 1_500));
    const statfsWall = median(r.statfs.map((p) => p.wallSeconds)) ?? NaN;
    const duWall = median(r.du.map((p) => p.wallSeconds)) ?? NaN;
    const rows: ResultRow[] = [
      { scenario: NAME, label: `provision ${formatNumber(count)} sized volumes (16Mi, one at a time)`, status: 'ok', measured: `${formatNumber(count / r.provisionSeconds, 1)} volumes/s` },
      { scenario: NAME, label: `delete ${formatNumber(count)} sized volumes`, status: 'ok', measured: `${formatNumber(count / r.deleteSeconds, 1)} volumes/s` },
      passRow(`usage pass, ${formatNumber(count)} sized volumes (statfs)`, r.statfs, count),
      passRow(`usage pass, ${formatNumber(count)} plain directories × 100 files (du)`, r.du, count),
      { scenario: NAME, label: 'statfs pass / du pass (wall, same run)', status: 'ok', measured: `${formatNumber(statfsWall / duWall, 3)}×` },
    ];
    return { rows, details: r as unknown as Record<string, unknown> };
  },
};
