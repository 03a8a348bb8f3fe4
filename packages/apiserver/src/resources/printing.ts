/** Helpers for `kubectl get` table rows, as kube-apiserver's printers compute them. */
import type { TableColumn } from './strategy.js';
import { Quantity } from '@pv-controller/kube/quantity.js';
import { propertyDescription } from '../openapi/definitions.js';

/** apimachinery's duration.HumanDuration: "45s", "2m5s", "3h20m", "5d2h", "2y30d". */
function humanDuration(ms: number): string {
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

/** A column described by a field's published OpenAPI description, as kube-apiserver's printers use SwaggerDoc(). */
export interface FieldDescription {
  /** OpenAPI definition name ("io.k8s.api.core.v1.PersistentVolumeSpec"). */
  definition: string;
  property: string;
}

export function field(definition: string, property: string): FieldDescription {
  return { definition: definition.includes('.') ? definition : `io.k8s.api.core.v1.${definition}`, property };
}

/**
 * A Table column. A field description is looked up when the column is first serialized, so
 * the definitions are read only once a client asks for a Table.
 */
export function column(
  name: string,
  description: string | FieldDescription,
  opts: { type?: TableColumn['type']; format?: string; priority?: number } = {},
): TableColumn {
  const priority = opts.priority ?? 0;
  const base = { name, type: opts.type ?? 'string', format: opts.format ?? '' };
  if (typeof description === 'string') return { ...base, description, priority };
  let resolved: string | undefined;
  const lazy = Object.defineProperty(base, 'description', {
    enumerable: true,
    get: (): string => (resolved ??= swaggerDoc(propertyDescription(description.definition, description.property))),
  }) as TableColumn;
  lazy.priority = priority;
  return lazy;
}

/** A field's Go doc as SwaggerDoc() has it: the OpenAPI description without openapi-gen's enum list. */
function swaggerDoc(description: string): string {
  const enums = description.indexOf('\n\nPossible enum values:');
  return enums < 0 ? description : description.slice(0, enums);
}

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';
export const NAME_COLUMN = column('Name', field(META, 'name'), { format: 'name' });
export const AGE_COLUMN = column('Age', field(META, 'creationTimestamp'));
