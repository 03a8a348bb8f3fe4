/**
 * The unary methods of CSI's Identity, Controller and Node services (CSI spec v1.x), as the gRPC
 * paths a client calls: the one list the delay proxy registers and the harness names methods by.
 * A method is named by its short name (`CreateVolume`); the names are unique across the services.
 */

const IDENTITY = ['GetPluginInfo', 'GetPluginCapabilities', 'Probe'] as const;

const CONTROLLER = [
  'CreateVolume',
  'DeleteVolume',
  'ControllerPublishVolume',
  'ControllerUnpublishVolume',
  'ValidateVolumeCapabilities',
  'ListVolumes',
  'GetCapacity',
  'ControllerGetCapabilities',
  'CreateSnapshot',
  'DeleteSnapshot',
  'ListSnapshots',
  'ControllerExpandVolume',
  'ControllerGetVolume',
  'ControllerModifyVolume',
] as const;

const NODE = [
  'NodeStageVolume',
  'NodeUnstageVolume',
  'NodePublishVolume',
  'NodeUnpublishVolume',
  'NodeGetVolumeStats',
  'NodeExpandVolume',
  'NodeGetCapabilities',
  'NodeGetInfo',
] as const;

export type CsiMethodName = (typeof IDENTITY)[number] | (typeof CONTROLLER)[number] | (typeof NODE)[number];

/** Short name → gRPC path, e.g. `CreateVolume` → `/csi.v1.Controller/CreateVolume`. */
export const CSI_METHOD_PATHS: ReadonlyMap<CsiMethodName, string> = new Map<CsiMethodName, string>([
  ...IDENTITY.map((m) => [m, `/csi.v1.Identity/${m}`] as const),
  ...CONTROLLER.map((m) => [m, `/csi.v1.Controller/${m}`] as const),
  ...NODE.map((m) => [m, `/csi.v1.Node/${m}`] as const),
]);

export function isCsiMethodName(name: string): name is CsiMethodName {
  return CSI_METHOD_PATHS.has(name as CsiMethodName);
}

/** The short name of a gRPC path (`/csi.v1.Controller/CreateVolume` → `CreateVolume`). */
export function methodOfPath(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Checks a short name, with the known names in the error. */
export function csiMethod(name: string): CsiMethodName {
  if (!isCsiMethodName(name)) throw new Error(`unknown CSI method "${name}"; known: ${[...CSI_METHOD_PATHS.keys()].join(', ')}`);
  return name;
}
