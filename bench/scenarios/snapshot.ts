/**
 * Snapshots of sized host-path volumes (issue 27): snapshot and restore of one sized volume full
 * of random data (1 GiB with 900 MiB; quick: 128 MiB with 100 MiB), on a root that offers
 * reflinks (XFS, reflink=1) and one that does not (ext4), in one run: median times, bytes copied
 * and reflinked, how long the volume's filesystem was frozen, and the copy/reflink time ratio.
 * Needs root, loop devices, mkfs.xfs and a private mount namespace (bench/snapshot/child.ts runs
 * inside one, on tmpfs); skipped, saying why, elsewhere.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { imageSupportProblem } from '../../src/plugins/host-path/image-volume.js';
import { mountNamespaceSkipReason, runInMountNamespace } from '../../test/helpers/mount-namespace.js';
import { note } from '../progress.js';
import { heavyRepetitions, skippedRow, type BenchOptions, type ResultRow, type Scenario, type ScenarioResult } from '../scenario.js';
import { formatNumber, median, ratio } from '../stats.js';

const NAME = 'snapshot';
const CHILD = fileURLToPath(new URL('../snapshot/child.js', import.meta.url));
const MIB = 1024 * 1024;

interface Sample {
  seconds: number;
  copiedBytes: number;
  reflinkedBytes: number;
  frozenSeconds?: number;
}

interface RootResult {
  snapshots: Sample[];
  restores: Sample[];
}

interface ChildResult {
  volumeMib: number;
  dataMib: number;
  repetitions: number;
  reflink: RootResult;
  copy: RootResult;
}

function xfsMissing(): string | undefined {
  try {
    execFileSync('mkfs.xfs', ['-V'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'mkfs.xfs is not installed (Debian: apt-get install xfsprogs)';
  }
}

function row(label: string, samples: Sample[]): ResultRow {
  const seconds = median(samples.map((s) => s.seconds));
  const copied = median(samples.map((s) => s.copiedBytes)) ?? 0;
  const reflinked = median(samples.map((s) => s.reflinkedBytes)) ?? 0;
  const frozen = median(samples.flatMap((s) => (s.frozenSeconds === undefined ? [] : [s.frozenSeconds])));
  const frozenText = frozen === null ? '' : `, frozen ${formatNumber(frozen, 3)} s`;
  return {
    scenario: NAME,
    label,
    status: 'ok',
    measured: `${formatNumber(seconds, 3)} s, ${formatNumber(copied / MIB, 1)} MiB copied + ${formatNumber(reflinked / MIB, 1)} MiB reflinked${frozenText} (median of ${samples.length})`,
  };
}

export const snapshotScenario: Scenario = {
  name: NAME,
  aliases: ['snapshots', '27'],
  description: 'snapshot and restore of a sized host-path volume: time and bytes copied, reflink root (XFS) vs copy root (ext4)',
  async run(opts: BenchOptions): Promise<ScenarioResult> {
    const why = mountNamespaceSkipReason() ?? imageSupportProblem() ?? xfsMissing();
    if (why) return { rows: [skippedRow(NAME, 'snapshots', why)], details: { skipped: why } };
    const [volumeMib, dataMib] = opts.quick ? [128, 100] : [1024, 900];
    const repetitions = heavyRepetitions(opts);
    note(`${NAME}: a ${volumeMib} MiB sized volume with ${dataMib} MiB of data, ${repetitions} snapshot(s) and restore(s) per root`);
    const r = await runInMountNamespace<ChildResult>(CHILD, [String(volumeMib), String(dataMib), String(repetitions)], 1_800_000);
    const size = `${volumeMib} MiB volume, ${dataMib} MiB data`;
    const snapshotRatio = ratio(median(r.copy.snapshots.map((s) => s.seconds)), median(r.reflink.snapshots.map((s) => s.seconds)));
    const restoreRatio = ratio(median(r.copy.restores.map((s) => s.seconds)), median(r.reflink.restores.map((s) => s.seconds)));
    const rows: ResultRow[] = [
      row(`snapshot, reflink root (XFS), ${size}`, r.reflink.snapshots),
      row(`snapshot, copy root (ext4), ${size}`, r.copy.snapshots),
      row(`restore, reflink root (XFS), ${size}`, r.reflink.restores),
      row(`restore, copy root (ext4), ${size}`, r.copy.restores),
      { scenario: NAME, label: 'snapshot time, copy / reflink (same run)', status: 'ok', measured: `${formatNumber(snapshotRatio, 1)}×` },
      { scenario: NAME, label: 'restore time, copy / reflink (same run)', status: 'ok', measured: `${formatNumber(restoreRatio, 1)}×` },
    ];
    return { rows, details: r as unknown as Record<string, unknown> };
  },
};
