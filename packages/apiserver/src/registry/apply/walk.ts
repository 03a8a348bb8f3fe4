/**
 * The field sets of values: what an apply configuration sets (`configFieldSet`), and what changed
 * between two versions of an object (`compareValues`: added, modified, removed). In an apply
 * configuration a null counts as absent. In an object a null is a value, as structured-merge-diff
 * reads the Go types' serialisation: the decoder drops the nulls Go would drop, so the nulls
 * left are those Go writes (a zero time held by value, a slice without omitempty), and a
 * condition written with a null time owns it; a null a container replaces is an empty container
 * (see compareInto).
 */
import { childType, isGranularObject, isObject, LEAF, type ApplyType } from './apply-type.js';
import { fieldElement, FieldSet, keyElement, valueElement } from './fieldset.js';
import { ApplyTypeError } from './errors.js';
import { jsonEqual } from '../../resources/object-utils.js';

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

const present = (v: unknown): boolean => v !== undefined && v !== null;

/** The items of a keyed list or set by their path element; the first of duplicates wins. */
export function listElements(t: ApplyType, list: unknown[]): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const item of list) {
    const element = itemElement(t, item);
    if (element !== undefined && !out.has(element)) out.set(element, item);
  }
  return out;
}

export function itemElement(t: ApplyType, item: unknown): string | undefined {
  if (t.shape === 'set') return valueElement(item);
  if (t.shape === 'listMap' && isObject(item)) return keyElement(item, t.keys);
  return undefined;
}

/** The set of an apply configuration: every leaf it sets, every list item it names. */
export function configFieldSet(value: unknown, t: ApplyType, path: string[] = []): FieldSet {
  const out = new FieldSet();
  addConfigFields(value, t, path, out, out);
  return out;
}

function addConfigFields(value: unknown, t: ApplyType, path: string[], root: FieldSet, node: FieldSet): void {
  if (isGranularObject(t, value)) {
    const keys = Object.keys(value).filter((k) => present(value[k]));
    if (keys.length === 0 && path.length > 0) node.member = true;
    for (const k of keys) {
      const ct = childType(t, k);
      if (!ct) throw new ApplyTypeError(`${pathText(path)}.${k}: field not declared in schema`);
      path.push(fieldElement(k));
      addConfigFields(value[k], ct, path, root, node.ensure(fieldElement(k)));
      path.pop();
    }
    return;
  }
  if ((t.shape === 'set' || t.shape === 'listMap') && Array.isArray(value)) {
    for (const item of value) {
      const element = itemElement(t, item);
      if (element === undefined) throw new ApplyTypeError(`${pathText(path)}: associative list without keys`);
      const itemNode = node.ensure(element);
      itemNode.member = true;
      if (t.shape === 'listMap') addItemFields(item as Record<string, unknown>, t.items, [...path, element], root, itemNode);
    }
    if (value.length === 0) node.member = true;
    return;
  }
  checkShape(value, t, path);
  node.member = true;
}

function addItemFields(item: Record<string, unknown>, t: ApplyType, path: string[], root: FieldSet, node: FieldSet): void {
  if (t.shape === 'leaf') return;
  for (const k of Object.keys(item).filter((key) => present(item[key]))) {
    const ct = childType(t, k);
    if (!ct) throw new ApplyTypeError(`${pathText(path)}.${k}: field not declared in schema`);
    path.push(fieldElement(k));
    addConfigFields(item[k], ct, path, root, node.ensure(fieldElement(k)));
    path.pop();
  }
}

function checkShape(value: unknown, t: ApplyType, path: string[]): void {
  if ((t.shape === 'struct' || t.shape === 'map') && !isObject(value)) {
    throw new ApplyTypeError(`${pathText(path)}: expected map, got ${JSON.stringify(value)}`);
  }
  if ((t.shape === 'set' || t.shape === 'listMap') && !Array.isArray(value)) {
    throw new ApplyTypeError(`${pathText(path)}: expected list, got ${JSON.stringify(value)}`);
  }
}

/** `.spec.capacity` for error messages. */
function pathText(path: string[]): string {
  return path.map((e) => (e.startsWith('f:') ? `.${e.slice(2)}` : `[${e.slice(2)}]`)).join('');
}

