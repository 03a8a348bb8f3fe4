/**
 * What the CSI scenarios share: each provisioner under test in turn (--provisioner), on a world
 * of its own (bench/csi/world.ts: fresh control plane, mock driver, proxy), skipped with the
 * reason where its peers are not built, a failed row where it breaks; and the figures formatted.
 */
import { join } from 'node:path';
import { csiPeersUnavailable, type ProvisionerKind } from '../csi/binaries.js';
import type { Phase } from '../csi/speed.js';
import { startCsiWorld, type CsiWorld, type CsiWorldOptions } from '../csi/world.js';
import { failedRow, skippedRow, type BenchOptions, type ResultRow, type ScenarioResult } from '../scenario.js';
import { formatNumber } from '../stats.js';
import { megabytes } from './side-by-side.js';

export async function perProvisioner<T>(
  opts: BenchOptions,
  scenario: string,
  world: Omit<CsiWorldOptions, 'provisioner' | 'dir'>,
  measure: (world: CsiWorld) => Promise<T>,
  rows: (sample: T) => ResultRow[],
): Promise<ScenarioResult> {
  const out: ResultRow[] = [];
  const details: Record<string, unknown> = {};
  for (const kind of opts.provisioners) {
    const why = csiPeersUnavailable(kind, world.resizer);
    if (why) {
      out.push(skippedRow(scenario, kind, why));
      continue;
    }
    try {
      const w = await startCsiWorld({ ...world, provisioner: kind, dir: join(opts.workDir, `${scenario}-${kind}`), workers: opts.concurrency });
      try {
        const sample = await measure(w);
        out.push(...rows(sample));
        details[kind] = sample;
      } finally {
        await w.stop();
      }
    } catch (err) {
      out.push(failedRow(scenario, kind, err));
      details[kind] = { error: String(err) };
    }
  }
  return { rows: out, details };
}

function ms(v: number | null): string {
  return v === null ? 'n/a' : `${formatNumber(v, 1)} ms`;
}

/** "412 claims/s, p50 20.1 ms, p99 80.2 ms". */
export function phaseText(p: Phase, unit: string): string {
  const lat = p.p50Ms === null ? '' : `, p50 ${ms(p.p50Ms)}, p99 ${ms(p.p99Ms)}`;
  return `${formatNumber(p.perSecond, 1)} ${unit}/s${lat}`;
}

/** What runs beside the process under test: KCM binds for the sidecars, only protects for ours. */
export function kcmRole(kind: ProvisionerKind, expanding = false): string {
  if (expanding) return 'KCM';
  return kind === 'pv-controller' ? 'KCM (protection only)' : 'KCM (binder)';
}

/** Who did the work: the sidecar's name, or ours. */
export function underTestName(kind: ProvisionerKind, sidecar: string): string {
  return kind === 'pv-controller' ? 'pv-controller' : sidecar;
}

/** "csi-provisioner 1.20 ms + KCM (binder) 0.80 ms". */
export function cpuText(kind: ProvisionerKind, p: Phase, sidecar: string, expanding = false): string {
  return `${underTestName(kind, sidecar)} ${ms(p.cpuMsPerVolume.underTest)} + ${kcmRole(kind, expanding)} ${ms(p.cpuMsPerVolume.kcm)}`;
}

export { megabytes };
