/**
 * The CSI messages pv-controller sends and reads, as plain TypeScript values: the subset of the
 * CSI spec's Identity and Controller services a controller-side component uses (what
 * external-provisioner, external-resizer and the csi-snapshotter call). The wire encoding comes
 * from the descriptor generated from the CSI spec's Go module (descriptor.ts); client.ts converts
 * between these values and the wire messages. Field names are the spec's, in camelCase; byte
 * counts are bigint (int64 on the wire); absent optional fields are undefined.
 */

/** A topology segment: `{ "topology.kubernetes.io/zone": "a" }`. */
export type CsiSegments = Record<string, string>;

export interface CsiTopologyRequirement {
  requisite: CsiSegments[];
  preferred: CsiSegments[];
}

export interface CsiCapacityRange {
  requiredBytes?: bigint;
  limitBytes?: bigint;
}

export type CsiAccessMode =
  | 'SINGLE_NODE_WRITER'
  | 'SINGLE_NODE_READER_ONLY'
  | 'MULTI_NODE_READER_ONLY'
  | 'MULTI_NODE_SINGLE_WRITER'
  | 'MULTI_NODE_MULTI_WRITER'
  | 'SINGLE_NODE_SINGLE_WRITER'
  | 'SINGLE_NODE_MULTI_WRITER';

/** Exactly one of block or mount. */
export interface CsiVolumeCapability {
  block?: Record<string, never>;
  mount?: { fsType?: string; mountFlags?: string[]; volumeMountGroup?: string };
  accessMode: CsiAccessMode;
}

/** Exactly one of snapshot or volume (restore or clone). */
export interface CsiContentSource {
  snapshot?: { snapshotId: string };
  volume?: { volumeId: string };
}

export interface CreateVolumeRequest {
  name: string;
  capacityRange?: CsiCapacityRange;
  volumeCapabilities: CsiVolumeCapability[];
  parameters: Record<string, string>;
  secrets: Record<string, string>;
  contentSource?: CsiContentSource;
  accessibilityRequirements?: CsiTopologyRequirement;
  /** VolumeAttributesClass parameters (CSI 1.9+ mutable_parameters). */
  mutableParameters?: Record<string, string>;
}

export interface CsiVolume {
  /** 0 when the driver does not say. */
  capacityBytes: bigint;
  volumeId: string;
  volumeContext: Record<string, string>;
  contentSource?: CsiContentSource;
  accessibleTopology: CsiSegments[];
}

export interface DeleteVolumeRequest {
  volumeId: string;
  secrets: Record<string, string>;
}

export interface ExpandVolumeRequest {
  volumeId: string;
  capacityRange: CsiCapacityRange;
  secrets: Record<string, string>;
  volumeCapability?: CsiVolumeCapability;
}

export interface ExpandVolumeResponse {
  capacityBytes: bigint;
  nodeExpansionRequired: boolean;
}

export interface ModifyVolumeRequest {
  volumeId: string;
  secrets: Record<string, string>;
  mutableParameters: Record<string, string>;
}

export interface GetCapacityRequest {
  volumeCapabilities: CsiVolumeCapability[];
  parameters: Record<string, string>;
  accessibleTopology?: CsiSegments;
}

export interface GetCapacityResponse {
  availableCapacity: bigint;
  /** Absent when the driver does not report it. */
  maximumVolumeSize?: bigint;
  minimumVolumeSize?: bigint;
}

export interface ListVolumesRequest {
  maxEntries?: number;
  startingToken?: string;
}

export interface ListVolumesResponse {
  entries: Array<{ volume: CsiVolume; publishedNodeIds: string[]; abnormal?: boolean; message?: string }>;
  nextToken: string;
}

export interface CsiSnapshot {
  sizeBytes: bigint;
  snapshotId: string;
  sourceVolumeId: string;
  /** RFC 3339 with nanoseconds when the driver gives a creation time. */
  creationTime?: string;
  readyToUse: boolean;
  groupSnapshotId?: string;
}

export interface CreateSnapshotRequest {
  sourceVolumeId: string;
  name: string;
  secrets: Record<string, string>;
  parameters: Record<string, string>;
}

export interface DeleteSnapshotRequest {
  snapshotId: string;
  secrets: Record<string, string>;
}

export interface ListSnapshotsRequest {
  maxEntries?: number;
  startingToken?: string;
  sourceVolumeId?: string;
  snapshotId?: string;
  secrets?: Record<string, string>;
}

