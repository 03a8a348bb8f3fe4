/**
 * Decodes a JSON value into a kind's schema the way kube-apiserver's Go decoder does, at every
 * depth: fields the schema does not know are dropped and reported by path
 * ("spec.hostPath.foo", "spec.nodeAffinity.required.nodeSelectorTerms[1].yyy"); a value of the
 * wrong JSON type is refused with Go's text ("json: cannot unmarshal number into Go struct
 * field ObjectMeta.metadata.labels of type string"); quantities and timestamps are parsed and
 * written back canonically, as a decode/encode round trip through the Go types does; `null`
 * leaves a field unset and is the zero value inside maps and lists.
 *
 * The result is a fresh object: the input is never changed (patch results share frozen
 * subtrees with stored objects). Nothing deeper than MAX_NESTING_DEPTH is kept, and the walk
 * never descends into a field it drops, so its recursion is bounded by that limit whatever
 * the input.
 *
 * Errors follow Go's order: a plain type mismatch is remembered and decoding goes on (the first
 * one is reported); a value a custom Go decoder refuses (Time, MicroTime, Quantity, IntOrString)
 * stops at once. In repair mode (objects read back from storage) nothing is refused: what
 * cannot be decoded is dropped and reported in `dropped`.
 */
import { Quantity } from '@pv-controller/kube/quantity.js';
import { goBase64Decode, illegalBase64Message } from './go-base64.js';
import { GoTimeError, normalizeMicroTime, normalizeTime } from './go-time.js';
import type { LeafSchema, StructSchema, TypeSchema } from './schema.js';

/**
 * The deepest value any of our recursive code is given (the top-level object is depth 1):
 * what the decoder keeps, patch bodies, YAML documents. Go's JSON decoder allows 10,000, but
 * our copies, patches and encoders recurse and Node's default stack gives out far earlier:
 * the yaml composer near 800 levels, structuredClone near 2,400, JSON.stringify near 4,100.
 * The deepest object of any kind we serve is 12 levels (a Pod), so 100 leaves every real
 * object room and every recursive step a wide margin. (A JSON create or update body may nest
 * deeper, up to Go's limit, but only inside fields the decoder drops without walking them.)
 */
export const MAX_NESTING_DEPTH = 100;

/** sigs.k8s.io/json keeps at most this many strict-decoding (unknown field) errors. */
export const MAX_UNKNOWN_FIELDS = 100;

/** Go's decode error text: what follows "PersistentVolume in version "v1" cannot be handled as a PersistentVolume: ". */
export class DecodeError extends Error {}

interface Decoded {
  value: Record<string, unknown>;
  /** Paths of the dropped unknown fields, in document order (at most MAX_UNKNOWN_FIELDS). */
  unknownFields: string[];
  /** Repair mode: paths of values dropped because they could not be decoded. */
  dropped: string[];
}

/** Where a value sits: a field, a list index or a map key under its parent. */
interface Path {
  up: Path | undefined;
  seg: string;
  kind: 'field' | 'index' | 'key';
  /** A field's segment in Go's error paths (may name an embedded struct). */
  go?: string;
}

interface Walk {
  repair: boolean;
  unknown: string[];
  dropped: string[];
  /** The first plain type mismatch (Go reports it after decoding the rest). */
  mismatch: string | undefined;
}

const DROP = Symbol('drop');
type Out = unknown;

function segments(path: Path | undefined): Path[] {
  const out: Path[] = [];
  for (let p = path; p; p = p.up) out.push(p);
  return out.reverse();
}

/** "spec.nodeAffinity.required.nodeSelectorTerms[1].yyy": how unknown fields are named. */
function jsonPath(path: Path | undefined): string {
  let out = '';
  for (const p of segments(path)) out += p.kind === 'index' ? `[${p.seg}]` : out === '' ? p.seg : `.${p.seg}`;
  return out;
}

/** "spec.PersistentVolumeSource.hostPath.path": Go's error path (no indices, no map keys). */
function goPath(path: Path | undefined): string {
  return segments(path).filter((p) => p.kind === 'field').map((p) => p.go ?? p.seg).join('.');
}

function goTypeName(schema: TypeSchema): string {
  switch (schema.kind) {
    case 'array': return `[]${goTypeName(schema.items)}`;
    case 'map': return schema.goType ?? `map[string]${goTypeName(schema.values)}`;
    case 'struct': return schema.goType;
    case 'time': case 'microTime': return 'string';
    case 'intOrString': return 'int32';
    case 'quantity': return 'resource.Quantity';
    case 'bytes': return '[]uint8';
    case 'free': return 'interface {}';
    default: return schema.goType ?? schema.kind;
  }
}

