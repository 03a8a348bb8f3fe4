/** Helpers for `kubectl get` table rows, as kube-apiserver's printers compute them. */
import type { TableColumn } from './strategy.js';
import { Quantity } from '../../kube/quantity.js';

/** apimachinery's duration.HumanDuration: "45s", "2m5s", "3h20m", "5d2h", "2y30d". */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${hours / 24}d` : `${Math.trunc(hours / 24)}d${hours % 24}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 365 * 2) return `${days}d`;
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${Math.trunc(days / 365)}y` : `${Math.trunc(days / 365)}y${days % 365}d`;
  return `${Math.trunc(days / 365)}y`;
}

/** translateTimestampSince: "<unknown>" for a missing timestamp. */
export function age(timestamp: string | undefined | null, now: Date): string {
  if (!timestamp) return '<unknown>';
  const t = Date.parse(timestamp);
  if (Number.isNaN(t)) return '<unknown>';
  return humanDuration(now.getTime() - t);
}

/** A quantity as its canonical string ("1536Mi" for "1.5Gi"); unparsable input is shown as is. */
export function canonicalQuantity(value: string | undefined): string {
  if (value === undefined || value === null) return '0';
  try {
    return Quantity.parse(value).toString();
  } catch {
    return String(value);
  }
}

export function column(
  name: string,
  description: string,
  opts: { type?: TableColumn['type']; format?: string; priority?: number } = {},
): TableColumn {
  return { name, type: opts.type ?? 'string', format: opts.format ?? '', description, priority: opts.priority ?? 0 };
}

export const NAME_COLUMN = column('Name', 'Name must be unique within a namespace. Cannot be updated.', { format: 'name' });
export const AGE_COLUMN = column('Age', 'CreationTimestamp is a timestamp representing the server time when this object was created.');
