/**
 * `npm run bench -- --scenario local-path [--n 100,1000] [--repetitions R]`: issue 28's side by
 * side with rancher/local-path-provisioner on a real node (bench/local-path/harness.ts): the same
 * workload — N claims each consumed by a pod that writes a file, in waves within the kubelet's
 * pod limit — against local-path-provisioner, our node agent with plain directories, and our
 * sized volumes, one after the other on the same node, R times. Needs the real control plane
 * (npm run cluster:build), local-path-provisioner (npm run local-path:build), the nodes' kubelet,
 * containerd and images (npm run nodes:build), and root with loop devices.
 */
import { sideBySideUnavailable, startSideBySide, runOneSide } from '../local-path/harness.js';
import { SIDES, type Side } from '../local-path/objects.js';
import type { SideResult } from '../local-path/run-side.js';
import { ratioRows, SCENARIO, sideRow } from '../local-path/rows.js';
import { note } from '../progress.js';
import { scratchDir } from '../proc/servers.js';
import { skippedRow, type BenchOptions, type ResultRow, type Scenario, type ScenarioResult } from '../scenario.js';

/** The pod limit asked of the node: room for the largest wave the machine can hold. */
export const MAX_PODS_ASKED = 250;

export function localPathSizes(opts: Pick<BenchOptions, 'sizes' | 'quick'>): number[] {
  return opts.sizes ?? (opts.quick ? [5] : [100, 1000]);
}

export const localPathScenario: Scenario = {
  name: SCENARIO,
  aliases: ['local-path-provisioner'],
  description: 'rancher/local-path-provisioner beside our node agent (directories, sized volumes) on a real kubelet node: claims/s, pod start, CPU/RSS per volume, deletes, leftovers',
  async run(opts: BenchOptions): Promise<ScenarioResult> {
    const why = sideBySideUnavailable();
    if (why) return { rows: [skippedRow(SCENARIO, 'side by side on a real node', why)], details: { skipped: why } };
    const reps = opts.repetitionsGiven ? opts.repetitions : opts.quick ? 1 : 3;
    const ctx = await startSideBySide(scratchDir(opts, 'local-path'), MAX_PODS_ASKED);
    const rows: ResultRow[] = [];
    const details: Record<string, unknown> = { node: ctx.nodes.nodes[0], cgroups: ctx.cgroups ?? 'no kubepods cgroup found: helper pods CPU unknown', repetitions: reps };
    try {
      for (const n of localPathSizes(opts)) {
        const bySide = Object.fromEntries(SIDES.map((s) => [s, [] as SideResult[]])) as Record<Side, SideResult[]>;
        for (let rep = 1; rep <= reps; rep++) {
          for (const side of SIDES) {
            note(`${SCENARIO}: ${side}, ${n} claims, run ${rep}/${reps}`);
            bySide[side].push(await runOneSide(ctx, side, n, `${n}-${rep}`, { concurrency: opts.concurrency, timeoutMs: 600_000 + n * 2_000 }));
          }
        }
        rows.push(...SIDES.map((side) => sideRow(n, side, bySide[side])), ...ratioRows(n, bySide));
        details[`n${n}`] = bySide;
      }
    } finally {
      await ctx.stop();
    }
    return { rows, details };
  },
};