/** The JSON type as Go's decoder names it in "cannot unmarshal <type> into ...". */
export function jsonTypeOf(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'object' ? 'object' : typeof value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sets an own property, also for "__proto__" (which plain assignment would turn into a prototype). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

function typeError(what: string, path: Path, owner: string, schema: TypeSchema): string {
  return `json: cannot unmarshal ${what} into Go struct field ${owner}.${goPath(path)} of type ${goTypeName(schema)}`;
}

/** A plain type mismatch: remembered, the value skipped, decoding goes on. */
function mismatch(walk: Walk, path: Path, message: string): typeof DROP {
  if (walk.repair) walk.dropped.push(jsonPath(path));
  else walk.mismatch ??= message;
  return DROP;
}

/** A value a custom Go decoder refuses: decoding stops (repair mode: the value is dropped). */
function refuse(walk: Walk, path: Path, message: string): typeof DROP {
  if (!walk.repair) throw new DecodeError(message);
  walk.dropped.push(jsonPath(path));
  return DROP;
}

const QUANTITY_FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
/** Lowest value and first value past the top: 2^63 - 1 is not a double, 2^63 is. */
const INT_RANGE: Record<'int32' | 'int64', [number, number]> = { int32: [-(2 ** 31), 2 ** 31], int64: [-(2 ** 63), 2 ** 63] };

function decodeTime(value: unknown, kind: 'time' | 'microTime', path: Path, owner: string, walk: Walk): Out {
  if (typeof value !== 'string') return refuse(walk, path, typeError(jsonTypeOf(value), path, owner, { kind }));
  try {
    return kind === 'time' ? normalizeTime(value) : normalizeMicroTime(value);
  } catch (err) {
    if (err instanceof GoTimeError) return refuse(walk, path, err.message);
    throw err;
  }
}

function decodeQuantity(value: unknown, path: Path, walk: Walk): Out {
  if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) {
    try {
      return Quantity.parse(String(value).trim()).toString();
    } catch {
      // Falls through to the error ParseQuantity gives for any malformed quantity.
    }
  }
  return refuse(walk, path, QUANTITY_FORMAT);
}

function decodeInteger(value: unknown, kind: 'int32' | 'int64', path: Path, owner: string, walk: Walk, custom: boolean): Out {
  const fail = custom ? refuse : mismatch;
  if (typeof value !== 'number') return fail(walk, path, typeError(jsonTypeOf(value), path, owner, { kind }));
  const [min, past] = INT_RANGE[kind];
  if (Number.isInteger(value) && value >= min && value < past) return value;
  return fail(walk, path, typeError(`number ${String(value)}`, path, owner, { kind }));
}

/** A []byte field: base64 in JSON, kept as canonical base64; Go saves a bad one's error and goes on. */
function decodeBytes(value: unknown, leaf: LeafSchema, path: Path, owner: string, walk: Walk): Out {
  if (typeof value !== 'string') return mismatch(walk, path, typeError(jsonTypeOf(value), path, owner, leaf));
  const decoded = goBase64Decode(value);
  if ('errorAt' in decoded) return mismatch(walk, path, illegalBase64Message(decoded.errorAt));
  return decoded.bytes.toString('base64');
}

function decodeLeaf(value: unknown, leaf: LeafSchema, path: Path, owner: string, depth: number, walk: Walk): Out {
  const kind = leaf.kind;
  const plain = (ok: boolean): Out => (ok ? value : mismatch(walk, path, typeError(jsonTypeOf(value), path, owner, leaf)));
  switch (kind) {
    case 'string': return plain(typeof value === 'string');
    case 'bool': return plain(typeof value === 'boolean');
    case 'float64': return plain(typeof value === 'number');
    case 'int32': case 'int64': return decodeInteger(value, kind, path, owner, walk, false);
    case 'intOrString': return typeof value === 'string' ? value : decodeInteger(value, 'int32', path, owner, walk, true);
    case 'time': case 'microTime': return decodeTime(value, kind, path, owner, walk);
    case 'quantity': return decodeQuantity(value, path, walk);
    case 'bytes': return decodeBytes(value, leaf, path, owner, walk);
    case 'free': return copyFree(value, path, depth, walk);
  }
}

export function depthExceededMessage(value: unknown): string {
  return `invalid character '${Array.isArray(value) ? '[' : '{'}' exceeded max depth`;
}

