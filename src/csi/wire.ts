/**
 * Conversions between the values of types.ts and CSI wire objects: the objects protobufjs's
 * `fromObject` takes and `toObject` gives for the descriptor's types (spec field names, enums by
 * name, int64 as a decimal string, maps as plain objects, absent fields left out).
 *
 * int64 never passes through a JS number: a bigint is written as its decimal text, which
 * protobufjs reads with Long.fromString, and read back from Long's decimal text, so every value
 * of the int64 range survives both ways. Reading is defensive: a field of the wrong JS type reads
 * as absent (the proto3 default), never as a crash, and a value that cannot be what the spec says
 * (a Timestamp out of its range) is a `WireFormatError`.
 */
import type {
  CsiCapacityRange,
  CsiContentSource,
  CsiSegments,
  CsiSnapshot,
  CsiTopologyRequirement,
  CsiVolume,
  CsiVolumeCapability,
} from './types.js';
import type { WireMessage } from './descriptor.js';

/** A message from the driver that does not fit the spec's types. */
export class WireFormatError extends Error {
  override name = 'WireFormatError';
}

// ---- reading ----------------------------------------------------------------------------------

export function readString(w: WireMessage, key: string): string {
  const v = w[key];
  return typeof v === 'string' ? v : '';
}

export function readBool(w: WireMessage, key: string): boolean {
  return w[key] === true;
}

/** An int64 (decimal text from toObject's `longs: String`), 0n when absent. */
export function readInt64(w: WireMessage, key: string): bigint {
  const v = w[key];
  if (typeof v === 'string') {
    if (!/^-?\d+$/.test(v)) throw new WireFormatError(`${key}: not an integer: ${v}`);
    return BigInt.asIntN(64, BigInt(v));
  }
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  if (v === undefined || v === null) return 0n;
  throw new WireFormatError(`${key}: not an int64`);
}

export function readMessage(w: WireMessage, key: string): WireMessage | undefined {
  const v = w[key];
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as WireMessage) : undefined;
}

export function readMessages(w: WireMessage, key: string): WireMessage[] {
  const v = w[key];
  return Array.isArray(v) ? v.filter((e): e is WireMessage => typeof e === 'object' && e !== null) : [];
}

export function readStrings(w: WireMessage, key: string): string[] {
  const v = w[key];
  return Array.isArray(v) ? v.filter((e): e is string => typeof e === 'string') : [];
}

