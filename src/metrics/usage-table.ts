/**
 * The `pv-controller usage` view: every claim with its volume's capacity, used and available
 * bytes and a fill bar, fullest first, built from the claim list and a scrape of the controller's
 * /metrics (`kubelet_volume_stats_*` and `pv_collector_volume_stats_failing`). Claims without
 * numbers are listed last with the reason.
 *
 * Fullness is df's Use%: used / (used + available), rounded up, so a volume on a shared disk that
 * is filling up shows as nearly full even when its own files are small.
 */
import type { Sample } from './text-format.js';

export interface ClaimSummary {
  namespace: string;
  name: string;
  phase: string;
  volumeName?: string;
}

/** The numbers /metrics has for one claim. */
export interface ClaimUsageNumbers {
  capacityBytes?: number;
  usedBytes?: number;
  availableBytes?: number;
  inodes?: number;
  inodesUsed?: number;
  inodesFree?: number;
  /** `reason` of pv_collector_volume_stats_failing, when the latest measurement failed. */
  failing?: string;
}

export interface UsageRow {
  namespace: string;
  claim: string;
  phase: string;
  volume?: string;
  capacityBytes?: number;
  usedBytes?: number;
  availableBytes?: number;
  inodes?: number;
  inodesUsed?: number;
  /** df's Use%, 0–100; absent when there are no numbers. */
  usedPercent?: number;
  /** Why the numbers are missing or may be old. */
  note?: string;
}

const STAT_FIELDS: Record<string, keyof Omit<ClaimUsageNumbers, 'failing'>> = {
  kubelet_volume_stats_capacity_bytes: 'capacityBytes',
  kubelet_volume_stats_used_bytes: 'usedBytes',
  kubelet_volume_stats_available_bytes: 'availableBytes',
  kubelet_volume_stats_inodes: 'inodes',
  kubelet_volume_stats_inodes_used: 'inodesUsed',
  kubelet_volume_stats_inodes_free: 'inodesFree',
};
const FAILING = 'pv_collector_volume_stats_failing';

const REASON_TEXT: Record<string, string> = {
  timeout: 'measurement timed out',
  not_supported: 'usage metrics not supported for this volume type',
  no_plugin: 'no plugin of this controller owns the volume',
  busy: 'previous measurement still running',
  failed: 'measurement failed (see the controller log)',
};

export function claimKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** Groups the volume stats samples of a scrape by claim ("namespace/name"). */
export function usageByClaim(samples: readonly Sample[]): Map<string, ClaimUsageNumbers> {
  const byClaim = new Map<string, ClaimUsageNumbers>();
  for (const s of samples) {
    const field = STAT_FIELDS[s.name];
    if (!field && !(s.name === FAILING && s.value === 1)) continue;
    const ns = s.labels.namespace;
    const name = s.labels.persistentvolumeclaim;
    if (ns === undefined || name === undefined) continue;
    const key = claimKey(ns, name);
    const numbers = byClaim.get(key) ?? {};
    if (field) numbers[field] = s.value;
    else numbers.failing = s.labels.reason ?? 'failed';
    byClaim.set(key, numbers);
  }
  return byClaim;
}

/** df's Use%: used / (used + available), rounded up; undefined without both numbers. */
export function usedPercent(used: number | undefined, available: number | undefined): number | undefined {
  if (used === undefined || available === undefined || !Number.isFinite(used) || !Number.isFinite(available)) return undefined;
  const total = used + available;
  if (total <= 0) return used > 0 ? 100 : undefined;
  return Math.min(100, Math.ceil((used * 100) / total));
}

/**
 * One row per claim, fullest first; claims without numbers last (by namespace, name).
 * `metricsError`: the scrape failed, so every claim says why it has no numbers.
 */
export function buildUsageRows(
  claims: readonly ClaimSummary[],
  usage: ReadonlyMap<string, ClaimUsageNumbers>,
  metricsError?: string,
): UsageRow[] {
  const rows = claims.map((c) => rowFor(c, metricsError === undefined ? usage.get(claimKey(c.namespace, c.name)) : undefined, metricsError));
  return rows.sort(compareRows);
}

