/**
 * metadata.managedFields in memory: one entry per manager identity (manager, operation,
 * subresource, and for Update the apiVersion, as kube-apiserver keys them), with its field set
 * and time. Decoding checks what kube-apiserver checks and fails as a whole; encoding sorts the
 * entries as kube-apiserver does (operation, time, manager, apiVersion, subresource).
 */
import { RecentValues } from '../../storage/recent-values.js';
import { deepFreeze } from '../../storage/freeze.js';
import { decodeFieldsV1, encodeFieldsV1, FieldsV1Error, type FieldsObject } from './fields-v1.js';
import type { FieldSet } from './fieldset.js';

export type Operation = 'Apply' | 'Update';

export interface ManagerEntry {
  manager: string;
  operation: Operation;
  apiVersion: string;
  subresource: string;
  /** RFC 3339, seconds; absent for an apply that changed nothing. */
  time?: string;
  fields: FieldSet;
}

/** The set of managers of one object, by identity. */
export type Managers = Map<string, ManagerEntry>;

export interface EncodedEntry {
  manager?: string;
  operation: Operation;
  apiVersion: string;
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: unknown;
  subresource?: string;
}

export function managerKey(e: Pick<ManagerEntry, 'manager' | 'operation' | 'apiVersion' | 'subresource'>): string {
  // Field order of kube-apiserver's encoded identity, so sorting by key sorts as it does.
  const id: Record<string, string> = { manager: e.manager, operation: e.operation };
  if (e.operation === 'Update') id.apiVersion = e.apiVersion;
  if (e.subresource !== '') id.subresource = e.subresource;
  return JSON.stringify(id);
}

/** How conflicts name a manager: `"bob"`, `"kubectl" using v1`, `"x" with subresource "status"`. */
export function printManager(e: ManagerEntry): string {
  let out = JSON.stringify(e.manager);
  if (e.subresource !== '') out += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') out += ` using ${e.apiVersion}`;
  return out;
}

export class ManagedFieldsError extends Error {}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function decodeEntry(raw: unknown, index: number): ManagerEntry {
  if (!isObject(raw)) throw new ManagedFieldsError(`managed fields entry ${index} is not an object`);
  const { manager, operation, apiVersion, fieldsType, fieldsV1, subresource, time } = raw;
  if (operation !== 'Apply' && operation !== 'Update') throw new ManagedFieldsError('operation must be `Apply` or `Update`');
  if (typeof apiVersion !== 'string' || apiVersion === '') throw new ManagedFieldsError('apiVersion must not be empty');
  if (fieldsType === undefined || fieldsType === '') throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${index}`);
  if (fieldsType !== 'FieldsV1') throw new ManagedFieldsError(`invalid fieldsType ${JSON.stringify(fieldsType)} in managed fields entry ${index}`);
  let fields: FieldSet;
  try {
    fields = decodeFieldsV1(fieldsV1 ?? {});
  } catch (err) {
    if (err instanceof FieldsV1Error) throw new ManagedFieldsError(`error decoding fields of entry ${index}: ${err.message}`);
    throw err;
  }
  return {
    manager: typeof manager === 'string' ? manager : '',
    operation,
    apiVersion,
    subresource: typeof subresource === 'string' ? subresource : '',
    ...(typeof time === 'string' ? { time } : {}),
    fields,
  };
}

/** The managers of entry lists, by list: stored objects are frozen, so a list never changes. */
const decoded = new WeakMap<object, Managers>();

/**
 * The managers of the lists this module encoded most recently, so an object's next write
 * (which reads the stored list back) finds them without decoding, and its unchanged entries
 * keep their encoding. Bounded: holding them for every stored object would multiply its memory.
 */
const recentlyEncoded = new RecentValues<object, Managers>(256);

function rememberEncoded(list: object, m: Managers): void {
  recentlyEncoded.set(list, m);
}

/**
 * The FieldsV1 of field sets this module encoded. Field sets are never mutated once in a
 * manager entry (they are replaced), so an entry a write leaves as it was keeps its encoding,
 * which storage then finds frozen and does not walk again.
 */
const encodedFields = new WeakMap<FieldSet, FieldsObject>();

/** The managers of an entry list (cached per list: stored objects are frozen, so a list never changes). */
export function decodeManagers(list: readonly unknown[] | undefined): Managers {
  if (list === undefined) return new Map();
  const cached = recentlyEncoded.get(list) ?? decoded.get(list);
  if (cached) return copyManagers(cached);
  const out: Managers = new Map();
  list.forEach((raw, i) => {
    const entry = decodeEntry(raw, i);
    out.set(managerKey(entry), entry);
  });
  if (Object.isFrozen(list)) decoded.set(list, out);
  return copyManagers(out);
}

/** A copy whose map may change; the field sets are shared and must be replaced, never mutated. */
function copyManagers(m: Managers): Managers {
  return new Map([...m].map(([k, e]) => [k, { ...e }]));
}

function seconds(time: string | undefined): number {
  return time === undefined ? 0 : Date.parse(time) / 1000;
}

function compareEntries(p: ManagerEntry, q: ManagerEntry): number {
  if (p.operation !== q.operation) return p.operation < q.operation ? -1 : 1;
  const dt = seconds(p.time) - seconds(q.time);
  if (dt !== 0) return dt;
  for (const k of ['manager', 'apiVersion', 'subresource'] as const) {
    if (p[k] !== q[k]) return p[k] < q[k] ? -1 : 1;
  }
  return 0;
}

/**
 * Recently encoded FieldsV1 trees by their JSON text. Objects written the same way by the same
 * client (every PV a provisioner creates, every claim a chart applies) have identical field
 * sets, so their entries share one frozen tree instead of holding a copy each (a PV's tree is
 * about a dozen objects). Bounded (RecentValues); a tree forgotten here stays shared by the
 * entries already holding it.
 */
const sharedTrees = new RecentValues<string, FieldsObject>(512);

function sharedTree(tree: FieldsObject): FieldsObject {
  const known = sharedTrees.intern(JSON.stringify(tree), tree);
  if (known === tree) deepFreeze(tree);
  return known;
}

function fieldsV1Of(fields: FieldSet): FieldsObject {
  let out = encodedFields.get(fields);
  if (out === undefined) {
    out = sharedTree(encodeFieldsV1(fields));
    encodedFields.set(fields, out);
  }
  return out;
}

/**
 * The entry list of a set of managers, frozen (it is stored as it is, and storage freezes what
 * it stores) and remembered, so the object's next write reads these managers back without
 * decoding.
 */
export function encodeManagers(m: Managers): EncodedEntry[] {
  const list = [...m.values()].sort(compareEntries).map((e) => ({
    manager: e.manager,
    operation: e.operation,
    apiVersion: e.apiVersion,
    ...(e.time !== undefined ? { time: e.time } : {}),
    fieldsType: 'FieldsV1' as const,
    fieldsV1: fieldsV1Of(e.fields),
    ...(e.subresource !== '' ? { subresource: e.subresource } : {}),
  }));
  deepFreeze(list);
  // Callers drop `m` once encoded; readers get copies (decodeManagers).
  rememberEncoded(list, m);
  return list;
}

/** `managedFields: []` or `[{}]` in a write: the client asks for the record to be cleared. */
export function isResetRequest(list: unknown): boolean {
  if (!Array.isArray(list)) return false;
  if (list.length === 0) return true;
  return list.length === 1 && isObject(list[0]) && Object.keys(list[0]).length === 0;
}