export function readStringMap(w: WireMessage, key: string): Record<string, string> {
  const out: Record<string, string> = {};
  const m = readMessage(w, key);
  if (m) for (const [k, v] of Object.entries(m)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** An enum value by name (toObject's `enums: String`); a number the descriptor does not know stays its decimal text. */
export function readEnum(w: WireMessage, key: string): string | undefined {
  const v = w[key];
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  return undefined;
}

/** A google.protobuf wrapper (Int64Value): undefined when the message is absent, its value (default 0) when present. */
export function readInt64Value(w: WireMessage, key: string): bigint | undefined {
  const m = readMessage(w, key);
  return m ? readInt64(m, 'value') : undefined;
}

/** A google.protobuf.BoolValue: undefined when absent, its value (default false) when present. */
export function readBoolValue(w: WireMessage, key: string): boolean | undefined {
  const m = readMessage(w, key);
  return m ? readBool(m, 'value') : undefined;
}

/** Timestamp's range: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999999Z. */
const MIN_SECONDS = -62135596800n;
const MAX_SECONDS = 253402300799n;

/**
 * A google.protobuf.Timestamp as RFC 3339 in UTC with the nanoseconds it has (Go's
 * time.RFC3339Nano: trailing zeros of the fraction dropped, none when it is whole seconds);
 * undefined when absent.
 */
export function readTimestamp(w: WireMessage, key: string): string | undefined {
  const m = readMessage(w, key);
  if (!m) return undefined;
  const seconds = readInt64(m, 'seconds');
  const nanos = typeof m.nanos === 'number' ? m.nanos : 0;
  if (seconds < MIN_SECONDS || seconds > MAX_SECONDS || !Number.isInteger(nanos) || nanos < 0 || nanos > 999_999_999) {
    throw new WireFormatError(`${key}: not a valid Timestamp (seconds ${seconds}, nanos ${nanos})`);
  }
  const whole = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  const fraction = nanos === 0 ? '' : `.${String(nanos).padStart(9, '0').replace(/0+$/, '')}`;
  return `${whole}${fraction}Z`;
}

export function readSegments(w: WireMessage): CsiSegments {
  return readStringMap(w, 'segments');
}

export function readContentSource(w: WireMessage, key: string): CsiContentSource | undefined {
  const source = readMessage(w, key);
  if (!source) return undefined;
  const snapshot = readMessage(source, 'snapshot');
  if (snapshot) return { snapshot: { snapshotId: readString(snapshot, 'snapshot_id') } };
  const volume = readMessage(source, 'volume');
  if (volume) return { volume: { volumeId: readString(volume, 'volume_id') } };
  return undefined;
}

export function readVolume(w: WireMessage | undefined): CsiVolume {
  if (!w) throw new WireFormatError('the response has no volume');
  const contentSource = readContentSource(w, 'content_source');
  return {
    capacityBytes: readInt64(w, 'capacity_bytes'),
    volumeId: readString(w, 'volume_id'),
    volumeContext: readStringMap(w, 'volume_context'),
    ...(contentSource ? { contentSource } : {}),
    accessibleTopology: readMessages(w, 'accessible_topology').map(readSegments),
  };
}

export function readSnapshot(w: WireMessage | undefined): CsiSnapshot {
  if (!w) throw new WireFormatError('the response has no snapshot');
  const creationTime = readTimestamp(w, 'creation_time');
  const groupSnapshotId = readString(w, 'group_snapshot_id');
  return {
    sizeBytes: readInt64(w, 'size_bytes'),
    snapshotId: readString(w, 'snapshot_id'),
    sourceVolumeId: readString(w, 'source_volume_id'),
    ...(creationTime !== undefined ? { creationTime } : {}),
    readyToUse: readBool(w, 'ready_to_use'),
    ...(groupSnapshotId !== '' ? { groupSnapshotId } : {}),
  };
}

// ---- writing ----------------------------------------------------------------------------------

/** The int64 as protobufjs reads it exactly (Long.fromString). */
export function int64(value: bigint): string {
  if (value !== BigInt.asIntN(64, value)) throw new WireFormatError(`${value} is outside the int64 range`);
  return value.toString();
}

export function capacityRange(range: CsiCapacityRange): WireMessage {
  const out: WireMessage = {};
  if (range.requiredBytes !== undefined) out.required_bytes = int64(range.requiredBytes);
  if (range.limitBytes !== undefined) out.limit_bytes = int64(range.limitBytes);
  return out;
}

export function volumeCapability(cap: CsiVolumeCapability): WireMessage {
  if ((cap.block === undefined) === (cap.mount === undefined)) {
    throw new WireFormatError('a volume capability is exactly one of block or mount');
  }
  const out: WireMessage = { access_mode: { mode: cap.accessMode } };
  if (cap.block) out.block = {};
  else if (cap.mount) {
    const { fsType, mountFlags, volumeMountGroup } = cap.mount;
    out.mount = {
      ...(fsType !== undefined ? { fs_type: fsType } : {}),
      ...(mountFlags !== undefined ? { mount_flags: [...mountFlags] } : {}),
      ...(volumeMountGroup !== undefined ? { volume_mount_group: volumeMountGroup } : {}),
    };
  }
  return out;
}

export function contentSource(source: CsiContentSource): WireMessage {
  if ((source.snapshot === undefined) === (source.volume === undefined)) {
    throw new WireFormatError('a content source is exactly one of snapshot or volume');
  }
  return source.snapshot
    ? { snapshot: { snapshot_id: source.snapshot.snapshotId } }
    : { volume: { volume_id: source.volume?.volumeId ?? '' } };
}

export function topology(segments: CsiSegments): WireMessage {
  return { segments: { ...segments } };
}

export function topologyRequirement(req: CsiTopologyRequirement): WireMessage {
  return { requisite: req.requisite.map(topology), preferred: req.preferred.map(topology) };
}
