/**
 * The `pv-controller usage --unused` view: claims no pod has used for at least `--for`, read from
 * the Unused condition (@pv-controller/kube/claim-usage.ts) the controller — ours or kube-controller-manager 1.37 —
 * keeps on every Bound claim, with each one's capacity; longest unused first. A claim whose
 * usage cannot be told from its condition (none yet, not Bound, being deleted, an unreadable or
 * future time) is listed after them as unknown, with why; a claim in use, or unused for less
 * than `--for`, is not listed.
 *
 * The time is the one at which the controller saw the last pod go: the claim may have been
 * unused for longer (before the condition existed, or while no controller kept it), never for less.
 */
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { formatBytes, quantityToBytes } from '@pv-controller/kube/quantity.js';
import { unusedConditionOf } from '@pv-controller/kube/claim-usage.js';
import { renderColumns } from './usage-table.js';

export interface UnusedRow {
  namespace: string;
  claim: string;
  /** `unused`: no pod for at least `--for`; `unknown`: the condition cannot tell (see `note`). */
  state: 'unused' | 'unknown';
  phase: string;
  volume?: string;
  /** status.capacity.storage as the server has it. */
  capacity?: string;
  /** lastTransitionTime of Unused=True. */
  unusedSince?: string;
  unusedForSeconds?: number;
  note?: string;
}

/** A time as metav1.Time prints it: RFC 3339 in UTC, whole seconds. */
function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}

/**
 * A condition time in milliseconds: the RFC 3339 text of the wire, or the Date client-node's
 * deserialiser makes of it; NaN when neither.
 */
function timeOf(value: unknown): number {
  if (value instanceof Date) return value.getTime();
  return typeof value === 'string' ? Date.parse(value) : Number.NaN;
}

/** Why a claim's usage is unknown, or undefined when its condition tells it. */
function unknownBecause(pvc: PersistentVolumeClaim, now: Date): string | undefined {
  if (pvc.metadata.deletionTimestamp) return 'being deleted';
  if (pvc.status?.phase !== 'Bound') return `${pvc.status?.phase ?? 'Pending'}: only Bound claims carry the Unused condition`;
  const condition = unusedConditionOf(pvc);
  if (!condition) return 'no Unused condition yet: no controller has synced the claim since it was bound (ours with pvc-unused, or kube-controller-manager 1.37+)';
  if (condition.status !== 'True' && condition.status !== 'False') return `Unused condition status "${condition.status}"`;
  if (condition.status === 'False') return undefined;
  const at = timeOf(condition.lastTransitionTime);
  if (Number.isNaN(at)) return 'Unused=True without a readable lastTransitionTime';
  if (at > now.getTime()) return `Unused=True since ${isoSeconds(at)}, in the future (clock skew?)`;
  return undefined;
}

function baseRow(pvc: PersistentVolumeClaim): Pick<UnusedRow, 'namespace' | 'claim' | 'phase' | 'volume' | 'capacity'> {
  return {
    namespace: pvc.metadata.namespace ?? '',
    claim: pvc.metadata.name ?? '',
    phase: pvc.status?.phase ?? 'Pending',
    ...(pvc.spec.volumeName ? { volume: pvc.spec.volumeName } : {}),
    ...(typeof pvc.status?.capacity?.storage === 'string' ? { capacity: pvc.status.capacity.storage } : {}),
  };
}

function byName(a: UnusedRow, b: UnusedRow): number {
  return a.namespace.localeCompare(b.namespace) || a.claim.localeCompare(b.claim);
}

/** The rows: claims unused for at least `forMs` (longest first), then the unknown ones (by name). */
export function buildUnusedRows(claims: readonly PersistentVolumeClaim[], now: Date, forMs: number): UnusedRow[] {
  const unused: UnusedRow[] = [];
  const unknown: UnusedRow[] = [];
  for (const pvc of claims) {
    const why = unknownBecause(pvc, now);
    if (why !== undefined) {
      unknown.push({ ...baseRow(pvc), state: 'unknown', note: why });
      continue;
    }
    const condition = unusedConditionOf(pvc);
    if (condition?.status !== 'True') continue;
    const since = timeOf(condition.lastTransitionTime);
    if (now.getTime() - since < forMs) continue;
    unused.push({ ...baseRow(pvc), state: 'unused', unusedSince: isoSeconds(since), unusedForSeconds: Math.floor((now.getTime() - since) / 1000) });
  }
  unused.sort((a, b) => (b.unusedForSeconds ?? 0) - (a.unusedForSeconds ?? 0) || byName(a, b));
  return [...unused, ...unknown.sort(byName)];
}

/** Seconds as kubectl prints an age: 45s, 12m, 5h3m, 9d4h, 120d. */
export function humanAge(seconds: number): string {
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  if (d >= 10) return `${d}d`;
  if (d > 0) return h > 0 ? `${d}d${h}h` : `${d}d`;
  if (h > 0) return m > 0 ? `${h}h${m}m` : `${h}h`;
  return m > 0 ? `${m}m` : `${seconds}s`;
}

/** The total capacity of the unused rows ("12Gi"), or undefined when a capacity cannot be read. */
export function unusedCapacity(rows: readonly UnusedRow[]): string | undefined {
  let total = 0n;
  for (const r of rows.filter((r) => r.state === 'unused')) {
    try {
      total += quantityToBytes(r.capacity ?? '0');
    } catch {
      return undefined;
    }
  }
  return formatBytes(total);
}

const HEADERS = ['NAMESPACE', 'NAME', 'CAPACITY', 'UNUSED FOR', 'UNUSED SINCE', 'NOTE'] as const;

/** The table, and a last line with the count and the capacity of the unused claims. */
export function renderUnusedTable(rows: readonly UnusedRow[], forText: string): string {
  const cells = rows.map((r) => [
    r.namespace,
    r.claim,
    r.capacity ?? '-',
    r.state === 'unused' ? humanAge(r.unusedForSeconds ?? 0) : 'unknown',
    r.unusedSince ?? '-',
    r.note ?? '',
  ]);
  const unused = rows.filter((r) => r.state === 'unused');
  const total = unusedCapacity(rows);
  const summary = `${unused.length} claim${unused.length === 1 ? '' : 's'} unused for at least ${forText}${total ? `, ${total} in all` : ''}; ${rows.length - unused.length} unknown\n`;
  return `${rows.length > 0 ? renderColumns(HEADERS, cells, new Set([2])) : ''}${summary}`;
}

/** `--output json`. */
export function renderUnusedJson(rows: readonly UnusedRow[], forMs: number): string {
  return `${JSON.stringify({ unusedForAtLeastSeconds: Math.floor(forMs / 1000), totalCapacity: unusedCapacity(rows) ?? null, claims: rows }, null, 2)}\n`;
}
