/**
 * An in-memory CSI driver behind the CsiConnection seam (src/csi/types.ts), for the CSI plugin's
 * tests and its conformance subject: volumes by name with ids of its own choosing, idempotent
 * CreateVolume per name (as the spec requires), every call recorded, and hooks to fail a call or
 * hold CreateVolume in flight until a test lets it go.
 */
import {
  type ControllerCapabilities,
  type CreateSnapshotRequest,
  type CreateVolumeRequest,
  CsiCallError,
  type CsiCallOptions,
  type CsiConnection,
  type CsiControllerClient,
  type CsiIdentityClient,
  type CsiSnapshot,
  type CsiVolume,
  type PluginCapabilities,
} from '../../../src/csi/types.js';

export interface FakeDriverOptions {
  name?: string;
  services?: string[];
  controllerCapabilities?: string[];
  /** Bytes CreateVolume reports (0: "unknown"); default: what was asked. */
  reportCapacity?: (requested: bigint) => bigint;
  volumeContext?: Record<string, string>;
  /** Every volume is accessible from these segments. */
  accessibleTopology?: Array<Record<string, string>>;
  /** DeleteVolume of an unknown id answers NOT_FOUND (the spec says OK; some drivers do not). */
  notFoundOnMissingDelete?: boolean;
  availableCapacity?: bigint;
  maximumVolumeSize?: bigint;
  /** ListVolumes and ListSnapshots answer at most this many per page (a driver may return fewer than asked). */
  pageLimit?: number;
  /** CreateSnapshot answers ready_to_use false to the first this many calls for a name (default 0: ready at once). */
  snapshotCutCalls?: number;
  /** DeleteSnapshot of an unknown id answers NOT_FOUND (the spec says OK). */
  notFoundOnMissingSnapshotDelete?: boolean;
  /** CreateVolume ignores volume_content_source and answers without one (a driver that cannot restore). */
  dropContentSource?: boolean;
}

export interface RecordedCall {
  method: string;
  request: unknown;
}

interface FakeVolume {
  name: string;
  volume: CsiVolume;
  request: CreateVolumeRequest;
  mutableParameters: Record<string, string>;
}

export const ALL_CONTROLLER_CAPABILITIES = ['CREATE_DELETE_VOLUME', 'EXPAND_VOLUME', 'MODIFY_VOLUME', 'GET_CAPACITY', 'LIST_VOLUMES', 'SINGLE_NODE_MULTI_WRITER'];

export function csiError(method: string, codeName: string, kind: 'final' | 'in-progress', details = 'injected'): CsiCallError {
  const codes: Record<string, number> = { NOT_FOUND: 5, ALREADY_EXISTS: 6, INVALID_ARGUMENT: 3, OUT_OF_RANGE: 11, DEADLINE_EXCEEDED: 4, ABORTED: 10, UNAVAILABLE: 14, RESOURCE_EXHAUSTED: 8 };
  return new CsiCallError(method, codes[codeName] ?? 2, codeName, kind, details);
}

export class FakeCsiDriver implements CsiConnection {
  readonly address = 'unix:///fake/csi.sock';
  readonly calls: RecordedCall[] = [];
  readonly volumes = new Map<string, FakeVolume>();
  /** Snapshots by name, and how many CreateSnapshot calls each name has had. */
  readonly snapshots = new Map<string, { snapshot: CsiSnapshot; calls: number }>();
  private nextId = 1;
  private readonly failures = new Map<string, CsiCallError[]>();
  private createGate: { entered: () => void; release: Promise<void> } | undefined;

  constructor(readonly opts: FakeDriverOptions = {}) {}

  /** The next calls of `method` fail with these errors, in order. */
  failNext(method: string, ...errors: CsiCallError[]): void {
    this.failures.set(method, [...(this.failures.get(method) ?? []), ...errors]);
  }

