/**
 * The `application/vnd.kubernetes.protobuf` wire form of one object: the 4-byte magic `k8s\0`,
 * then a runtime.Unknown whose typeMeta names the object's apiVersion and kind and whose raw
 * holds the object's own message. Watch streams frame each metav1.WatchEvent with a 4-byte
 * big-endian length and carry the event's object, enveloped, in its RawExtension.
 */
import { Buffer } from 'node:buffer';
import protobuf from 'protobufjs';
import { fromMessage, ProtobufValueError, toMessage } from './codec.js';
import { messageForKind, messageNamed, UNKNOWN_MESSAGE, WATCH_EVENT_MESSAGE, type CompiledMessage } from './descriptor.js';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
export const PROTOBUF_WATCH_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf;stream=watch';

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** A protobuf body that cannot be decoded, in the words of Go's protobuf serializer. */
export class ProtobufDecodeError extends Error {
  constructor(
    message: string,
    /** The envelope was read: the error is in the object's own message. */
    readonly inObject = false,
  ) {
    super(message);
  }
}

/** The message of a kind; meta.k8s.io/v1's (Status, WatchEvent, options) serve every group-version. */
function messageFor(apiVersion: string, kind: string): CompiledMessage | undefined {
  return messageForKind(apiVersion, kind) ?? messageForKind('meta.k8s.io/v1', kind);
}

function unknownType(): protobuf.Type {
  return messageNamed(UNKNOWN_MESSAGE).type;
}

/** One object (with its apiVersion and kind) as a protobuf body. */
export function encodeObject(obj: Record<string, unknown>): Buffer {
  const apiVersion = String(obj.apiVersion ?? '');
  const kind = String(obj.kind ?? '');
  const m = messageFor(apiVersion, kind);
  if (!m) throw new Error(`no protobuf message for ${apiVersion} ${kind}`);
  const raw = m.type.encode(toMessage(m, obj)).finish();
  const unknown = unknownType().encode({ typeMeta: { apiVersion, kind }, raw, contentEncoding: '', contentType: '' }).finish();
  return Buffer.concat([MAGIC, unknown]);
}

/** Go's wording of protobufjs's decode errors. */
function goDecodeMessage(err: unknown): string {
  if (err instanceof RangeError && /index out of range/.test(err.message)) return 'unexpected EOF';
  if (err instanceof RangeError) return 'proto: nested too deeply';
  const message = err instanceof Error ? err.message : String(err);
  return /^invalid wire type (\d+)/.test(message) ? `proto: illegal wireType ${RegExp.$1}` : `proto: ${message}`;
}

function decodeMessage(type: protobuf.Type, raw: Uint8Array): Record<string, unknown> {
  return type.decode(raw) as unknown as Record<string, unknown>;
}

interface DecodedObject {
  apiVersion: string;
  kind: string;
  /** The object as JSON (apiVersion and kind included), as Go's encoding/json writes it. */
  value: Record<string, unknown>;
}

/**
 * Decodes a protobuf body into JSON. An envelope without apiVersion or kind takes them from
 * `defaults` (the kind the endpoint expects), as Go's serializer fills them from the target.
 */
export function decodeObject(body: Uint8Array, defaults: { apiVersion: string; kind: string }): DecodedObject {
  if (body.length < MAGIC.length || !MAGIC.equals(body.subarray(0, MAGIC.length))) {
    throw new ProtobufDecodeError('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  }
  let unknown: Record<string, unknown>;
  try {
    unknown = decodeMessage(unknownType(), body.subarray(MAGIC.length));
  } catch (err) {
    throw new ProtobufDecodeError(goDecodeMessage(err));
  }
  const typeMeta = (unknown.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
  const apiVersion = typeMeta.apiVersion || defaults.apiVersion;
  const kind = typeMeta.kind || defaults.kind;
  const m = messageFor(apiVersion, kind);
  if (!m) throw new ProtobufDecodeError(`no kind "${kind}" is registered for version "${apiVersion}"`, true);
  let value: Record<string, unknown>;
  try {
    value = fromMessage(m, decodeMessage(m.type, (unknown.raw as Uint8Array | undefined) ?? new Uint8Array()));
  } catch (err) {
    if (err instanceof ProtobufValueError) throw new ProtobufDecodeError(err.message, true);
    throw new ProtobufDecodeError(goDecodeMessage(err), true);
  }
  return { apiVersion, kind, value: { kind, apiVersion, ...value } };
}

/** One watch event frame: length, then a WatchEvent whose object is the enveloped object. */
export function watchFrame(type: string, encodedObject: Uint8Array): Buffer {
  const event = messageNamed(WATCH_EVENT_MESSAGE).type.encode({ type, object: { raw: encodedObject } }).finish();
  const frame = Buffer.allocUnsafe(4 + event.length);
  frame.writeUInt32BE(event.length, 0);
  frame.set(event, 4);
  return frame;
}
