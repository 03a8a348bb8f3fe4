/**
 * The CSI messages and services as protobufjs reflection types, loaded once from descriptor.json,
 * which tools/csi/cmd/csi-descriptor generates from the file descriptor the CSI spec's Go module
 * embeds (`npm run csi:generate`; the file names the spec version it came from).
 *
 * Field names are the spec's (snake_case), as on the wire; the client's conversions (wire.ts and
 * the files beside it) turn them into the camelCase values of types.ts. The generator keeps one
 * custom option, `(csi.v1.csi_secret)`, on the fields that carry secrets: `withoutSecrets` reads
 * it, so nothing that logs a message can print one.
 */
import protobuf from 'protobufjs';
import descriptor from './descriptor.json' with { type: 'json' };

/** The generated file: a protobufjs root plus where it came from. */
interface DescriptorFile {
  comment: string;
  specModule: string;
  specVersion: string;
  nested: protobuf.INamespace['nested'];
}

const FILE = descriptor as unknown as DescriptorFile;

/** The spec module's version the descriptor was generated from ("v1.13.0"). */
export const CSI_SPEC_VERSION = FILE.specVersion;

const SECRET_OPTION = '(csi.v1.csi_secret)';

let root: protobuf.Root | undefined;

/** The CSI root (csi.v1 and the well-known types it uses), resolved on first use. */
export function csiRoot(): protobuf.Root {
  if (!root) {
    root = protobuf.Root.fromJSON({ nested: FILE.nested });
    root.resolveAll();
  }
  return root;
}

export type CsiService = 'Identity' | 'Controller';

/** One unary RPC: its gRPC path and its message types. */
export interface CsiMethod {
  service: CsiService;
  name: string;
  /** "/csi.v1.Controller/CreateVolume": what gRPC sends and the sidecars' metrics label. */
  path: string;
  requestType: protobuf.Type;
  responseType: protobuf.Type;
}

const methods = new Map<string, CsiMethod>();

/** The RPC `name` of `service` (throws when the spec has no such RPC). */
export function csiMethod(service: CsiService, name: string): CsiMethod {
  const path = `/csi.v1.${service}/${name}`;
  let method = methods.get(path);
  if (!method) {
    const rpc = csiRoot().lookupService(`csi.v1.${service}`).methods[name];
    if (!rpc || rpc.requestStream || rpc.responseStream) throw new Error(`the CSI spec ${CSI_SPEC_VERSION} has no unary RPC ${path}`);
    const requestType = rpc.resolvedRequestType;
    const responseType = rpc.resolvedResponseType;
    if (!requestType || !responseType) throw new Error(`${path}: unresolved message types`);
    method = { service, name, path, requestType, responseType };
    methods.set(path, method);
  }
  return method;
}

/** A wire message as protobufjs's toObject gives it and fromObject takes it. */
export type WireMessage = Record<string, unknown>;

/** How toObject reads a message: int64 as exact decimal text, enums by name, empty lists and maps present. */
const READ_OPTIONS = { longs: String, enums: String, arrays: true, objects: true } as const;

/**
 * The bytes of `wire` as a `type` (int64 as decimal text, enums by name). fromObject coerces each
 * field to its type, so what comes out always encodes; the values that cannot be coerced
 * faithfully (an int64 outside its range, a oneof with two members) are refused by wire.ts first.
 */
export function encodeMessage(type: protobuf.Type, wire: WireMessage): Buffer {
  const bytes = type.encode(type.fromObject(wire)).finish();
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A `type` read from `bytes` as a wire object (absent fields left out). */
export function decodeMessage(type: protobuf.Type, bytes: Uint8Array): WireMessage {
  return type.toObject(type.decode(bytes), READ_OPTIONS);
}

const STRIPPED = '***stripped***';

/**
 * A copy of `message` (a wire object of `type`) in which every field the spec marks csi_secret is
 * replaced by a marker, at any depth: what the client logs of a request.
 */
export function withoutSecrets(type: protobuf.Type, message: WireMessage): WireMessage {
  const out: WireMessage = {};
  for (const [name, value] of Object.entries(message)) {
    const field = type.fields[name];
    if (!field || value === undefined || value === null) out[name] = value;
    else if (field.options?.[SECRET_OPTION] === true) out[name] = STRIPPED;
    else if (field.resolvedType instanceof protobuf.Type && !field.map) {
      const nested = field.resolvedType;
      out[name] = Array.isArray(value) ? value.map((v) => withoutSecrets(nested, v as WireMessage)) : withoutSecrets(nested, value as WireMessage);
    } else out[name] = value;
  }
  return out;
}