  /** Holds the next CreateVolume after it has made its volume; resolves `entered` when it is held, `release()` lets it answer. */
  holdCreate(): { entered: Promise<void>; release: () => void } {
    let entered!: () => void;
    let release!: () => void;
    const enteredP = new Promise<void>((r) => (entered = r));
    const releaseP = new Promise<void>((r) => (release = r));
    this.createGate = { entered, release: releaseP };
    return { entered: enteredP, release };
  }

  byId(volumeId: string): FakeVolume | undefined {
    return [...this.volumes.values()].find((v) => v.volume.volumeId === volumeId);
  }

  callsOf(method: string): unknown[] {
    return this.calls.filter((c) => c.method === method).map((c) => c.request);
  }

  private record(method: string, request: unknown, o?: CsiCallOptions): void {
    o?.signal?.throwIfAborted();
    this.calls.push({ method, request: structuredClone(request) });
    const next = this.failures.get(method)?.shift();
    if (next) throw next;
  }

  readonly identity: CsiIdentityClient = {
    getPluginInfo: async () => ({ name: this.opts.name ?? 'fake.csi.pv-controller.io', vendorVersion: '0.0.1', manifest: {} }),
    getPluginCapabilities: async (): Promise<PluginCapabilities> => ({ services: new Set(this.opts.services ?? ['CONTROLLER_SERVICE']) }),
    probe: async () => true,
  };

  private async createVolume(req: CreateVolumeRequest, o?: CsiCallOptions): Promise<CsiVolume> {
    this.record('CreateVolume', req, o);
    let v = this.volumes.get(req.name);
    const requested = req.capacityRange?.requiredBytes ?? 0n;
    if (v && v.request.capacityRange?.requiredBytes !== requested) throw csiError('CreateVolume', 'ALREADY_EXISTS', 'final', `${req.name} exists with another size`);
    if (!v) {
      this.checkContentSource(req);
      const volume: CsiVolume = {
        volumeId: `fake-vol-${this.nextId++}`,
        capacityBytes: this.opts.reportCapacity ? this.opts.reportCapacity(requested) : requested,
        volumeContext: { ...(this.opts.volumeContext ?? {}) },
        accessibleTopology: structuredClone(this.opts.accessibleTopology ?? []),
        ...(req.contentSource && !this.opts.dropContentSource ? { contentSource: structuredClone(req.contentSource) } : {}),
      };
      v = { name: req.name, volume, request: structuredClone(req), mutableParameters: { ...(req.mutableParameters ?? {}) } };
      this.volumes.set(req.name, v);
    }
    const gate = this.createGate;
    if (gate) {
      this.createGate = undefined;
      gate.entered();
      await gate.release;
    }
    return structuredClone(v.volume);
  }

  /** A restore needs a snapshot it knows, a clone a volume it knows: NOT_FOUND otherwise, as the spec says. */
  private checkContentSource(req: CreateVolumeRequest): void {
    const snapshotId = req.contentSource?.snapshot?.snapshotId;
    if (snapshotId !== undefined && ![...this.snapshots.values()].some((s) => s.snapshot.snapshotId === snapshotId)) {
      throw csiError('CreateVolume', 'NOT_FOUND', 'final', `snapshot ${snapshotId} does not exist`);
    }
    const volumeId = req.contentSource?.volume?.volumeId;
    if (volumeId !== undefined && !this.byId(volumeId)) throw csiError('CreateVolume', 'NOT_FOUND', 'final', `volume ${volumeId} does not exist`);
  }

  private createSnapshot(req: CreateSnapshotRequest, o?: CsiCallOptions): CsiSnapshot {
    this.record('CreateSnapshot', req, o);
    const existing = this.snapshots.get(req.name);
    if (existing && existing.snapshot.sourceVolumeId !== req.sourceVolumeId) throw csiError('CreateSnapshot', 'ALREADY_EXISTS', 'final', `${req.name} is a snapshot of another volume`);
    const source = this.byId(req.sourceVolumeId);
    if (!existing && !source) throw csiError('CreateSnapshot', 'NOT_FOUND', 'final', `volume ${req.sourceVolumeId} does not exist`);
    const entry = existing ?? {
      calls: 0,
      snapshot: { snapshotId: `fake-snap-${this.nextId++}`, sourceVolumeId: req.sourceVolumeId, sizeBytes: source?.volume.capacityBytes ?? 0n, creationTime: '2026-12-01T10:00:00.5Z', readyToUse: false },
    };
    this.snapshots.set(req.name, entry);
    entry.calls++;
    entry.snapshot.readyToUse = entry.calls > (this.opts.snapshotCutCalls ?? 0);
    return structuredClone(entry.snapshot);
  }

