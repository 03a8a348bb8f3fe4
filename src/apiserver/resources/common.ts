/**
 * Small pieces every strategy shares: ResourceInfo construction, decode-time checks that a real
 * server does while deserialising (quantities, MicroTime), quantity canonicalisation, finalizers.
 */
import { BadRequestError } from '../../kube/errors.js';
import { Quantity } from '../../kube/quantity.js';
import type { KubeObject } from '../../kube/types.js';
import { jsonEqual, rfc3339Seconds } from '../object-utils.js';
import type { ResourceInfo } from './strategy.js';

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export function resourceInfo(
  info: Omit<ResourceInfo, 'listKind' | 'verbs' | 'shortNames' | 'singular'> &
    Partial<Pick<ResourceInfo, 'verbs' | 'shortNames' | 'singular'>>,
): ResourceInfo {
  return {
    ...info,
    singular: info.singular ?? info.kind.toLowerCase(),
    listKind: `${info.kind}List`,
    verbs: info.verbs ?? ALL_VERBS,
    shortNames: info.shortNames ?? [],
  };
}

/** A JSON object field as a record, or undefined (the JSON boundary). */
export function recordAt(obj: unknown, key: string): Record<string, unknown> | undefined {
  if (typeof obj !== 'object' || obj === null) return undefined;
  const v = (obj as Record<string, unknown>)[key];
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function cannotDecode(kind: string, version: string, detail: string): BadRequestError {
  return new BadRequestError(`${kind} in version "${version}" cannot be handled as a ${kind}: ${detail}`);
}

/**
 * Parses every quantity of a resource list (capacity, requests, ...) and rewrites it in canonical
 * form, as a decode/encode round trip through resource.Quantity does ("1.5Gi" ⇒ "1536Mi").
 * A malformed quantity is a decode error: 400, like kube-apiserver.
 */
export function canonicalizeQuantities(list: unknown, kind: string, version: string): void {
  if (typeof list !== 'object' || list === null || Array.isArray(list)) return;
  const record = list as Record<string, unknown>;
  for (const [name, value] of Object.entries(record)) {
    if (typeof value === 'number' && Number.isFinite(value)) {
      record[name] = Quantity.parse(String(value)).toString();
      continue;
    }
    if (typeof value !== 'string') continue;
    try {
      record[name] = Quantity.parse(value).toString();
    } catch {
      throw cannotDecode(kind, version,
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
    }
  }
}

/** metav1.MicroTime: RFC 3339 with exactly six fractional digits, as Go's RFC3339Micro layout. */
const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;

/** Rejects a MicroTime field that a real server could not decode (e.g. "…T10:00:00Z"). */
export function requireMicroTime(value: unknown, kind: string, version: string): void {
  if (value === undefined || value === null) return;
  if (typeof value === 'string' && MICRO_TIME.test(value) && !Number.isNaN(Date.parse(value))) return;
  throw cannotDecode(kind, version,
    `parsing time ${JSON.stringify(value)} as "2006-01-02T15:04:05.000000Z07:00": cannot parse as RFC3339Micro`);
}

/** Adds a finalizer unless present (StorageObjectInUseProtection). */
export function ensureFinalizer(obj: KubeObject, finalizer: string): void {
  const list = obj.metadata.finalizers ?? [];
  if (!list.includes(finalizer)) obj.metadata.finalizers = [...list, finalizer];
}

/**
 * PrepareForUpdate's "the stored one stays": `next[part]` becomes a copy of what `prev` holds
 * (absent when it has none), so a write to the main resource cannot change status, nor a
 * /status write the spec.
 */
export function keepStored(next: KubeObject, prev: KubeObject, part: 'spec' | 'status'): void {
  const stored = prev[part];
  if (stored === undefined) delete next[part];
  else next[part] = structuredClone(stored);
}

/** RFC 3339 with whole seconds, as metav1.Time serialises. */
export function rfc3339Now(): string {
  return rfc3339Seconds(new Date());
}

/** Deep equality of JSON values: the registry's own, so strategies and registry agree on "unchanged". */
export { jsonEqual };

/** A short "- old / + new" rendering for immutability messages (upstream appends a cmp.Diff). */
export function diffText(before: unknown, after: unknown): string {
  return `  - ${JSON.stringify(before ?? null)}\n  + ${JSON.stringify(after ?? null)}`;
}
