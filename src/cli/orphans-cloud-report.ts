/**
 * How `pv-controller orphans --cloud` shows a sweep: kubectl-style tables (the plan, then what
 * `--delete` did) or one JSON document with every field and every tag (`--output json`).
 */
import { formatDuration, type SweepItem, type SweepPlan, type SweepResult } from '../controller/index.js';
import { renderTable } from './orphans-run.js';

/** kubectl's age: the two largest units (`3d4h`, `5h12m`, `40s`). */
export function humanAge(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const units: Array<[number, string]> = [
    [Math.floor(total / 86_400), 'd'],
    [Math.floor((total % 86_400) / 3_600), 'h'],
    [Math.floor((total % 3_600) / 60), 'm'],
    [total % 60, 's'],
  ];
  const first = units.findIndex(([n]) => n > 0);
  if (first < 0) return '0s';
  const next = units[first + 1];
  return `${units[first][0]}${units[first][1]}${next !== undefined && next[0] > 0 ? `${next[0]}${next[1]}` : ''}`;
}

/**
 * A cell as a terminal may show it: names, tags and reasons come from the cloud, where anybody
 * with access wrote them, so control characters (escape sequences, newlines) are shown as \xNN.
 */
export function safeCell(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

function table(header: string[], rows: string[][]): string {
  return renderTable(header, rows.map((row) => row.map(safeCell)));
}

function ageOf(item: SweepItem, now: Date): string {
  return item.createdAt === undefined ? '<unknown>' : humanAge(now.getTime() - item.createdAt.getTime());
}

function statusText(item: SweepItem, dryRun: boolean): string {
  if (item.status === 'orphan') return dryRun ? 'orphan (dry run: would be deleted)' : 'orphan';
  return `skipped: ${item.status}: ${item.reason}`;
}

export function planTable(plan: SweepPlan, dryRun: boolean): string {
  const rows = [...plan.volumes, ...plan.snapshots].map((item) => [
    item.kind,
    item.id,
    item.name,
    `${item.sizeGiB}Gi`,
    ageOf(item, plan.now),
    item.claim ? `${item.claim.namespace}/${item.claim.name}` : '<none>',
    item.kind === 'volume' ? (item.pvName ?? '<none>') : item.sourceVolumeId || '<none>',
    statusText(item, dryRun),
  ]);
  return table(['KIND', 'ID', 'NAME', 'SIZE', 'AGE', 'FOR', 'PV/SOURCE', 'STATUS'], rows);
}

const OUTCOME_TEXT: Record<SweepResult['outcome'], string> = { deleted: 'deleted', absent: 'already gone', kept: 'kept', failed: 'failed' };

export function resultTable(results: SweepResult[]): string {
  const rows = results.map((r) => [r.item.kind, r.item.id, r.item.name, r.detail ? `${OUTCOME_TEXT[r.outcome]}: ${r.detail}` : OUTCOME_TEXT[r.outcome]]);
  return table(['KIND', 'ID', 'NAME', 'RESULT'], rows);
}

export interface SweepSummary {
  orphanVolumes: number;
  orphanVolumeGiB: number;
  orphanSnapshots: number;
  skipped: number;
  deleted: number;
  kept: number;
  failed: number;
}

export function summarize(plan: SweepPlan, results: SweepResult[] | undefined): SweepSummary {
  const orphans = plan.volumes.filter((v) => v.status === 'orphan');
  const count = (outcome: SweepResult['outcome']): number => (results ?? []).filter((r) => r.outcome === outcome).length;
  return {
    orphanVolumes: orphans.length,
    orphanVolumeGiB: orphans.reduce((sum, v) => sum + v.sizeGiB, 0),
    orphanSnapshots: plan.snapshots.filter((s) => s.status === 'orphan').length,
    skipped: [...plan.volumes, ...plan.snapshots].filter((i) => i.status !== 'orphan').length,
    deleted: count('deleted') + count('absent'),
    kept: count('kept'),
    failed: count('failed'),
  };
}

function itemJson(item: SweepItem, now: Date, result: SweepResult | undefined): Record<string, unknown> {
  const { createdAt, claim, ...rest } = item;
  return {
    ...rest,
    createdAt: createdAt?.toISOString() ?? null,
    ageSeconds: createdAt === undefined ? null : Math.floor((now.getTime() - createdAt.getTime()) / 1000),
    ...(item.kind === 'volume' ? { claim: claim ?? null } : { volumeSnapshot: claim ?? null }),
    ...(result ? { result: { outcome: result.outcome, detail: result.detail } } : {}),
  };
}

/** The whole sweep as one JSON document (results only after a delete). */
export function sweepJson(plan: SweepPlan, dryRun: boolean, results?: SweepResult[]): string {
  const byId = new Map((results ?? []).map((r) => [`${r.item.kind}/${r.item.id}`, r]));
  const doc = {
    cloud: plan.cloud,
    clusterName: plan.clusterName,
    olderThan: formatDuration(plan.olderThanMs),
    dryRun,
    listedAt: plan.now.toISOString(),
    volumes: plan.volumes.map((v) => itemJson(v, plan.now, byId.get(`volume/${v.id}`))),
    snapshots: plan.snapshots.map((s) => itemJson(s, plan.now, byId.get(`snapshot/${s.id}`))),
    errors: plan.failures,
    summary: summarize(plan, results),
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}