/** Every path of a value, the value's own included (what an added or removed subtree covers). */
export function allFields(value: unknown, t: ApplyType, node: FieldSet): void {
  node.member = true;
  if (isGranularObject(t, value)) {
    for (const [k, v] of Object.entries(value)) {
      if (v !== undefined) allFields(v, childType(t, k) ?? LEAF, node.ensure(fieldElement(k)));
    }
  } else if ((t.shape === 'set' || t.shape === 'listMap') && Array.isArray(value)) {
    const items = t.shape === 'listMap' ? t.items : LEAF;
    for (const [element, item] of listElements(t, value)) allFields(item, items, node.ensure(element));
  }
}

export function compareValues(oldValue: unknown, newValue: unknown, t: ApplyType): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  compareInto(oldValue, newValue, t, c, []);
  return c;
}

function nodeAt(set: FieldSet, path: string[]): FieldSet {
  let node = set;
  for (const e of path) node = node.ensure(e);
  return node;
}

function compareInto(a: unknown, b: unknown, t: ApplyType, c: Comparison, path: string[]): void {
  const hasA = a !== undefined;
  const hasB = b !== undefined;
  if (!hasA && !hasB) return;
  // A null that is there (a Go slice or map without omitempty) is an empty value, not a missing one:
  // filling it adds the contents but not the container itself; an empty container has no contents,
  // so it is the container that changed (a CSINode's `drivers: []` over the empty object's null).
  if ((a === null && isEmptyContainer(b, t)) || (b === null && isEmptyContainer(a, t))) {
    c.modified.insert(path);
    return;
  }
  if (a === null && isContainer(b, t)) return compareInto(Array.isArray(b) ? [] : {}, b, t, c, path);
  if (b === null && isContainer(a, t)) return compareInto(a, Array.isArray(a) ? [] : {}, t, c, path);
  if (!hasA) return allFields(b, t, nodeAt(c.added, path));
  if (!hasB) return allFields(a, t, nodeAt(c.removed, path));
  if (isGranularObject(t, a) && isGranularObject(t, b)) return compareObjects(a, b, t, c, path);
  const keyed = t.shape === 'set' || t.shape === 'listMap';
  if (keyed && Array.isArray(a) && Array.isArray(b)) return compareLists(a, b, t, c, path);
  if (jsonEqual(a, b)) return;
  // A value that changes shape (map to scalar, say) drops the old one's fields and brings the new one's.
  if (isContainer(a, t)) allFields(a, t, nodeAt(c.removed, path));
  if (isContainer(b, t)) allFields(b, t, nodeAt(c.added, path));
  c.modified.insert(path);
}

function isEmptyContainer(v: unknown, t: ApplyType): boolean {
  return isContainer(v, t) && (Array.isArray(v) ? v.length === 0 : Object.keys(v as object).length === 0);
}

function isContainer(v: unknown, t: ApplyType): boolean {
  return isGranularObject(t, v) || ((t.shape === 'set' || t.shape === 'listMap') && Array.isArray(v));
}

function compareObjects(a: Record<string, unknown>, b: Record<string, unknown>, t: ApplyType, c: Comparison, path: string[]): void {
  for (const k of Object.keys(a)) {
    path.push(fieldElement(k));
    compareInto(a[k], b[k], childType(t, k) ?? LEAF, c, path);
    path.pop();
  }
  for (const k of Object.keys(b)) {
    if (Object.hasOwn(a, k)) continue;
    path.push(fieldElement(k));
    compareInto(undefined, b[k], childType(t, k) ?? LEAF, c, path);
    path.pop();
  }
}

function compareLists(a: unknown[], b: unknown[], t: ApplyType, c: Comparison, path: string[]): void {
  const items = t.shape === 'listMap' ? t.items : LEAF;
  const before = listElements(t, a);
  const after = listElements(t, b);
  for (const [element, item] of before) {
    path.push(element);
    compareInto(item, after.get(element), items, c, path);
    path.pop();
  }
  for (const [element, item] of after) {
    if (before.has(element)) continue;
    path.push(element);
    compareInto(undefined, item, items, c, path);
    path.pop();
  }
}
