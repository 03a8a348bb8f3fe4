/**
 * Our JSON objects to and from protobufjs message objects, field by field as Go's generated
 * marshallers treat them: a pointer field is written only when set, a nil slice or map not at
 * all, and every other field always (empty strings, zeros and empty structs included), so the
 * bytes match kube-apiserver's. Decoding yields the JSON Go's encoding/json would write for the
 * decoded struct (omitempty zeros and nil values left out), which the JSON pipeline then reads.
 */
import { Buffer } from 'node:buffer';
import { isoSeconds, parseGoTime, RFC3339, RFC3339_MICRO } from '../decode/go-time.js';
import { messageNamed, SCALAR_TYPES, type CompiledField, type CompiledMessage } from './descriptor.js';

type Json = unknown;
type JsonObject = Record<string, unknown>;
type ProtoMessage = Record<string, unknown>;

/** A value in a protobuf body that has no JSON form (a time Go cannot write, bad JSON raw bytes). */
export class ProtobufValueError extends Error {}

const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Go's sort.Strings order: by UTF-8 bytes. */
function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function scalarZero(type: string): Json {
  if (type === 'string') return '';
  if (type === 'bool') return false;
  return 0;
}

function timestamp(value: string, micro: boolean): ProtoMessage {
  const { ms, nanos } = parseGoTime(value, micro ? RFC3339_MICRO : RFC3339);
  const seconds = Math.floor(ms / 1000);
  return { seconds, nanos: micro ? Math.floor(nanos / 1000) * 1000 : 0 };
}

/** JSON → message for the types with hand-written marshallers. */
function specialToMessage(m: CompiledMessage, v: Json): ProtoMessage {
  switch (m.descriptor.special) {
    case 'Time':
    case 'MicroTime':
      return typeof v === 'string' ? timestamp(v, m.descriptor.special === 'MicroTime') : {};
    case 'Quantity':
      return { string: v === undefined || v === null ? '0' : String(v) };
    case 'IntOrString':
      return typeof v === 'string' ? { type: 1, intVal: 0, strVal: v } : { type: 0, intVal: typeof v === 'number' ? v : 0, strVal: '' };
    case 'RawExtension':
      return v === undefined || v === null ? {} : { raw: Buffer.from(JSON.stringify(v)) };
    case 'FieldsV1':
      return v === undefined || v === null ? {} : { Raw: Buffer.from(JSON.stringify(v)) };
    case 'Items':
      return { items: Array.isArray(v) ? v.map((e) => valueToMessage(m.fields[0].type, e)) : [] };
    default:
      throw new Error(`no JSON form for ${m.goName}`);
  }
}

function valueToMessage(type: string, v: Json): unknown {
  if (type === 'bytes') return typeof v === 'string' ? Buffer.from(v, 'base64') : Buffer.alloc(0);
  if (SCALAR_TYPES.has(type)) return v ?? scalarZero(type);
  const m = messageNamed(type);
  return m.descriptor.special ? specialToMessage(m, v) : toMessage(m, isObject(v) ? v : {});
}

function fieldToMessage(f: CompiledField, json: JsonObject, out: ProtoMessage): void {
  if (f.inline) {
    out[f.name] = toMessage(messageNamed(f.type), json);
    return;
  }
  const v = json[f.jsonName];
  if (f.map) {
    if (!isObject(v)) return;
    const keys = Object.keys(v).sort(compareBytes);
    out[f.name] = keys.map((key) => ({ key, value: valueToMessage(f.map!.value, v[key]) }));
  } else if (f.repeated) {
    if (Array.isArray(v) && v.length > 0) out[f.name] = v.map((e) => valueToMessage(f.type, e));
  } else if (v === undefined || v === null) {
    if (!f.pointer && f.type !== 'bytes') out[f.name] = valueToMessage(f.type, undefined);
  } else out[f.name] = valueToMessage(f.type, v);
}

/** A JSON object as the message object protobufjs encodes into Go's bytes. */
export function toMessage(m: CompiledMessage, json: JsonObject): ProtoMessage {
  if (m.descriptor.special) return specialToMessage(m, json);
  const out: ProtoMessage = {};
  for (const f of m.fields) fieldToMessage(f, json, out);
  return out;
}

