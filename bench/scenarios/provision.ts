/**
 * Scenario 4: provision N claims through the host-path plugin with the controller in a child
 * process, then reclaim them (policy Delete): volumes/s for each direction, median over
 * repetitions, each on a fresh API server and a fresh host-path root.
 */
import { runProvisionFloor } from '../binding/provision-floor.js';
import { runProvision, type ProvisionLauncher, type ProvisionSample } from '../binding/provision-run.js';
import { note } from '../progress.js';
import { commandHelp, hasFlag, startController, type OptionalFlag } from '../proc/controller.js';
import { embeddedServerUnavailable, missingCommand, startApiServer } from '../proc/servers.js';
import { checkAtLeast, failedRow, heavyRepetitions, skippedRow, type BenchOptions, type ResultRow, type Scenario, type ScenarioResult, type StorageKind } from '../scenario.js';
import { formatNumber, median } from '../stats.js';
import { baselineRows, flatRows, floorRows, type ProvisionSizeSamples } from './provision-rows.js';

const NAME = 'provision';
const TARGET_PER_SECOND = 300;

/** The controller flag that configures a host-path root, as its --help names it. */
export function hostPathRootFlag(): string | undefined {
  const match = /(--host-?path-roots?)\b/.exec(commandHelp('controller'));
  return match && hasFlag('controller', match[1]) ? match[1] : undefined;
}

/** Our controller with the host-path plugin on the run's root. */
export function launchHostPathController(opts: BenchOptions, rootFlag: string, extra: OptionalFlag[] = [], cli?: string): ProvisionLauncher {
  return async (kubeconfig, root) =>
    startController(opts, {
      kubeconfig,
      ...(cli ? { cli } : {}),
      flags: [
        { flag: rootFlag, args: [rootFlag, root] },
        // Usage measurement has its own scenario (usage-collection): a `du` pass over the fresh
        // volumes landing inside the timed window would be measured here instead.
        { flag: '--volume-stats-agg-period', args: ['--volume-stats-agg-period', '0'] },
        ...extra,
      ],
    });
}

async function unavailable(opts: BenchOptions): Promise<string | undefined> {
  if (opts.kubeconfig) return 'host-path volumes live on this machine; not run against a real cluster';
  const problem = (await embeddedServerUnavailable(opts)) ?? missingCommand('controller');
  if (problem) return problem;
  return hostPathRootFlag() ? undefined : '`pv-controller controller` has no host-path root flag yet';
}

function rows(storage: string, n: number, samples: ProvisionSample[]): ResultRow[] {
  const provision = median(samples.map((s) => (n * 1000) / s.provisionMs));
  const reclaim = median(samples.map((s) => (n * 1000) / s.deleteMs));
  const wrong = samples.filter((s) => s.directoriesAfterProvision !== n || s.directoriesAfterDelete !== 0);
  const out: ResultRow[] = [
    { scenario: NAME, label: `provision ${formatNumber(n)} host-path, ${storage}`, status: 'ok', measured: `${formatNumber(provision)} volumes/s`, target: checkAtLeast(provision, TARGET_PER_SECOND, `≥ ${TARGET_PER_SECOND}/s`) },
    { scenario: NAME, label: `delete ${formatNumber(n)} host-path, ${storage}`, status: 'ok', measured: `${formatNumber(reclaim)} volumes/s`, target: checkAtLeast(reclaim, TARGET_PER_SECOND, `≥ ${TARGET_PER_SECOND}/s`) },
  ];
  const perVolume = (way: 'provision' | 'delete'): string => {
    const t = samples.map((s) => s.traffic[way]);
    const part = (values: Array<number | null>, unit: string, digits: number): string | undefined => {
      const m = values.includes(null) ? null : median(values as number[]);
      return m === null ? undefined : `${m.toFixed(digits)} ${unit}`;
    };
    return [
      part(t.map((x) => x.writesPerVolume), 'writes', 2),
      part(t.map((x) => x.requestsPerVolume), 'requests', 2),
      part(t.map((x) => x.conflictsPerVolume), '409s', 3),
      part(t.map((x) => x.controllerCpuMsPerVolume), 'ms controller CPU', 2),
      part(t.map((x) => x.serverCpuMsPerVolume), 'ms API server CPU', 2),
    ]
      .filter(Boolean)
      .join(', ');
  };
  out.push(
    { scenario: NAME, label: `per provisioned volume, ${storage}`, status: 'ok', measured: perVolume('provision') },
    { scenario: NAME, label: `per deleted volume, ${storage}`, status: 'ok', measured: perVolume('delete') },
  );
  if (wrong.length > 0) {
    const s = wrong[0];
    out.push({ scenario: NAME, label: `host-path directories, ${storage}`, status: 'failed', measured: `${s.directoriesAfterProvision} after provisioning ${n}, ${s.directoriesAfterDelete} left after deleting` });
  }
  return out;
}

