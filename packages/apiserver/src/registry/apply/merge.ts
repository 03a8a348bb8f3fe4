/**
 * Applying a configuration to the live object: granular values merge field by field, keyed
 * lists item by item, leaves take the configuration's value (`mergeConfig`); then the fields the
 * applier set last time, no longer sets, and nobody else owns are removed (`pruneDisowned`).
 * Neither mutates its inputs.
 */
import { childType, isGranularObject, LEAF, type ApplyType } from './apply-type.js';
import { FieldSet } from './fieldset.js';
import { itemElement, listElements } from './walk.js';

const present = (v: unknown): boolean => v !== undefined && v !== null;

export function mergeConfig(live: unknown, config: unknown, t: ApplyType): unknown {
  if (!present(config)) return live;
  if (!present(live)) return config;
  if (isGranularObject(t, live) && isGranularObject(t, config)) {
    const out: Record<string, unknown> = { ...live };
    for (const [k, v] of Object.entries(config)) {
      if (present(v)) out[k] = mergeConfig(live[k], v, childType(t, k) ?? LEAF);
    }
    return out;
  }
  if ((t.shape === 'set' || t.shape === 'listMap') && Array.isArray(live) && Array.isArray(config)) {
    return mergeLists(live, config, t);
  }
  return config;
}

/**
 * Keyed lists merge in an order both sides agree on: the configuration's items in its order,
 * the live items it does not name where they stood among them, as structured-merge-diff orders
 * them.
 */
function mergeLists(live: unknown[], config: unknown[], t: ApplyType): unknown[] {
  const items = t.shape === 'listMap' ? t.items : LEAF;
  const liveKeys = live.map((x) => itemElement(t, x) ?? '');
  const configKeys = config.map((x) => itemElement(t, x) ?? '');
  const liveByKey = listElements(t, live);
  const inConfig = new Set(configKeys);
  const shared = configKeys.filter((k) => liveByKey.has(k));
  const out: unknown[] = [];
  const emitted = new Set<string>();
  let next = 0;
  let i = 0;
  let j = 0;
  const emitConfig = (): void => {
    const key = configKeys[j];
    out.push(mergeConfig(liveByKey.get(key), config[j], items));
    emitted.add(key);
    if (shared[next] === key) next++;
    j++;
  };
  while (i < live.length || j < config.length) {
    if (i < live.length && j < config.length) {
      if (liveKeys[i] === configKeys[j]) {
        i++;
        emitConfig();
        continue;
      }
      if (inConfig.has(liveKeys[i]) && next < shared.length && shared[next] !== liveKeys[i]) {
        i++;
        continue;
      }
    }
    if (i < live.length) {
      if (!inConfig.has(liveKeys[i])) {
        out.push(live[i++]);
        continue;
      }
      if (emitted.has(liveKeys[i])) {
        i++;
        continue;
      }
    }
    if (j < config.length) emitConfig();
    else i++;
  }
  return out;
}

/**
 * Structured-merge-diff treats every struct field on the way to an owned field as owned too
 * (EnsureNamedFieldsAreMembers), so giving up a struct's last field gives up the struct.
 */
export function withNamedFields(set: FieldSet, t: ApplyType): FieldSet {
  const out = new FieldSet();
  out.member = set.member;
  for (const [element, child] of set.children ?? []) {
    const ct = element.startsWith('f:') ? childType(t, element.slice(2)) ?? LEAF : t.shape === 'listMap' ? t.items : LEAF;
    const expanded = withNamedFields(child, ct);
    if (t.shape === 'struct' && element.startsWith('f:')) expanded.member = true;
    out.children = (out.children ?? new Map()).set(element, expanded);
  }
  return out;
}

/** Removes from `merged` what `lastApplied` held and `owned` (everyone's fields, named fields included) does not. */
export function pruneDisowned(merged: unknown, lastApplied: FieldSet, owned: FieldSet, t: ApplyType): unknown {
  return pruneNode(merged, withNamedFields(lastApplied, t), owned, t);
}

function pruneNode(value: unknown, last: FieldSet, owned: FieldSet | undefined, t: ApplyType): unknown {
  if (!last.children || !present(value)) return value;
  if (isGranularObject(t, value)) {
    let out: Record<string, unknown> | undefined;
    for (const [element, child] of last.children) {
      if (!element.startsWith('f:')) continue;
      const key = element.slice(2);
      if (!Object.hasOwn(value, key)) continue;
      const ownedChild = owned?.child(element);
      const next = child.member && !ownedChild?.member ? undefined : pruneNode(value[key], child, ownedChild, childType(t, key) ?? LEAF);
      if (next === value[key]) continue;
      out ??= { ...value };
      if (next === undefined || isEmptyContainer(next, value[key])) delete out[key];
      else out[key] = next;
    }
    return out ?? value;
  }
  if ((t.shape === 'set' || t.shape === 'listMap') && Array.isArray(value)) {
    const items = t.shape === 'listMap' ? t.items : LEAF;
    let changed = false;
    const out: unknown[] = [];
    for (const item of value) {
      const element = itemElement(t, item) ?? '';
      const child = last.child(element);
      const ownedChild = owned?.child(element);
      if (!child) out.push(item);
      else if (child.member && !ownedChild?.member) changed = true;
      else {
        const next = pruneNode(item, child, ownedChild, items);
        changed ||= next !== item;
        out.push(next);
      }
    }
    return changed ? out : value;
  }
  return value;
}

/** A map or list emptied by pruning goes too, as Go's omitempty drops it on the way out. */
function isEmptyContainer(next: unknown, before: unknown): boolean {
  if (Array.isArray(next)) return next.length === 0 && Array.isArray(before) && before.length > 0;
  return typeof next === 'object' && next !== null && Object.keys(next).length === 0 && Object.keys(before as object).length > 0;
}