function jsonOfBytes(raw: unknown, what: string): Json {
  if (!(raw instanceof Uint8Array) || raw.length === 0) return undefined;
  try {
    return JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.length).toString('utf8'));
  } catch (err) {
    throw new ProtobufValueError(`${what}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function int(v: unknown): number {
  if (typeof v === 'number') return v;
  if (v !== null && typeof v === 'object' && 'toNumber' in v) return (v as { toNumber(): number }).toNumber();
  return Number(v ?? 0);
}

/** Time and MicroTime as Go's JSON writes them; an empty message is the zero time (null). */
function timeJson(msg: ProtoMessage, micro: boolean): Json {
  if (!hasOwn(msg, 'seconds') && !hasOwn(msg, 'nanos')) return undefined;
  const seconds = int(msg.seconds);
  const ms = seconds * 1000;
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) throw new ProtobufValueError('Time.MarshalJSON: year outside of range [0,9999]');
  if (!micro) return `${isoSeconds(ms)}Z`;
  const micros = Math.floor(Math.max(0, Math.min(int(msg.nanos), 999_999_999)) / 1000);
  return `${isoSeconds(ms)}.${String(micros).padStart(6, '0')}Z`;
}

function specialToJson(m: CompiledMessage, msg: ProtoMessage): Json {
  switch (m.descriptor.special) {
    case 'Time':
    case 'MicroTime':
      return timeJson(msg, m.descriptor.special === 'MicroTime');
    case 'Quantity':
      return typeof msg.string === 'string' && msg.string !== '' ? msg.string : '0';
    case 'IntOrString':
      return int(msg.type) === 1 ? (msg.strVal ?? '') : int(msg.intVal);
    case 'RawExtension':
      return jsonOfBytes(msg.raw, 'RawExtension');
    case 'FieldsV1':
      return jsonOfBytes(msg.Raw, 'FieldsV1');
    case 'Items':
      return ((msg.items as unknown[] | undefined) ?? []).map((e) => valueToJson(m.fields[0].type, e));
    default:
      throw new Error(`no JSON form for ${m.goName}`);
  }
}

function valueToJson(type: string, v: unknown): Json {
  if (type === 'bytes') return v instanceof Uint8Array ? Buffer.from(v.buffer, v.byteOffset, v.length).toString('base64') : '';
  if (type === 'int64' || type === 'uint64') return int(v);
  if (SCALAR_TYPES.has(type)) return v ?? scalarZero(type);
  const m = messageNamed(type);
  const msg = (v ?? {}) as ProtoMessage;
  return m.descriptor.special ? specialToJson(m, msg) : fromMessage(m, msg);
}

function isEmptyJson(v: Json): boolean {
  return v === undefined || v === '' || v === 0 || v === false;
}

function fieldToJson(f: CompiledField, msg: ProtoMessage, out: JsonObject): void {
  const present = hasOwn(msg, f.name);
  if (f.inline) {
    Object.assign(out, fromMessage(messageNamed(f.type), (msg[f.name] ?? {}) as ProtoMessage));
    return;
  }
  if (f.map) {
    const entries = msg[f.name] as Array<{ key?: unknown; value?: unknown }> | undefined;
    if (!entries || entries.length === 0) return;
    const object: JsonObject = {};
    for (const e of entries) object[String(valueToJson(f.map.key, e.key))] = valueToJson(f.map.value, e.value);
    out[f.jsonName] = object;
  } else if (f.repeated) {
    const items = msg[f.name] as unknown[] | undefined;
    if (items && items.length > 0) out[f.jsonName] = items.map((e) => valueToJson(f.type, e));
  } else if (f.pointer || f.type === 'bytes') {
    const v = present ? valueToJson(f.type, msg[f.name]) : undefined;
    if (v !== undefined) out[f.jsonName] = v;
  } else {
    const v = valueToJson(f.type, present ? msg[f.name] : undefined);
    if (v !== undefined && !(f.omitempty && isEmptyJson(v))) out[f.jsonName] = v;
  }
}

/** A decoded message as the JSON Go writes for it. */
export function fromMessage(m: CompiledMessage, msg: ProtoMessage): JsonObject {
  const out: JsonObject = {};
  for (const f of m.fields) fieldToJson(f, msg, out);
  return out;
}
