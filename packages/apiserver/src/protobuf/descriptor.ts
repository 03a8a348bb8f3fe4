/**
 * The protobuf messages of the served types, as protobufjs reflection types built from
 * schema.json (which tools/k8s/cmd/protobuf-schema derives from the Go types' struct tags).
 *
 * Maps are declared as repeated {key=1, value=2} entry messages rather than protobufjs map
 * fields: Go writes map entries sorted by key bytes, and a JS object would reorder
 * integer-like keys. Repeated scalars are unpacked, as Kubernetes' proto2 messages are.
 */
import protobuf from 'protobufjs';
import schema from './schema.json' with { type: 'json' };

/** How a field is carried, as the generator read it from the Go struct tags. */
interface FieldDescriptor {
  name: string;
  /** The JSON name when it differs from `name`. */
  json?: string;
  number: number;
  /** A scalar ("string", "int64", "bytes", ...), "map", or a message's Go type name. */
  type: string;
  repeated?: boolean;
  map?: { key: string; value: string };
  /** A Go pointer: written only when set. */
  pointer?: boolean;
  omitempty?: boolean;
  /** An embedded struct whose fields JSON flattens into its parent. */
  inline?: boolean;
}

/** The apimachinery types whose JSON form is not an object of their fields. */
type SpecialForm = 'Time' | 'MicroTime' | 'Quantity' | 'IntOrString' | 'RawExtension' | 'FieldsV1' | 'Items' | 'Unknown';

interface MessageDescriptor {
  special?: SpecialForm;
  fields: FieldDescriptor[];
}

interface SchemaFile {
  kinds: Record<string, Record<string, string>>;
  messages: Record<string, MessageDescriptor>;
}

const SCHEMA = schema as SchemaFile;

export const SCALAR_TYPES = new Set(['string', 'bool', 'int32', 'int64', 'uint32', 'uint64', 'double', 'float', 'bytes']);

/** A compiled message: its descriptor, its protobufjs type and its fields' JSON names. */
export interface CompiledMessage {
  goName: string;
  descriptor: MessageDescriptor;
  type: protobuf.Type;
  fields: CompiledField[];
}

export interface CompiledField extends FieldDescriptor {
  jsonName: string;
}

function protoName(goName: string): string {
  return goName.replace(/[^A-Za-z0-9]/g, '_');
}

function fieldTypeName(type: string): string {
  return SCALAR_TYPES.has(type) ? type : protoName(type);
}

function entryType(owner: string, f: FieldDescriptor): protobuf.Type {
  const entry = new protobuf.Type(`${protoName(owner)}__${f.name}Entry`);
  entry.add(new protobuf.Field('key', 1, fieldTypeName(f.map!.key)));
  entry.add(new protobuf.Field('value', 2, fieldTypeName(f.map!.value)));
  return entry;
}

function messageType(goName: string, m: MessageDescriptor, root: protobuf.Root): protobuf.Type {
  const type = new protobuf.Type(protoName(goName));
  for (const f of m.fields) {
    if (f.map) {
      const entry = entryType(goName, f);
      root.add(entry);
      type.add(new protobuf.Field(f.name, f.number, entry.name, 'repeated'));
      continue;
    }
    const scalarRepeated = f.repeated && SCALAR_TYPES.has(f.type) && f.type !== 'string' && f.type !== 'bytes';
    const options = scalarRepeated ? { packed: false } : undefined;
    type.add(new protobuf.Field(f.name, f.number, fieldTypeName(f.type), f.repeated ? 'repeated' : 'optional', undefined, options));
  }
  return type;
}

function compile(): Map<string, CompiledMessage> {
  const root = new protobuf.Root();
  const types = new Map<string, protobuf.Type>();
  for (const [goName, m] of Object.entries(SCHEMA.messages)) {
    const type = messageType(goName, m, root);
    root.add(type);
    types.set(goName, type);
  }
  root.resolveAll();
  const out = new Map<string, CompiledMessage>();
  for (const [goName, m] of Object.entries(SCHEMA.messages)) {
    const fields = m.fields.map((f) => ({ ...f, jsonName: f.json ?? f.name }));
    out.set(goName, { goName, descriptor: m, type: types.get(goName)!, fields });
  }
  return out;
}

let compiled: Map<string, CompiledMessage> | undefined;

/** Every message by Go type name, compiled on first use (the JSON path never pays for it). */
export function messages(): Map<string, CompiledMessage> {
  compiled ??= compile();
  return compiled;
}

export function messageNamed(goName: string): CompiledMessage {
  const m = messages().get(goName);
  if (!m) throw new Error(`no protobuf message ${goName}`);
  return m;
}

/** The message of a kind in an apiVersion, or undefined when the scheme does not know it. */
export function messageForKind(apiVersion: string, kind: string): CompiledMessage | undefined {
  const goName = SCHEMA.kinds[apiVersion]?.[kind];
  return goName === undefined ? undefined : messageNamed(goName);
}

export const UNKNOWN_MESSAGE = 'k8s.io/apimachinery/pkg/runtime.Unknown';
export const WATCH_EVENT_MESSAGE = 'k8s.io/apimachinery/pkg/apis/meta/v1.WatchEvent';

/** The longest chain of nested messages below `goName` (the schema has no cycles: decoding is bounded). */
export function nestingDepth(goName: string, seen: string[] = []): number {
  if (seen.includes(goName)) throw new Error(`protobuf schema cycle: ${[...seen, goName].join(' -> ')}`);
  const m = messageNamed(goName);
  let deepest = 0;
  for (const f of m.fields) {
    for (const t of f.map ? [f.map.value] : [f.type]) {
      if (!SCALAR_TYPES.has(t)) deepest = Math.max(deepest, nestingDepth(t, [...seen, goName]) + (f.map ? 1 : 0));
    }
  }
  return deepest + 1;
}
