/**
 * The fake CSI driver's default behaviour (fake-driver.ts serves it): an in-memory driver that
 * follows the spec where a controller depends on it.
 * - CreateVolume is idempotent by name: the same name with a size inside the requested range
 *   returns the existing volume; outside it, ALREADY_EXISTS. A name longer than `maxNameLength`
 *   is INVALID_ARGUMENT; a size beyond what is left of `totalCapacity` RESOURCE_EXHAUSTED.
 *   Volume ids are "vol-1", "vol-2", ... (never the name). The accessible topology is the first
 *   preferred segment, else the first requisite one, else the driver's `topology`.
 * - DeleteVolume of an unknown id succeeds; ControllerExpandVolume and ControllerModifyVolume of
 *   one are NOT_FOUND. Expanding never shrinks.
 * - GetCapacity answers what is left of `totalCapacity` (and `maximumVolumeSize` when set);
 *   ListVolumes and ListSnapshots page by index, a token they did not give is ABORTED.
 * - CreateSnapshot is idempotent by name (ALREADY_EXISTS for another source), NOT_FOUND for an
 *   unknown source volume; DeleteSnapshot of an unknown id succeeds.
 * - CreateVolume with a volume_content_source (restore, clone): NOT_FOUND for an unknown snapshot
 *   or volume, OUT_OF_RANGE for a size below the source's, ALREADY_EXISTS for a name made from
 *   another source; the answer carries the content source.
 * - Probe answers `ready` (true by default; undefined leaves the field unset, false not ready).
 */
import { status } from '@grpc/grpc-js';
import type { WireMessage } from '../../src/csi/descriptor.js';
import type { CsiSegments } from '../../src/csi/types.js';
import { readInt64, readMessage, readMessages, readSegments, readString, readStringMap } from '../../src/csi/wire.js';

/** A gRPC status a handler answers with. */
export class FakeCsiError extends Error {
  constructor(
    readonly code: status,
    readonly details: string,
  ) {
    super(`${status[code]}: ${details}`);
  }
}

export interface FakeDriverOptions {
  /** GetPluginInfo's name (default 'fake.csi.pv-controller.io'). */
  name?: string;
  /** ControllerGetCapabilities' RPC types (default: create/delete, expand, modify, capacity, list, snapshots). */
  controllerCapabilities?: string[];
  /** GetPluginCapabilities' service types (default CONTROLLER_SERVICE, plus VOLUME_ACCESSIBILITY_CONSTRAINTS with `topology`). */
  pluginServices?: string[];
  /** GetPluginCapabilities' volume expansion (default ONLINE; null: none declared). */
  volumeExpansion?: 'ONLINE' | 'OFFLINE' | null;
  /** What all volumes together may hold (default 1 TiB). */
  totalCapacity?: bigint;
  maximumVolumeSize?: bigint;
  /** The size of a volume whose request names none (default 1 GiB). */
  defaultVolumeSize?: bigint;
  /** ControllerExpandVolume's node_expansion_required. */
  nodeExpansionRequired?: boolean;
  /** The segment new volumes are accessible from when the request names none. */
  topology?: CsiSegments;
  /** The longest volume or snapshot name accepted (default 128, what most cloud drivers take). */
  maxNameLength?: number;
}

export interface FakeVolume {
  id: string;
  name: string;
  capacityBytes: bigint;
  parameters: Record<string, string>;
  mutableParameters: Record<string, string>;
  accessibleTopology: CsiSegments[];
  /** The request's volume_content_source, as it came. */
  contentSource?: WireMessage;
}

export interface FakeSnapshot {
  id: string;
  name: string;
  sourceVolumeId: string;
  sizeBytes: bigint;
  creationSeconds: bigint;
}

const GiB = 1n << 30n;
const DEFAULT_CONTROLLER_CAPABILITIES = [
  'CREATE_DELETE_VOLUME',
  'EXPAND_VOLUME',
  'MODIFY_VOLUME',
  'GET_CAPACITY',
  'LIST_VOLUMES',
  'CREATE_DELETE_SNAPSHOT',
  'LIST_SNAPSHOTS',
];

type Handler = (request: WireMessage) => Record<string, unknown>;

function invalid(what: string): never {
  throw new FakeCsiError(status.INVALID_ARGUMENT, what);
}

/** The page of `items` a List call asks for, and the token of the next. */
function page<T>(items: T[], request: WireMessage): { entries: T[]; next_token: string } {
  const token = readString(request, 'starting_token');
  const start = token === '' ? 0 : Number(token);
  if (!Number.isInteger(start) || start < 0 || start > items.length) throw new FakeCsiError(status.ABORTED, `invalid starting_token ${token}`);
  const max = typeof request.max_entries === 'number' && request.max_entries > 0 ? request.max_entries : items.length;
  const end = Math.min(items.length, start + max);
  return { entries: items.slice(start, end), next_token: end < items.length ? String(end) : '' };
}

