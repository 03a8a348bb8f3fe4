/**
 * Field ownership on every write, as kube-apiserver's field manager keeps it:
 * - an update (create, PUT, non-apply PATCH) gives its manager the fields it added or changed,
 *   takes them from everyone else, and drops removed fields from every manager;
 * - an apply merges the configuration into the live object, removes what the applier set last
 *   time and nobody owns now, and refuses (409) to change fields other managers own unless forced.
 * Fields the server owns (identity, resourceVersion, ...) and those the (sub)resource resets
 * (status on the main resource, spec on /status) are nobody's.
 */
import type { KubeObject } from '@pv-controller/kube/types.js';
import { jsonEqual } from '../../resources/object-utils.js';
import type { ApplyType } from './apply-type.js';
import { applyConflictError, type ManagerConflict } from './errors.js';
import { compareElements, fieldElement, FieldSet, pathString } from './fieldset.js';
import { decodeManagers, managerKey, printManager, type ManagerEntry, type Managers } from './managed-fields.js';
import { mergeConfig, pruneDisowned, withNamedFields } from './merge.js';
import { compareValues, configFieldSet, type Comparison } from './walk.js';

export interface OwnershipContext {
  manager: string;
  apiVersion: string;
  /** '' for the main resource. */
  subresource: string;
  /** RFC 3339 seconds. */
  now: string;
  type: ApplyType;
  /** Top-level fields this (sub)resource resets, which nobody owns through it. */
  resetFields: readonly string[];
  /** The object as the Go types hold it (by-value structs present); identity when absent. */
  complete?: (obj: KubeObject) => KubeObject;
}

