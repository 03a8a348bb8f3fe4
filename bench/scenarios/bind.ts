/**
 * Scenarios 1, 2, 5 and 6: bind N pre-created PV/PVC pairs with the controller in a child
 * process, beside the write floor measured in the same repetition on a fresh server of the same
 * kind (order alternates between repetitions so drift hits both alike). Reports pairs/s, p50/p99
 * claim-create → Bound, the bind/floor time ratio, API writes per bound claim and the
 * controller's peak RSS, and that peak less the controller's RSS on an empty server per cached
 * object. With --baseline, each repetition also binds and hand-binds on the other
 * checkout's server with that checkout's controller, and the table gives this build's times
 * over those.
 */
import { runBind, type BindSample } from '../binding/bind-run.js';
import { measureEmptyControllerRss } from '../binding/empty-controller.js';
import { measureFloorOn, type FloorSample } from '../binding/floor.js';
import { newRunId } from '../fixtures.js';
import { note } from '../progress.js';
import { startController } from '../proc/controller.js';
import { embeddedServerUnavailable, missingCommand, startApiServer } from '../proc/servers.js';
import { failedRow, heavyRepetitions, skippedRow, type BenchOptions, type ResultRow, type Scenario, type ScenarioResult, type StorageKind } from '../scenario.js';
import { baselineRows, bindRows, flatnessRows, floorOnlyRows, type SizeSamples } from './bind-rows.js';

const NAME = 'bind';


async function measureFloor(opts: BenchOptions, storage: StorageKind, n: number, cli?: string): Promise<FloorSample> {
  const server = await startApiServer(opts, storage, cli);
  try {
    return await measureFloorOn(opts, server, newRunId(), n, `${storage} ${n}`);
  } finally {
    await server.stop();
  }
}

async function measureBind(opts: BenchOptions, storage: StorageKind, n: number, cli?: string): Promise<BindSample> {
  const server = await startApiServer(opts, storage, cli);
  try {
    return await runBind(opts, server, newRunId(), n, async (kubeconfig) => startController(opts, { kubeconfig, cli }));
  } finally {
    await server.stop();
  }
}

/** The controller's peak RSS against a fresh server holding one canary pair (empty-controller.ts). */
async function measureEmptyRss(opts: BenchOptions, storage: StorageKind): Promise<number | null> {
  const server = await startApiServer(opts, storage);
  try {
    return await measureEmptyControllerRss(server, newRunId(), async (kubeconfig) => startController(opts, { kubeconfig }));
  } finally {
    await server.stop();
  }
}

async function measureSize(opts: BenchOptions, storage: StorageKind, n: number, withController: boolean): Promise<SizeSamples> {
  const samples: SizeSamples = { storage, n, floors: [], binds: [], emptyRssBytes: [] };
  const reps = heavyRepetitions(opts);
  for (let rep = 0; rep < reps; rep++) {
    note(`[${NAME}] ${storage} n=${n} repetition ${rep + 1}/${reps}`);
    const floorFirst = rep % 2 === 1;
    if (floorFirst && !opts.noFloor) samples.floors.push(await measureFloor(opts, storage, n));
    if (withController) samples.binds.push(await measureBind(opts, storage, n));
    // On an embedded server only: a given cluster is never empty.
    if (withController && !opts.kubeconfig) samples.emptyRssBytes.push(await measureEmptyRss(opts, storage));
    if (!floorFirst && !opts.noFloor) samples.floors.push(await measureFloor(opts, storage, n));
    if (opts.baselineCli) await measureBaseline(opts, storage, n, withController, samples);
  }
  return samples;
}

/** One repetition on the --baseline checkout: its server's floor, and its controller binding on its server. */
async function measureBaseline(opts: BenchOptions, storage: StorageKind, n: number, withController: boolean, samples: SizeSamples): Promise<void> {
  note(`[${NAME}] ${storage} n=${n} baseline checkout`);
  samples.baseline ??= { floorMs: [], binds: [] };
  if (!opts.noFloor) samples.baseline.floorMs.push((await measureFloor(opts, storage, n, opts.baselineCli)).ms);
  if (withController) samples.baseline.binds.push(await measureBind(opts, storage, n, opts.baselineCli));
}

function defaultSizes(opts: BenchOptions): number[] {
  return opts.sizes ?? (opts.quick ? [100] : [1000, 10_000]);
}

async function run(opts: BenchOptions): Promise<ScenarioResult> {
  const noServer = await embeddedServerUnavailable(opts);
  if (noServer) return { rows: [skippedRow(NAME, 'bind, floor, writes/claim, RSS', noServer)], details: { skipped: noServer } };
  const noController = missingCommand('controller');
  const storages: StorageKind[] = opts.kubeconfig ? ['memory'] : opts.storages;
  const rows: ResultRow[] = [];
  const details: SizeSamples[] = [];
  for (const storage of storages) {
    for (const n of defaultSizes(opts)) {
      const where = opts.kubeconfig ? 'cluster' : storage;
      try {
        const samples = await measureSize(opts, storage, n, noController === undefined);
        details.push(samples);
        rows.push(...(noController ? floorOnlyRows(NAME, where, samples, noController) : bindRows(NAME, where, samples)), ...baselineRows(NAME, where, samples));
      } catch (err) {
        rows.push(failedRow(NAME, `${where}, ${n} pairs`, err));
      }
    }
  }
  rows.push(...flatnessRows(NAME, details));
  return { rows, details: { concurrency: opts.concurrency, sizes: details } };
}

export const bindScenario: Scenario = {
  name: NAME,
  aliases: ['floor', 'requests', 'conflicts', 'rss', '1', '2', '5', '6'],
  description: 'bind N pre-created pairs vs the write floor; writes and conflicts per claim; controller peak RSS and RSS per cached object',
  run,
};