export class FakeDriverState {
  /** Probe's answer; tests flip it. */
  ready: boolean | undefined = true;
  /** Volumes by name. */
  readonly volumes = new Map<string, FakeVolume>();
  /** Snapshots by name. */
  readonly snapshots = new Map<string, FakeSnapshot>();
  private nextId = 1;
  private clockSeconds = 1_767_225_600n; // 2026-01-01T00:00:00Z, one second more per snapshot

  constructor(readonly options: FakeDriverOptions) {}

  get name(): string {
    return this.options.name ?? 'fake.csi.pv-controller.io';
  }

  volumeById(id: string): FakeVolume | undefined {
    return [...this.volumes.values()].find((v) => v.id === id);
  }

  usedBytes(): bigint {
    let used = 0n;
    for (const v of this.volumes.values()) used += v.capacityBytes;
    return used;
  }

  availableBytes(): bigint {
    const left = (this.options.totalCapacity ?? 1024n * GiB) - this.usedBytes();
    return left > 0n ? left : 0n;
  }

  /** The default handler of each RPC, by name. */
  readonly handlers: Record<string, Handler> = {
    GetPluginInfo: () => ({ name: this.name, vendor_version: '0.0.0-fake', manifest: {} }),
    GetPluginCapabilities: () => this.pluginCapabilities(),
    Probe: () => (this.ready === undefined ? {} : { ready: { value: this.ready } }),
    ControllerGetCapabilities: () => ({
      capabilities: (this.options.controllerCapabilities ?? DEFAULT_CONTROLLER_CAPABILITIES).map((type) => ({ rpc: { type } })),
    }),
    CreateVolume: (req) => ({ volume: this.volumeMessage(this.createVolume(req)) }),
    DeleteVolume: (req) => {
      const volume = this.volumeById(readString(req, 'volume_id') || invalid('volume_id is required'));
      if (volume) this.volumes.delete(volume.name);
      return {};
    },
    ControllerExpandVolume: (req) => {
      const volume = this.existingVolume(req);
      const required = readInt64(readMessage(req, 'capacity_range') ?? {}, 'required_bytes');
      if (required > volume.capacityBytes) volume.capacityBytes = required;
      return { capacity_bytes: volume.capacityBytes, node_expansion_required: this.options.nodeExpansionRequired ?? false };
    },
    ControllerModifyVolume: (req) => {
      Object.assign(this.existingVolume(req).mutableParameters, readStringMap(req, 'mutable_parameters'));
      return {};
    },
    GetCapacity: () => ({
      available_capacity: this.availableBytes(),
      ...(this.options.maximumVolumeSize !== undefined ? { maximum_volume_size: { value: this.options.maximumVolumeSize } } : {}),
    }),
    ListVolumes: (req) => {
      const { entries, next_token } = page([...this.volumes.values()], req);
      return { entries: entries.map((v) => ({ volume: this.volumeMessage(v), status: { published_node_ids: [] } })), next_token };
    },
    CreateSnapshot: (req) => ({ snapshot: this.snapshotMessage(this.createSnapshot(req)) }),
    DeleteSnapshot: (req) => {
      const id = readString(req, 'snapshot_id') || invalid('snapshot_id is required');
      for (const s of this.snapshots.values()) if (s.id === id) this.snapshots.delete(s.name);
      return {};
    },
    ListSnapshots: (req) => {
      const id = readString(req, 'snapshot_id');
      const source = readString(req, 'source_volume_id');
      const matching = [...this.snapshots.values()].filter((s) => (!id || s.id === id) && (!source || s.sourceVolumeId === source));
      const { entries, next_token } = page(matching, req);
      return { entries: entries.map((s) => ({ snapshot: this.snapshotMessage(s) })), next_token };
    },
  };

  private pluginCapabilities(): Record<string, unknown> {
    const services = this.options.pluginServices ?? ['CONTROLLER_SERVICE', ...(this.options.topology ? ['VOLUME_ACCESSIBILITY_CONSTRAINTS'] : [])];
    const expansion = this.options.volumeExpansion === undefined ? 'ONLINE' : this.options.volumeExpansion;
    return {
      capabilities: [...services.map((type) => ({ service: { type } })), ...(expansion ? [{ volume_expansion: { type: expansion } }] : [])],
    };
  }

  private checkName(name: string): void {
    if (name === '') invalid('name is required');
    const max = this.options.maxNameLength ?? 128;
    if (name.length > max) invalid(`name ${name} is longer than ${max} characters`);
  }