  private page<T>(all: T[], req: { maxEntries?: number; startingToken?: string }): { page: T[]; nextToken: string } {
    const start = req.startingToken ? Number(req.startingToken) : 0;
    const size = Math.min(req.maxEntries || all.length, this.opts.pageLimit ?? Infinity);
    const page = all.slice(start, start + size);
    const next = start + page.length;
    return { page, nextToken: next < all.length ? String(next) : '' };
  }

  readonly controller: CsiControllerClient = {
    getCapabilities: async (): Promise<ControllerCapabilities> => new Set(this.opts.controllerCapabilities ?? ['CREATE_DELETE_VOLUME']),
    createVolume: (req, o) => this.createVolume(req, o),
    deleteVolume: async (req, o) => {
      this.record('DeleteVolume', req, o);
      const v = this.byId(req.volumeId);
      if (!v && this.opts.notFoundOnMissingDelete) throw csiError('DeleteVolume', 'NOT_FOUND', 'final');
      if (v) this.volumes.delete(v.name);
    },
    expandVolume: async (req, o) => {
      this.record('ControllerExpandVolume', req, o);
      const v = this.byId(req.volumeId);
      if (!v) throw csiError('ControllerExpandVolume', 'NOT_FOUND', 'final');
      const want = req.capacityRange.requiredBytes ?? 0n;
      if (want > v.volume.capacityBytes) v.volume.capacityBytes = want;
      return { capacityBytes: v.volume.capacityBytes, nodeExpansionRequired: req.volumeCapability?.block === undefined };
    },
    modifyVolume: async (req, o) => {
      this.record('ControllerModifyVolume', req, o);
      const v = this.byId(req.volumeId);
      if (!v) throw csiError('ControllerModifyVolume', 'NOT_FOUND', 'final');
      Object.assign(v.mutableParameters, req.mutableParameters);
    },
    getCapacity: async (req, o) => {
      this.record('GetCapacity', req, o);
      const out: { availableCapacity: bigint; maximumVolumeSize?: bigint } = { availableCapacity: this.opts.availableCapacity ?? 100n * 2n ** 30n };
      if (this.opts.maximumVolumeSize !== undefined) out.maximumVolumeSize = this.opts.maximumVolumeSize;
      return out;
    },
    listVolumes: async (req, o) => {
      this.record('ListVolumes', req, o);
      const { page, nextToken } = this.page([...this.volumes.values()].sort((a, b) => a.volume.volumeId.localeCompare(b.volume.volumeId)), req);
      return { entries: page.map((v) => ({ volume: structuredClone(v.volume), publishedNodeIds: [] })), nextToken };
    },
    createSnapshot: async (req, o) => this.createSnapshot(req, o),
    deleteSnapshot: async (req, o) => {
      this.record('DeleteSnapshot', req, o);
      const name = [...this.snapshots.entries()].find(([, s]) => s.snapshot.snapshotId === req.snapshotId)?.[0];
      if (name === undefined && this.opts.notFoundOnMissingSnapshotDelete) throw csiError('DeleteSnapshot', 'NOT_FOUND', 'final');
      if (name !== undefined) this.snapshots.delete(name);
    },
    listSnapshots: async (req, o) => {
      this.record('ListSnapshots', req, o);
      const { page, nextToken } = this.page([...this.snapshots.values()].map((s) => s.snapshot), req);
      return { entries: structuredClone(page), nextToken };
    },
  };

  close(): void {}
}