/** A free-form value (managedFields' fieldsV1, RawExtension) is kept as it is, within the depth limit. */
function copyFree(value: unknown, path: Path, depth: number, walk: Walk): Out {
  if (typeof value !== 'object' || value === null) return value;
  if (depth > MAX_NESTING_DEPTH) return refuse(walk, path, depthExceededMessage(value));
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      const item = copyFree(value[i], { up: path, seg: String(i), kind: 'index' }, depth + 1, walk);
      if (item === DROP) return DROP;
      out.push(item);
    }
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = copyFree((value as Record<string, unknown>)[key], { up: path, seg: key, kind: 'key' }, depth + 1, walk);
    if (item === DROP) return DROP;
    setOwn(out, key, item);
  }
  return out;
}

/** What Go leaves for `null` inside a list or map: the element type's zero value. */
function zeroOf(schema: TypeSchema): unknown {
  switch (schema.kind) {
    case 'string': return '';
    case 'bool': return false;
    case 'int32': case 'int64': case 'float64': case 'intOrString': return 0;
    case 'quantity': return '0';
    case 'struct': return {};
    default: return null; // a []byte (nil: written as null), a free-form value
  }
}

function decodeValue(value: unknown, schema: TypeSchema, path: Path, owner: string, depth: number, walk: Walk): Out {
  switch (schema.kind) {
    case 'struct': return decodeStruct(value, schema, path, owner, depth, walk);
    case 'array': return decodeList(value, schema, path, owner, depth, walk);
    case 'map': return decodeMap(value, schema, path, owner, depth, walk);
    default: return decodeLeaf(value, schema, path, owner, depth, walk);
  }
}

function containerAllowed(value: unknown, path: Path, depth: number, walk: Walk): boolean {
  if (depth <= MAX_NESTING_DEPTH) return true;
  refuse(walk, path, depthExceededMessage(value));
  return false;
}

function decodeList(value: unknown, schema: TypeSchema & { kind: 'array' }, path: Path, owner: string, depth: number, walk: Walk): Out {
  if (!Array.isArray(value)) return mismatch(walk, path, typeError(jsonTypeOf(value), path, owner, schema));
  if (!containerAllowed(value, path, depth, walk)) return DROP;
  const out: unknown[] = [];
  for (let i = 0; i < value.length; i++) {
    const item = value[i] === null ? zeroOf(schema.items) :
      decodeValue(value[i], schema.items, { up: path, seg: String(i), kind: 'index' }, owner, depth + 1, walk);
    if (item !== DROP) out.push(item);
  }
  return out;
}

function decodeMap(value: unknown, schema: TypeSchema & { kind: 'map' }, path: Path, owner: string, depth: number, walk: Walk): Out {
  if (!isRecord(value)) return mismatch(walk, path, typeError(jsonTypeOf(value), path, owner, schema));
  if (!containerAllowed(value, path, depth, walk)) return DROP;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const raw = value[key];
    const item = raw === null ? zeroOf(schema.values) :
      decodeValue(raw, schema.values, { up: path, seg: key, kind: 'key' }, owner, depth + 1, walk);
    if (item !== DROP) setOwn(out, key, item);
  }
  return out;
}

function decodeStruct(value: unknown, schema: StructSchema, path: Path | undefined, owner: string, depth: number, walk: Walk): Out {
  if (!isRecord(value)) return mismatch(walk, path!, typeError(jsonTypeOf(value), path!, owner, schema));
  if (path && !containerAllowed(value, path, depth, walk)) return DROP;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const field = schema.fields.get(key);
    const type = field?.type ?? schema.otherFields;
    const raw = value[key];
    const child: Path = { up: path, seg: key, kind: 'field', go: field?.goPath };
    if (!type) {
      if (walk.unknown.length < MAX_UNKNOWN_FIELDS) walk.unknown.push(jsonPath(child));
      continue;
    }
    // null (and a missing value) leave the field unset, as Go leaves its zero value.
    if (raw === null || raw === undefined) continue;
    const item = decodeValue(raw, type, child, schema.goName, depth + 1, walk);
    if (item !== DROP) setOwn(out, key, item);
  }
  return out;
}

/**
 * Decodes `value` (a JSON object) into `schema`. Throws DecodeError with Go's text for a value
 * it cannot decode, unless `repair` is set.
 */
export function decodeTyped(value: Record<string, unknown>, schema: StructSchema, repair = false): Decoded {
  const walk: Walk = { repair, unknown: [], dropped: [], mismatch: undefined };
  const out = decodeStruct(value, schema, undefined, schema.goName, 1, walk) as Record<string, unknown>;
  if (walk.mismatch !== undefined) throw new DecodeError(walk.mismatch);
  return { value: out, unknownFields: walk.unknown, dropped: walk.dropped };
}
