/**
 * Every RPC the client calls: its method in the descriptor and the conversion of its request to
 * the wire and of its response from it (wire.ts has the shared pieces). The descriptor test
 * checks each of these methods against the committed descriptor.
 */
import { csiMethod, type CsiMethod, type CsiService, type WireMessage } from './descriptor.js';
import type {
  ControllerCapabilities,
  CreateSnapshotRequest,
  CreateVolumeRequest,
  CsiSnapshot,
  CsiVolume,
  DeleteSnapshotRequest,
  DeleteVolumeRequest,
  ExpandVolumeRequest,
  ExpandVolumeResponse,
  GetCapacityRequest,
  GetCapacityResponse,
  ListSnapshotsRequest,
  ListSnapshotsResponse,
  ListVolumesRequest,
  ListVolumesResponse,
  ModifyVolumeRequest,
  PluginCapabilities,
  PluginInfo,
} from './types.js';
import {
  capacityRange,
  contentSource,
  readBool,
  readBoolValue,
  readEnum,
  readInt64,
  readInt64Value,
  readMessage,
  readMessages,
  readSnapshot,
  readString,
  readStringMap,
  readStrings,
  readVolume,
  topology,
  topologyRequirement,
  volumeCapability,
} from './wire.js';

export interface Rpc<Req, Res> {
  method: CsiMethod;
  toWire(req: Req): WireMessage;
  fromWire(res: WireMessage): Res;
}

function rpc<Req, Res>(service: CsiService, name: string, toWire: (req: Req) => WireMessage, fromWire: (res: WireMessage) => Res): Rpc<Req, Res> {
  return { method: csiMethod(service, name), toWire, fromWire };
}

const empty = (): WireMessage => ({});
const nothing = (): void => undefined;

/** A repeated-entries page token: unset on the wire when empty. */
function optionalString(key: string, value: string | undefined): WireMessage {
  return value !== undefined && value !== '' ? { [key]: value } : {};
}

function pluginCapabilities(res: WireMessage): PluginCapabilities {
  const out: PluginCapabilities = { services: new Set() };
  for (const cap of readMessages(res, 'capabilities')) {
    const service = readMessage(cap, 'service');
    const serviceType = service && readEnum(service, 'type');
    if (serviceType) out.services.add(serviceType);
    const expansion = readMessage(cap, 'volume_expansion');
    const kind = expansion && readEnum(expansion, 'type');
    if (kind === 'ONLINE' || kind === 'OFFLINE') out.volumeExpansion = kind;
  }
  return out;
}

function controllerCapabilities(res: WireMessage): ControllerCapabilities {
  const out: ControllerCapabilities = new Set();
  for (const cap of readMessages(res, 'capabilities')) {
    const rpcCap = readMessage(cap, 'rpc');
    const type = rpcCap && readEnum(rpcCap, 'type');
    if (type) out.add(type);
  }
  return out;
}

function createVolumeRequest(req: CreateVolumeRequest): WireMessage {
  return {
    name: req.name,
    ...(req.capacityRange ? { capacity_range: capacityRange(req.capacityRange) } : {}),
    volume_capabilities: req.volumeCapabilities.map(volumeCapability),
    parameters: { ...req.parameters },
    secrets: { ...req.secrets },
    ...(req.contentSource ? { volume_content_source: contentSource(req.contentSource) } : {}),
    ...(req.accessibilityRequirements ? { accessibility_requirements: topologyRequirement(req.accessibilityRequirements) } : {}),
    ...(req.mutableParameters ? { mutable_parameters: { ...req.mutableParameters } } : {}),
  };
}

function getCapacityResponse(res: WireMessage): GetCapacityResponse {
  const maximumVolumeSize = readInt64Value(res, 'maximum_volume_size');
  const minimumVolumeSize = readInt64Value(res, 'minimum_volume_size');
  return {
    availableCapacity: readInt64(res, 'available_capacity'),
    ...(maximumVolumeSize !== undefined ? { maximumVolumeSize } : {}),
    ...(minimumVolumeSize !== undefined ? { minimumVolumeSize } : {}),
  };
}

/**
 * ListVolumes' entries. Spec v1.13.0 removed the alpha volume_condition of ListVolumes' status
 * (field 2 is reserved), so an entry's `abnormal` and `message` (types.ts) are never set.
 */
function listVolumesResponse(res: WireMessage): ListVolumesResponse {
  return {
    entries: readMessages(res, 'entries').map((entry) => {
      const status = readMessage(entry, 'status');
      return {
        volume: readVolume(readMessage(entry, 'volume')),
        publishedNodeIds: status ? readStrings(status, 'published_node_ids') : [],
      };
    }),
    nextToken: readString(res, 'next_token'),
  };
}