const SERVER_OWNED_META = ['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'generation', 'managedFields', 'resourceVersion'];

const excludedByReset = new Map<string, FieldSet>();

/** The fields nobody owns through this (sub)resource; shared, never mutated. */
function excludedFields(ctx: OwnershipContext): FieldSet {
  const key = ctx.resetFields.join(',');
  let out = excludedByReset.get(key);
  if (!out) {
    out = buildExcluded(ctx);
    excludedByReset.set(key, out);
  }
  return out;
}

function buildExcluded(ctx: OwnershipContext): FieldSet {
  const out = new FieldSet();
  for (const f of ['apiVersion', 'kind', ...ctx.resetFields]) out.insert([fieldElement(f)]);
  for (const f of SERVER_OWNED_META) out.insert([fieldElement('metadata'), fieldElement(f)]);
  return out;
}

/** The object as ownership sees it: without its managedFields. */
export function withoutManagedFields(obj: KubeObject): KubeObject {
  if (obj.metadata?.managedFields === undefined) return obj;
  const { managedFields: _dropped, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

function compareObjects(before: KubeObject, after: KubeObject, ctx: OwnershipContext): Comparison {
  const complete = ctx.complete ?? ((o: KubeObject) => o);
  const c = compareValues(complete(withoutManagedFields(before)), complete(withoutManagedFields(after)), ctx.type);
  const excluded = excludedFields(ctx);
  c.added.subtractRecursively(excluded);
  c.modified.subtractRecursively(excluded);
  c.removed.subtractRecursively(excluded);
  return c;
}

function entryFor(ctx: OwnershipContext, operation: 'Apply' | 'Update', manager = ctx.manager): Omit<ManagerEntry, 'fields'> {
  return { manager, operation, apiVersion: ctx.apiVersion, subresource: ctx.subresource };
}

/**
 * Drops `taken` from every manager but `except`; managers left with nothing go. A manager that
 * owns some fields but none of these keeps its entry as it is (and so its encoding).
 */
function takeFromOthers(managers: Managers, taken: FieldSet, removed: FieldSet, except?: string): void {
  for (const [k, e] of managers) {
    if (k === except || !(e.fields.isEmpty || e.fields.overlaps(taken) || e.fields.overlaps(removed))) continue;
    const fields = e.fields.clone().subtract(taken).subtract(removed);
    if (fields.isEmpty) managers.delete(k);
    else managers.set(k, { ...e, fields });
  }
}

/** Records an update by `manager` from `before` to `after` into `managers` (changed in place). */
export function recordUpdate(managers: Managers, before: KubeObject, after: KubeObject, ctx: OwnershipContext, manager = ctx.manager): void {
  const c = compareObjects(before, after, ctx);
  const changed = c.added.unionWith(c.modified);
  if (changed.isEmpty && c.removed.isEmpty) return;
  takeFromOthers(managers, changed, c.removed);
  if (changed.isEmpty) return;
  const entry = entryFor(ctx, 'Update', manager);
  const key = managerKey(entry);
  const owned = managers.get(key)?.fields;
  // A manager changing only fields it owns already (a controller's status writes) keeps its set.
  const fields = owned?.covers(changed) ? owned : changed.unionWith(owned ?? new FieldSet());
  managers.set(key, { ...entry, time: ctx.now, fields });
}

export interface ApplyOutcome {
  object: KubeObject;
  managers: Managers;
}

/** Merges `config` into `live` (the kind's empty object when creating) for `ctx.manager`. */
export function applyConfiguration(live: KubeObject, empty: KubeObject, config: KubeObject, force: boolean, ctx: OwnershipContext): ApplyOutcome {
  const managers = decodeManagers(live.metadata.managedFields);
  if (managers.size === 0 && live !== empty) recordUpdate(managers, empty, live, ctx, 'before-first-apply');
  const base = withoutManagedFields(live);
  const entry = entryFor(ctx, 'Apply');
  const key = managerKey(entry);
  const applied = configFieldSet(config, ctx.type).subtractRecursively(excludedFields(ctx));
  let merged = mergeConfig(base, config, ctx.type) as KubeObject;
  const last = managers.get(key);
  if (last) {
    const owned = FieldSet.union([applied, ...[...managers].filter(([k]) => k !== key).map(([, e]) => e.fields)]);
    merged = pruneDisowned(merged, last.fields, withNamedFields(owned, ctx.type), ctx.type) as KubeObject;
  }
  const c = compareObjects(base, merged, ctx);
  const changed = c.added.unionWith(c.modified);
  const takeover = clientSideApplied(live, ctx);
  const conflicts = conflictsWith(managers, changed, key).filter((c) => !takeover.has(c.path));
  if (conflicts.length > 0 && !force) throw applyConflictError(conflicts);
  takeFromOthers(managers, changed, c.removed, key);
  if (applied.isEmpty) managers.delete(key);
  else {
    const time = jsonEqual(base, merged) ? last?.time : ctx.now;
    managers.set(key, { ...entry, ...(time !== undefined ? { time } : {}), fields: applied });
  }
  return { object: merged, managers };
}

function comparePaths(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareElements(a[i], b[i]);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const NOTHING = new FieldSet();

/**
 * What `kubectl apply` (client-side) last applied, which kubectl's server-side apply may take
 * over without conflicts: kube-apiserver's upgrade path from client-side to server-side apply,
 * for the manager "kubectl" only.
 */
function clientSideApplied(live: KubeObject, ctx: OwnershipContext): FieldSet {
  const text = live.metadata.annotations?.[LAST_APPLIED];
  if (ctx.manager !== 'kubectl' || text === undefined || text === '') return NOTHING;
  try {
    return configFieldSet(JSON.parse(text), ctx.type);
  } catch {
    return NOTHING;
  }
}

function conflictsWith(managers: Managers, changed: FieldSet, applier: string): Array<ManagerConflict & { path: string[] }> {
  const found: Array<{ path: string[]; key: string; entry: ManagerEntry }> = [];
  for (const [k, e] of managers) {
    if (k === applier) continue;
    for (const path of e.fields.intersection(changed).paths()) found.push({ path, key: k, entry: e });
  }
  found.sort((x, y) => comparePaths(x.path, y.path) || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  return found.map((f) => ({ manager: printManager(f.entry), managerKey: f.key, field: pathString(f.path), path: f.path }));
}