/**
 * One repetition: our controller, then (at the run's smallest size, where the rate targets are)
 * the floor on the same server; with --baseline, its controller on a fresh server.
 */
async function repetition(opts: BenchOptions, storage: StorageKind, n: number, rep: number, into: ProvisionSizeSamples, withFloor: boolean): Promise<void> {
  const runId = `${Date.now().toString(36)}${rep}`;
  const server = await startApiServer(opts, storage);
  try {
    into.ours.push(await runProvision(opts, server, runId, n, launchHostPathController(opts, hostPathRootFlag()!)));
    if (withFloor) into.floor.push(await runProvisionFloor(opts, server, runId, n));
  } finally {
    await server.stop();
  }
  if (!opts.baselineCli) return;
  note(`[${NAME}] ${storage} n=${n} repetition ${rep + 1}: baseline checkout's controller`);
  const other = await startApiServer(opts, storage);
  try {
    into.baseline.push(await runProvision(opts, other, `${runId}b`, n, launchHostPathController(opts, hostPathRootFlag()!, [], opts.baselineCli)));
  } finally {
    await other.stop();
  }
}

async function run(opts: BenchOptions): Promise<ScenarioResult> {
  const why = await unavailable(opts);
  if (why) return { rows: [skippedRow(NAME, 'provision and delete host-path volumes', why)], details: { skipped: why } };
  // The rate targets are at 1,000 volumes; --provision-n 1000,10000 also shows whether the cost per volume stays flat.
  const sizes = opts.provisionSizes ?? [opts.sizes ? Math.min(...opts.sizes) : opts.quick ? 50 : 1000];
  const reps = heavyRepetitions(opts);
  const result: ResultRow[] = [];
  const details: Array<{ storage: StorageKind } & ProvisionSizeSamples> = [];
  for (const storage of opts.storages) {
    const measuredSizes: ProvisionSizeSamples[] = [];
    for (const n of sizes) {
      const samples: ProvisionSizeSamples = { n, ours: [], floor: [], baseline: [] };
      try {
        for (let rep = 0; rep < reps; rep++) {
          note(`[${NAME}] ${storage} n=${n} repetition ${rep + 1}/${reps}`);
          await repetition(opts, storage, n, rep, samples, n === Math.min(...sizes));
        }
        result.push(...rows(storage, n, samples.ours), ...floorRows(NAME, storage, samples), ...baselineRows(NAME, storage, samples));
        measuredSizes.push(samples);
      } catch (err) {
        result.push(failedRow(NAME, `${storage}, ${n} claims`, err));
      }
      details.push({ storage, ...samples });
    }
    result.push(...flatRows(NAME, storage, measuredSizes));
  }
  return { rows: result, details: { sizes: details } };
}

export const provisionScenario: Scenario = {
  name: NAME,
  aliases: ['reclaim', '4'],
  description: 'provision N host-path volumes for N claims, then reclaim (Delete) them: volumes/s each',
  run,
};