export interface ListSnapshotsResponse {
  entries: CsiSnapshot[];
  nextToken: string;
}

export interface PluginInfo {
  name: string;
  vendorVersion: string;
  manifest: Record<string, string>;
}

/** GetPluginCapabilities, flattened: service types and the volume expansion kind. */
export interface PluginCapabilities {
  /** 'CONTROLLER_SERVICE', 'VOLUME_ACCESSIBILITY_CONSTRAINTS', 'GROUP_CONTROLLER_SERVICE', ... */
  services: Set<string>;
  /** 'ONLINE' | 'OFFLINE' when the driver declares a VolumeExpansion capability. */
  volumeExpansion?: 'ONLINE' | 'OFFLINE';
}

/**
 * ControllerGetCapabilities, flattened to the RPC type names: 'CREATE_DELETE_VOLUME',
 * 'EXPAND_VOLUME', 'MODIFY_VOLUME', 'GET_CAPACITY', 'LIST_VOLUMES', 'CREATE_DELETE_SNAPSHOT',
 * 'LIST_SNAPSHOTS', 'CLONE_VOLUME', 'SINGLE_NODE_MULTI_WRITER', 'PUBLISH_UNPUBLISH_VOLUME', ...
 */
export type ControllerCapabilities = Set<string>;

/** Every call takes a deadline and may be aborted. */
export interface CsiCallOptions {
  /** Per-call deadline (default: the connection's timeout). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface CsiIdentityClient {
  getPluginInfo(o?: CsiCallOptions): Promise<PluginInfo>;
  getPluginCapabilities(o?: CsiCallOptions): Promise<PluginCapabilities>;
  /** Probe's `ready` (undefined when the driver leaves it unset, which the spec reads as ready). */
  probe(o?: CsiCallOptions): Promise<boolean | undefined>;
}

export interface CsiControllerClient {
  getCapabilities(o?: CsiCallOptions): Promise<ControllerCapabilities>;
  createVolume(req: CreateVolumeRequest, o?: CsiCallOptions): Promise<CsiVolume>;
  deleteVolume(req: DeleteVolumeRequest, o?: CsiCallOptions): Promise<void>;
  expandVolume(req: ExpandVolumeRequest, o?: CsiCallOptions): Promise<ExpandVolumeResponse>;
  modifyVolume(req: ModifyVolumeRequest, o?: CsiCallOptions): Promise<void>;
  getCapacity(req: GetCapacityRequest, o?: CsiCallOptions): Promise<GetCapacityResponse>;
  listVolumes(req: ListVolumesRequest, o?: CsiCallOptions): Promise<ListVolumesResponse>;
  createSnapshot(req: CreateSnapshotRequest, o?: CsiCallOptions): Promise<CsiSnapshot>;
  deleteSnapshot(req: DeleteSnapshotRequest, o?: CsiCallOptions): Promise<void>;
  listSnapshots(req: ListSnapshotsRequest, o?: CsiCallOptions): Promise<ListSnapshotsResponse>;
}

/** One driver's connection: its socket, both services, and close. */
export interface CsiConnection {
  readonly address: string;
  readonly identity: CsiIdentityClient;
  readonly controller: CsiControllerClient;
  close(): void;
}

/**
 * How a failed call is to be treated (external-provisioner's distinction):
 * - 'final': the driver answered and did not (and will not) do it — e.g. InvalidArgument,
 *   NotFound on create, ResourceExhausted for capacity is NOT final (see client.ts);
 * - 'in-progress': the outcome is unknown — the call may still be running or may have taken
 *   effect (DeadlineExceeded, Canceled, Unavailable, Aborted, ResourceExhausted): the caller
 *   must retry the same call (same name) until it gets an answer before it may give up;
 * - the error also carries the gRPC code and the driver's message.
 */
export type CsiFailureKind = 'final' | 'in-progress';

export class CsiCallError extends Error {
  constructor(
    readonly method: string,
    /** The gRPC status code number (grpc.status). */
    readonly code: number,
    /** The gRPC status name, e.g. 'INVALID_ARGUMENT'. */
    readonly codeName: string,
    readonly kind: CsiFailureKind,
    readonly details: string,
  ) {
    super(`${method}: ${codeName}: ${details}`);
    this.name = 'CsiCallError';
  }
}