export const IDENTITY_RPCS = {
  getPluginInfo: rpc<void, PluginInfo>('Identity', 'GetPluginInfo', empty, (res) => ({
    name: readString(res, 'name'),
    vendorVersion: readString(res, 'vendor_version'),
    manifest: readStringMap(res, 'manifest'),
  })),
  getPluginCapabilities: rpc<void, PluginCapabilities>('Identity', 'GetPluginCapabilities', empty, pluginCapabilities),
  probe: rpc<void, boolean | undefined>('Identity', 'Probe', empty, (res) => readBoolValue(res, 'ready')),
};

export const CONTROLLER_RPCS = {
  getCapabilities: rpc<void, ControllerCapabilities>('Controller', 'ControllerGetCapabilities', empty, controllerCapabilities),
  createVolume: rpc<CreateVolumeRequest, CsiVolume>('Controller', 'CreateVolume', createVolumeRequest, (res) =>
    readVolume(readMessage(res, 'volume')),
  ),
  deleteVolume: rpc<DeleteVolumeRequest, void>(
    'Controller',
    'DeleteVolume',
    (req) => ({ volume_id: req.volumeId, secrets: { ...req.secrets } }),
    nothing,
  ),
  expandVolume: rpc<ExpandVolumeRequest, ExpandVolumeResponse>(
    'Controller',
    'ControllerExpandVolume',
    (req) => ({
      volume_id: req.volumeId,
      capacity_range: capacityRange(req.capacityRange),
      secrets: { ...req.secrets },
      ...(req.volumeCapability ? { volume_capability: volumeCapability(req.volumeCapability) } : {}),
    }),
    (res) => ({ capacityBytes: readInt64(res, 'capacity_bytes'), nodeExpansionRequired: readBool(res, 'node_expansion_required') }),
  ),
  modifyVolume: rpc<ModifyVolumeRequest, void>(
    'Controller',
    'ControllerModifyVolume',
    (req) => ({ volume_id: req.volumeId, secrets: { ...req.secrets }, mutable_parameters: { ...req.mutableParameters } }),
    nothing,
  ),
  getCapacity: rpc<GetCapacityRequest, GetCapacityResponse>(
    'Controller',
    'GetCapacity',
    (req) => ({
      volume_capabilities: req.volumeCapabilities.map(volumeCapability),
      parameters: { ...req.parameters },
      ...(req.accessibleTopology ? { accessible_topology: topology(req.accessibleTopology) } : {}),
    }),
    getCapacityResponse,
  ),
  listVolumes: rpc<ListVolumesRequest, ListVolumesResponse>(
    'Controller',
    'ListVolumes',
    (req) => ({ ...(req.maxEntries ? { max_entries: req.maxEntries } : {}), ...optionalString('starting_token', req.startingToken) }),
    listVolumesResponse,
  ),
  createSnapshot: rpc<CreateSnapshotRequest, CsiSnapshot>(
    'Controller',
    'CreateSnapshot',
    (req) => ({ source_volume_id: req.sourceVolumeId, name: req.name, secrets: { ...req.secrets }, parameters: { ...req.parameters } }),
    (res) => readSnapshot(readMessage(res, 'snapshot')),
  ),
  deleteSnapshot: rpc<DeleteSnapshotRequest, void>(
    'Controller',
    'DeleteSnapshot',
    (req) => ({ snapshot_id: req.snapshotId, secrets: { ...req.secrets } }),
    nothing,
  ),
  listSnapshots: rpc<ListSnapshotsRequest, ListSnapshotsResponse>(
    'Controller',
    'ListSnapshots',
    (req) => ({
      ...(req.maxEntries ? { max_entries: req.maxEntries } : {}),
      ...optionalString('starting_token', req.startingToken),
      ...optionalString('source_volume_id', req.sourceVolumeId),
      ...optionalString('snapshot_id', req.snapshotId),
      ...(req.secrets ? { secrets: { ...req.secrets } } : {}),
    }),
    (res) => ({
      entries: readMessages(res, 'entries').map((entry) => readSnapshot(readMessage(entry, 'snapshot'))),
      nextToken: readString(res, 'next_token'),
    }),
  ),
};

/** Every RPC the client calls. */
export const ALL_RPCS: ReadonlyArray<Rpc<never, unknown>> = [...Object.values(IDENTITY_RPCS), ...Object.values(CONTROLLER_RPCS)];
