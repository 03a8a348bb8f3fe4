/**
 * What a chaos run reports: a progress line every ten seconds, the JSON record (the figures and
 * every violation), and the summary printed at the end; a failing run also prints how to
 * replay it and where its history is.
 */
import type { Disruptor } from './disruptor.js';
import type { InvariantReport } from './invariants.js';
import type { ControllerFleet, EmbeddedApiServer } from './processes.js';
import type { FaultProxy } from './proxy.js';
import type { Workload } from './workload.js';

export interface ChaosRecord {
  seed: number;
  server: 'embedded' | 'real';
  targetClaims: number;
  claimsCreated: number;
  claimsByKind: Record<string, number>;
  claimsAtEnd: Record<string, number>;
  volumesAtEnd: number;
  failedVolumes: string[];
  controllerKills: number;
  /** Controllers that exited by themselves (lost the lease) and were started again. */
  controllerLeaseLosses: number;
  apiServerKills: number;
  twoControllerStretches: number;
  unelectedStretches: number;
  apiFaultBursts: number;
  apiRequestsThroughProxy: number;
  apiFaults: Record<string, number>;
  cloudFaults: Record<string, number>;
  workloadRequests: number;
  chaosMs: number;
  settled: boolean;
  /** What had not finished when the settle timeout passed. */
  stillInFlight: string[];
  totalMs: number;
  invariants: InvariantReport;
  /** The CSI driver's figures, when the run had one: volumes it holds at the end, the controllers' calls through the CSI proxy, faults fired by kind. */
  csi?: {
    driver: string;
    driverVolumes: number;
    createVolumeCalls: number;
    deleteVolumeCalls: number;
    faults: Record<string, number>;
    /** The mock's log: volumes it made in all, and CreateVolume names that made more than one (not a leak when all were deleted). */
    volumesMade?: number;
    namesWithSeveralVolumes?: Record<string, number>;
    /** With --snapshots: the workload's snapshot operations, the driver's snapshots at the end, the controllers' snapshot calls. */
    snapshots?: { ops: Record<string, number>; driverSnapshots: number; createSnapshotCalls: number; deleteSnapshotCalls: number };
  };
  dir: string;
  historyFile: string;
}

export interface ProgressCounters {
  workload: Workload;
  disruptor: Disruptor;
  fleet: ControllerFleet;
  proxy: FaultProxy;
  apiServer: EmbeddedApiServer | undefined;
  target: number;
  startedAt: number;
}

const sum = (counts: Record<string, number>): number => Object.values(counts).reduce((a, b) => a + b, 0);

function byKind(counts: Record<string, number>): string {
  const parts = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`);
  return parts.length > 0 ? parts.join(', ') : 'none';
}

export function progressLine(c: ProgressCounters): string {
  const seconds = Math.round((Date.now() - c.startedAt) / 1000);
  return [
    `chaos ${seconds}s`,
    `claims ${c.workload.claimsCreated}/${c.target}`,
    `controller kills ${c.fleet.kills}`,
    `api-server kills ${c.apiServer?.kills ?? 0}`,
    `api faults ${c.proxy.totalFaults()}`,
    `cloud faults ${sum(c.disruptor.cloudFaultsFired())}`,
    `controllers ${c.fleet.count()}${c.fleet.unelected() > 0 ? ' (no leader election)' : ''}`,
  ].join(' · ');
}

function csiLine(c: NonNullable<ChaosRecord['csi']>): string {
  const made = c.volumesMade === undefined ? '' : `; ${c.volumesMade} volumes made, ${Object.keys(c.namesWithSeveralVolumes ?? {}).length} names made more than one`;
  const snaps = c.snapshots;
  const snapLine = snaps ? `\n  snapshots       ${byKind(snaps.ops)}; CreateSnapshot ${snaps.createSnapshotCalls}, DeleteSnapshot ${snaps.deleteSnapshotCalls} calls; ${snaps.driverSnapshots} driver snapshots at the end` : '';
  return `  CSI (${c.driver})      ${sum(c.faults)} faults: ${byKind(c.faults)}; CreateVolume ${c.createVolumeCalls}, DeleteVolume ${c.deleteVolumeCalls} calls; ${c.driverVolumes} driver volumes at the end${made}${snapLine}`;
}

export function summaryLines(r: ChaosRecord, replay: string): string[] {
  const violations = r.invariants.violations;
  const lines = [
    `chaos run, seed ${r.seed}, against the ${r.server === 'real' ? 'real control plane (no API server kills there)' : 'embedded API server on SQLite'}`,
    `  duration        ${(r.chaosMs / 1000).toFixed(0)} s of chaos, ${(r.totalMs / 1000).toFixed(0)} s in all (${r.settled ? 'settled' : 'did NOT settle'})`,
    `  claims          ${r.claimsCreated} created (${byKind(r.claimsByKind)}); at the end ${byKind(r.claimsAtEnd)}; ${r.volumesAtEnd} PVs, ${r.failedVolumes.length} Failed`,
    `  kills           controller ${r.controllerKills}, API server ${r.apiServerKills}; ${r.controllerLeaseLosses} controllers lost their lease, exited and were restarted`,
    `  stretches       two controllers with leader election ${r.twoControllerStretches}, without ${r.unelectedStretches}; API fault bursts ${r.apiFaultBursts}`,
    `  API faults      ${sum(r.apiFaults)} of ${r.apiRequestsThroughProxy} controller requests during the chaos: ${byKind(r.apiFaults)}`,
    `  cloud faults    ${sum(r.cloudFaults)}: ${byKind(r.cloudFaults)}`,
    ...(r.csi ? [csiLine(r.csi)] : []),
    `  invariants      ${sum(r.invariants.checked)} checks (${byKind(r.invariants.checked)}), ${violations.length} violations`,
  ];
  if (!r.settled) lines.push(`  still in flight when the settle timeout passed: ${r.stillInFlight.slice(0, 20).join('; ') || 'nothing (claims and PVs kept changing)'}`);
  for (const v of violations.slice(0, 50)) lines.push(`  VIOLATION ${v.invariant}: ${v.detail}`);
  if (violations.length > 50) lines.push(`  ... and ${violations.length - 50} more in the record`);
  if (violations.length > 0) {
    lines.push(`  replay with:  ${replay}`);
    lines.push(`  history (${r.workloadRequests} workload requests): ${r.historyFile}; logs of every process: ${r.dir}/logs`);
  }
  return lines;
}
