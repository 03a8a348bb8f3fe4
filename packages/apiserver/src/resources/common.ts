/**
 * Small pieces every strategy shares: ResourceInfo construction, finalizers, keeping stored
 * parts, and the text of diffs. (Decoding, quantities and timestamps included, happens before
 * a strategy sees an object: see decode/typed-decoder.ts.)
 */
import { isValidQuantity, Quantity } from '@pv-controller/kube/quantity.js';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { jsonEqual, rfc3339Seconds } from './object-utils.js';
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

const STATUS_KEPT_META = ['deletionTimestamp', 'generation', 'labels', 'annotations', 'finalizers', 'ownerReferences'] as const;

/**
 * metav1.ResetObjectMetaForStatus: a /status write of the kinds whose status strategy calls it
 * cannot change labels, annotations, finalizers, owners, generation or the deletion timestamp.
 */
export function resetObjectMetaForStatus(next: KubeObject, prev: KubeObject): void {
  const meta = next.metadata as Record<string, unknown>;
  const stored = prev.metadata as Record<string, unknown>;
  for (const key of STATUS_KEPT_META) {
    if (stored[key] === undefined) delete meta[key];
    else meta[key] = structuredClone(stored[key]);
  }
}

/**
 * A condition's times are metav1.Time values, not pointers, in the Go types: an unset one
 * serialises as null. Fills in null for those of `fields` a condition leaves out.
 */
export function nullUnsetConditionTimes(status: unknown, fields: readonly string[]): void {
  const conditions = (status as { conditions?: unknown } | undefined)?.conditions;
  if (!Array.isArray(conditions)) return;
  for (const c of conditions) {
    if (typeof c !== 'object' || c === null) continue;
    for (const f of fields) if ((c as Record<string, unknown>)[f] === undefined) (c as Record<string, unknown>)[f] = null;
  }
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

/** A kind's field-label conversion table: each label selects on itself, each alias on its target. */
export function fieldLabelTable(labels: string[], aliases: Record<string, string> = {}): Readonly<Record<string, string>> {
  return Object.freeze({ ...Object.fromEntries(labels.map((l) => [l, l])), ...aliases });
}

const MILLI_IN_NANOS = 1_000_000n;

/**
 * SetDefaults_ResourceList: every quantity in a ResourceList is rounded up (away from zero) to
 * milli-units, so `1n` is stored as `1m` and `1500u` as `2m`. Values that do not parse are left
 * for validation.
 */
export function roundResourceListToMilli(list: Record<string, string> | undefined): void {
  if (typeof list !== 'object' || list === null) return;
  for (const [key, value] of Object.entries(list)) {
    if (typeof value !== 'string' || !isValidQuantity(value)) continue;
    const q = Quantity.parse(value);
    const rest = q.nanos % MILLI_IN_NANOS;
    if (rest === 0n) continue;
    const rounded = q.nanos - rest + (q.nanos < 0n ? -MILLI_IN_NANOS : MILLI_IN_NANOS);
    list[key] = new Quantity(rounded, q.format).toString();
  }
}