function rowFor(claim: ClaimSummary, numbers: ClaimUsageNumbers | undefined, metricsError: string | undefined): UsageRow {
  const row: UsageRow = { namespace: claim.namespace, claim: claim.name, phase: claim.phase };
  if (claim.volumeName) row.volume = claim.volumeName;
  const hasNumbers = numbers?.usedBytes !== undefined && numbers.capacityBytes !== undefined;
  if (numbers && hasNumbers) {
    copyNumbers(row, numbers);
    const percent = usedPercent(numbers.usedBytes, numbers.availableBytes);
    if (percent !== undefined) row.usedPercent = percent;
    if (numbers.failing) row.note = `stale: ${reasonText(numbers.failing)}`;
    return row;
  }
  if (metricsError !== undefined) row.note = `metrics unavailable: ${metricsError}`;
  else if (claim.phase !== 'Bound') row.note = `claim is ${claim.phase || 'Pending'}`;
  else if (numbers?.failing) row.note = reasonText(numbers.failing);
  else row.note = 'not measured yet';
  return row;
}

function copyNumbers(row: UsageRow, n: ClaimUsageNumbers): void {
  if (n.capacityBytes !== undefined) row.capacityBytes = n.capacityBytes;
  if (n.usedBytes !== undefined) row.usedBytes = n.usedBytes;
  if (n.availableBytes !== undefined) row.availableBytes = n.availableBytes;
  if (n.inodes !== undefined) row.inodes = n.inodes;
  if (n.inodesUsed !== undefined) row.inodesUsed = n.inodesUsed;
}

function reasonText(reason: string): string {
  return REASON_TEXT[reason] ?? reason;
}

function compareRows(a: UsageRow, b: UsageRow): number {
  const pa = a.usedPercent ?? -1;
  const pb = b.usedPercent ?? -1;
  if (pa !== pb) return pb - pa;
  if (a.usedPercent !== undefined && b.usedPercent !== undefined) {
    const byAvailable = (a.availableBytes ?? 0) - (b.availableBytes ?? 0);
    if (byAvailable !== 0) return byAvailable;
  }
  return a.namespace.localeCompare(b.namespace) || a.claim.localeCompare(b.claim);
}

/** Bytes in binary units with one decimal below 10: 0B, 512B, 1.5Ki, 20Mi, 9.8Gi. */
export function humanBytes(bytes: number): string {
  const units = ['B', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${Math.round(value)}B`;
  const text = value < 10 ? (Math.floor(value * 10) / 10).toFixed(1).replace(/\.0$/, '') : String(Math.floor(value));
  return `${text}${units[unit]}`;
}

/** `[#######.............]`: `width` cells, filled in proportion to the percentage. */
export function usageBar(percent: number, width = 20): string {
  const filled = Math.max(0, Math.min(width, Math.round((percent / 100) * width)));
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}

const HEADERS = ['NAMESPACE', 'NAME', 'VOLUME', 'CAPACITY', 'USED', 'AVAILABLE', 'USE%', '', 'NOTE'] as const;
const RIGHT_ALIGNED = new Set([3, 4, 5, 6]);

/** The table, one line per claim, columns padded like kubectl's. */
export function renderUsageTable(rows: readonly UsageRow[], barWidth = 20): string {
  const cells = rows.map((r) => {
    const bytes = (n: number | undefined): string => (n === undefined ? '-' : humanBytes(n));
    const hasPercent = r.usedPercent !== undefined;
    return [
      r.namespace,
      r.claim,
      r.volume ?? '-',
      bytes(r.capacityBytes),
      bytes(r.usedBytes),
      bytes(r.availableBytes),
      hasPercent ? `${r.usedPercent}%` : '-',
      hasPercent ? usageBar(r.usedPercent ?? 0, barWidth) : '',
      r.note ?? '',
    ];
  });
  return renderColumns(HEADERS, cells, RIGHT_ALIGNED);
}

/** Lines of cells under their headers, each column as wide as its widest cell, three spaces apart (kubectl's look). */
export function renderColumns(headers: readonly string[], cells: readonly string[][], rightAligned: ReadonlySet<number> = new Set()): string {
  const all = [[...headers], ...cells];
  const widths = headers.map((_, col) => Math.max(...all.map((line) => line[col].length)));
  const lines = all.map((line) =>
    line
      .map((cell, col) => (rightAligned.has(col) ? cell.padStart(widths[col]) : cell.padEnd(widths[col])))
      .join('   ')
      .trimEnd(),
  );
  return `${lines.join('\n')}\n`;
}

/** `--output json`: the rows as they are (bytes as numbers, absent numbers omitted). */
export function renderUsageJson(rows: readonly UsageRow[]): string {
  return `${JSON.stringify({ claims: rows }, null, 2)}\n`;
}
