/**
 * Volume usage collection cost: one full pass of the VolumeUsageCollector over N bound host-path
 * volumes of 100 small files each, measured by the real du provider (two `du` walks plus a statfs
 * per volume, at the collector's default concurrency). Reports the median of 3 passes: wall time,
 * the controller process's own CPU, and the CPU of the du children (from /proc/self/stat's
 * cutime + cstime, which count reaped children). The files were just written, so the page cache
 * is warm: this is the steady-state cost, not a cold-disk walk.
 *
 * Runs in the harness (`--scenario usage-collection`) or alone:
 * `node dist/bench/scenarios/usage-collection.js [volumes]`.
 */
import { promises as fs, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { VolumeUsageCollector, DEFAULT_COLLECT_CONCURRENCY } from '../../src/metrics/collector.js';
import { pluginUsageSource } from '../../src/metrics/observability.js';
import { HostPathPlugin } from '../../src/plugins/host-path/index.js';
import { PluginRegistry } from '../../src/plugins/registry.js';
import { note } from '../progress.js';
import type { BenchOptions, ResultRow, Scenario, ScenarioResult } from '../scenario.js';
import { formatNumber, median } from '../stats.js';

const NAME = 'usage-collection';
const FILES_PER_VOLUME = 100;
const FILE_BYTES = 4096;
const PASSES = 3;
/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ; 100 on Linux). */
const USER_HZ = 100;

interface PassCost {
  wallSeconds: number;
  selfCpuSeconds: number;
  childCpuSeconds: number;
  measured: number;
}

class MapLister<T> {
  constructor(private readonly items: Map<string, T>) {}
  get(key: string): T | undefined {
    return this.items.get(key);
  }
  list(): T[] {
    return [...this.items.values()];
  }
}

/** Children CPU (user + system) reaped so far, in seconds. */
function childCpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the comm field: state is fields[0]; cutime and cstime are stat fields 16 and 17.
  return (Number(fields[13]) + Number(fields[14])) / USER_HZ;
}

async function makeVolumes(root: string, count: number): Promise<{ volumes: Map<string, PersistentVolume>; claims: Map<string, PersistentVolumeClaim> }> {
  const volumes = new Map<string, PersistentVolume>();
  const claims = new Map<string, PersistentVolumeClaim>();
  const payload = Buffer.alloc(FILE_BYTES, 1);
  for (let i = 0; i < count; i++) {
    const name = `pv-${i}`;
    const dir = join(root, name);
    await fs.mkdir(dir);
    await Promise.all(Array.from({ length: FILES_PER_VOLUME }, (_, f) => fs.writeFile(join(dir, `f${f}`), payload)));
    volumes.set(name, {
      metadata: { name, uid: `pv-uid-${i}` },
      spec: { capacity: { storage: '1Gi' }, hostPath: { path: dir }, claimRef: { namespace: 'bench', name: `c-${i}`, uid: `c-uid-${i}` } },
      status: { phase: 'Bound' },
    });
    claims.set(`bench/c-${i}`, {
      metadata: { name: `c-${i}`, namespace: 'bench', uid: `c-uid-${i}` },
      spec: { volumeName: name, resources: { requests: { storage: '1Gi' } } },
      status: { phase: 'Bound' },
    });
  }
  return { volumes, claims };
}

export async function measureCollection(count: number, workDir: string): Promise<PassCost[]> {
  const root = await fs.mkdtemp(join(workDir, 'usage-'));
  try {
    note(`${NAME}: writing ${count} volumes × ${FILES_PER_VOLUME} files`);
    const { volumes, claims } = await makeVolumes(root, count);
    const collector = new VolumeUsageCollector({
      volumes: new MapLister(volumes),
      claims: new MapLister(claims),
      source: pluginUsageSource(new PluginRegistry([new HostPathPlugin({ roots: [root] })])),
      periodMs: 0,
    });
    const costs: PassCost[] = [];
    for (let pass = 0; pass < PASSES; pass++) {
      const cpu0 = process.cpuUsage();
      const child0 = childCpuSeconds();
      const summary = await collector.collectOnce();
      const cpu = process.cpuUsage(cpu0);
      costs.push({
        wallSeconds: summary.seconds,
        selfCpuSeconds: (cpu.user + cpu.system) / 1e6,
        childCpuSeconds: childCpuSeconds() - child0,
        measured: summary.measured,
      });
      note(`${NAME}: pass ${pass + 1}: ${summary.seconds.toFixed(2)} s wall, ${summary.measured}/${summary.volumes} measured`);
    }
    return costs;
  } finally {
    await fs.rm(root, { recursive: true, force: true });
  }
}

function row(count: number, costs: PassCost[]): ResultRow {
  const wall = median(costs.map((c) => c.wallSeconds));
  const self = median(costs.map((c) => c.selfCpuSeconds));
  const child = median(costs.map((c) => c.childCpuSeconds));
  const failed = costs.some((c) => c.measured !== count);
  return {
    scenario: NAME,
    label: `${formatNumber(count)} volumes × ${FILES_PER_VOLUME} files, concurrency ${DEFAULT_COLLECT_CONCURRENCY}`,
    status: failed ? 'failed' : 'ok',
    measured: `${formatNumber(wall, 2)} s wall, CPU ${formatNumber(self, 2)} s controller + ${formatNumber(child, 2)} s du (median of ${PASSES})`,
  };
}

export const usageCollectionScenario: Scenario = {
  name: NAME,
  aliases: ['usage'],
  description: 'one volume usage collection pass over host-path volumes (du), wall and CPU',
  async run(opts: BenchOptions): Promise<ScenarioResult> {
    const count = opts.sizes?.[0] ?? (opts.quick ? 100 : 1000);
    const costs = await measureCollection(count, opts.workDir);
    return { rows: [row(count, costs)], details: { volumes: count, filesPerVolume: FILES_PER_VOLUME, fileBytes: FILE_BYTES, passes: costs } };
  },
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const count = Number(process.argv[2] ?? 1000);
  const costs = await measureCollection(count, tmpdir());
  const r = row(count, costs);
  process.stdout.write(`${r.label}: ${r.measured}\n${JSON.stringify(costs, null, 2)}\n`);
}