  private createVolume(req: WireMessage): FakeVolume {
    const name = readString(req, 'name');
    this.checkName(name);
    if (readMessages(req, 'volume_capabilities').length === 0) invalid('volume_capabilities are required');
    const range = readMessage(req, 'capacity_range') ?? {};
    const required = readInt64(range, 'required_bytes');
    const limit = readInt64(range, 'limit_bytes');
    if (limit !== 0n && limit < required) invalid(`limit_bytes ${limit} < required_bytes ${required}`);
    const contentSource = readMessage(req, 'volume_content_source');
    const existing = this.volumes.get(name);
    if (existing) {
      if (existing.capacityBytes < required || (limit !== 0n && existing.capacityBytes > limit)) {
        throw new FakeCsiError(status.ALREADY_EXISTS, `volume ${name} exists with ${existing.capacityBytes} bytes`);
      }
      if (JSON.stringify(existing.contentSource ?? null) !== JSON.stringify(contentSource ?? null)) {
        throw new FakeCsiError(status.ALREADY_EXISTS, `volume ${name} exists with another content source`);
      }
      return existing;
    }
    const sourceBytes = contentSource ? this.contentSourceBytes(contentSource) : 0n;
    const size = required !== 0n ? required : sourceBytes > 0n ? sourceBytes : (this.options.defaultVolumeSize ?? GiB);
    if (size < sourceBytes) throw new FakeCsiError(status.OUT_OF_RANGE, `${size} bytes is less than the ${sourceBytes} bytes of the content source`);
    if (this.options.maximumVolumeSize !== undefined && size > this.options.maximumVolumeSize) invalid(`${size} bytes is above the maximum volume size`);
    if (size > this.availableBytes()) throw new FakeCsiError(status.RESOURCE_EXHAUSTED, `${size} bytes requested, ${this.availableBytes()} left`);
    const volume: FakeVolume = {
      id: `vol-${this.nextId++}`,
      name,
      capacityBytes: size,
      parameters: readStringMap(req, 'parameters'),
      mutableParameters: readStringMap(req, 'mutable_parameters'),
      accessibleTopology: this.topologyFor(req),
      ...(contentSource ? { contentSource } : {}),
    };
    this.volumes.set(name, volume);
    return volume;
  }

  /** The size of the snapshot or volume a new volume is filled from; NOT_FOUND when there is none such. */
  private contentSourceBytes(source: WireMessage): bigint {
    const snapshotId = readString(readMessage(source, 'snapshot') ?? {}, 'snapshot_id');
    if (snapshotId !== '') {
      const snapshot = [...this.snapshots.values()].find((s) => s.id === snapshotId);
      if (!snapshot) throw new FakeCsiError(status.NOT_FOUND, `snapshot ${snapshotId} does not exist`);
      return snapshot.sizeBytes;
    }
    const volumeId = readString(readMessage(source, 'volume') ?? {}, 'volume_id');
    const volume = this.volumeById(volumeId);
    if (!volume) throw new FakeCsiError(status.NOT_FOUND, `volume ${volumeId} does not exist`);
    return volume.capacityBytes;
  }

  private topologyFor(req: WireMessage): CsiSegments[] {
    const requirement = readMessage(req, 'accessibility_requirements');
    const wanted = requirement && (readMessages(requirement, 'preferred')[0] ?? readMessages(requirement, 'requisite')[0]);
    if (wanted) return [readSegments(wanted)];
    return this.options.topology ? [{ ...this.options.topology }] : [];
  }

  private existingVolume(req: WireMessage): FakeVolume {
    const id = readString(req, 'volume_id') || invalid('volume_id is required');
    const volume = this.volumeById(id);
    if (!volume) throw new FakeCsiError(status.NOT_FOUND, `volume ${id} does not exist`);
    return volume;
  }

  private volumeMessage(v: FakeVolume): Record<string, unknown> {
    return {
      volume_id: v.id,
      capacity_bytes: v.capacityBytes,
      volume_context: { ...v.parameters },
      accessible_topology: v.accessibleTopology.map((segments) => ({ segments })),
      ...(v.contentSource ? { content_source: v.contentSource } : {}),
    };
  }

  private createSnapshot(req: WireMessage): FakeSnapshot {
    const name = readString(req, 'name');
    this.checkName(name);
    const sourceId = readString(req, 'source_volume_id') || invalid('source_volume_id is required');
    const existing = this.snapshots.get(name);
    if (existing) {
      if (existing.sourceVolumeId !== sourceId) throw new FakeCsiError(status.ALREADY_EXISTS, `snapshot ${name} exists for volume ${existing.sourceVolumeId}`);
      return existing;
    }
    const source = this.volumeById(sourceId);
    if (!source) throw new FakeCsiError(status.NOT_FOUND, `volume ${sourceId} does not exist`);
    const snapshot: FakeSnapshot = { id: `snap-${this.nextId++}`, name, sourceVolumeId: sourceId, sizeBytes: source.capacityBytes, creationSeconds: this.clockSeconds++ };
    this.snapshots.set(name, snapshot);
    return snapshot;
  }

  private snapshotMessage(s: FakeSnapshot): Record<string, unknown> {
    return {
      snapshot_id: s.id,
      source_volume_id: s.sourceVolumeId,
      size_bytes: s.sizeBytes,
      creation_time: { seconds: s.creationSeconds, nanos: 0 },
      ready_to_use: true,
    };
  }
}
