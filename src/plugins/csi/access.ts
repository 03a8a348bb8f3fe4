/**
 * Kubernetes access modes and volume modes as CSI volume capabilities (csi-lib-utils'
 * accessmodes, which external-provisioner and external-resizer both call): ReadWriteOncePod is
 * SINGLE_NODE_SINGLE_WRITER and ReadWriteOnce SINGLE_NODE_MULTI_WRITER only when the driver
 * declares SINGLE_NODE_MULTI_WRITER; otherwise both are SINGLE_NODE_WRITER.
 */
import type { PersistentVolumeAccessMode } from '@pv-controller/kube/types.js';
import type { CsiAccessMode, CsiVolumeCapability } from '../../csi/types.js';
import { PluginError } from '../api/errors.js';

/** One CSI access mode for a set of Kubernetes access modes, or why there is none. */
export function csiAccessMode(modes: readonly string[], singleNodeMultiWriter: boolean): CsiAccessMode | { error: string } {
  const m = new Set(modes);
  if (m.has('ReadWriteOncePod')) {
    if (m.size > 1) return { error: 'ReadWriteOncePod cannot be combined with other access modes' };
    return singleNodeMultiWriter ? 'SINGLE_NODE_SINGLE_WRITER' : 'SINGLE_NODE_WRITER';
  }
  if (m.has('ReadWriteMany')) return 'MULTI_NODE_MULTI_WRITER';
  if (m.has('ReadOnlyMany') && m.has('ReadWriteOnce')) return { error: 'CSI has no access mode for ReadOnlyMany and ReadWriteOnce together' };
  if (m.has('ReadOnlyMany')) return 'MULTI_NODE_READER_ONLY';
  if (m.has('ReadWriteOnce')) return singleNodeMultiWriter ? 'SINGLE_NODE_MULTI_WRITER' : 'SINGLE_NODE_WRITER';
  return { error: `unsupported access modes [${[...m].join(', ')}]` };
}

export interface CapabilityShape {
  volumeMode: string | undefined;
  fsType: string;
  mountOptions: readonly string[];
}

function capabilityOf(accessMode: CsiAccessMode, shape: CapabilityShape): CsiVolumeCapability {
  if (shape.volumeMode === 'Block') return { block: {}, accessMode };
  const mount: NonNullable<CsiVolumeCapability['mount']> = { mountFlags: [...shape.mountOptions] };
  if (shape.fsType !== '') mount.fsType = shape.fsType;
  return { mount, accessMode };
}

function modeOrThrow(modes: readonly string[], singleNodeMultiWriter: boolean): CsiAccessMode {
  const mode = csiAccessMode(modes, singleNodeMultiWriter);
  if (typeof mode === 'object') throw new PluginError('InvalidParameter', mode.error, false);
  return mode;
}

/** CreateVolume's capabilities: one per access mode the claim asks for (as external-provisioner). */
export function createCapabilities(
  accessModes: readonly PersistentVolumeAccessMode[],
  shape: CapabilityShape,
  singleNodeMultiWriter: boolean,
): CsiVolumeCapability[] {
  return accessModes.map((mode) => capabilityOf(modeOrThrow([mode], singleNodeMultiWriter), shape));
}

/** The one capability of an existing volume, from all its PV's access modes (as external-resizer). */
export function volumeCapability(accessModes: readonly string[], shape: CapabilityShape, singleNodeMultiWriter: boolean): CsiVolumeCapability {
  return capabilityOf(modeOrThrow(accessModes, singleNodeMultiWriter), shape);
}
