/** The list-backing-volumes capability: what `orphans` and the orphan monitor scan. Without it a plugin's backend is not scanned. */
import type { VolumePlugin } from '../core.js';
import { defineCapability } from './capability.js';

/** A backing volume found on the backend that carries this cluster's mark. */
export interface BackingVolume {
  backingName: string;
  /** The backend's own id (path, volume id, disk name). */
  id: string;
  pvName?: string;
  claimNamespace?: string;
  claimName?: string;
}

export interface BackingVolumeLister {
  /** Backing volumes on the backend marked as this cluster's, and no other cluster's. */
  listBackingVolumes(clusterName: string): Promise<BackingVolume[]>;
}

export const LIST_BACKING_VOLUMES = defineCapability<BackingVolumeLister>()('list-backing-volumes', ['listBackingVolumes']);

export function canListBackingVolumes(plugin: VolumePlugin): plugin is VolumePlugin & BackingVolumeLister {
  return LIST_BACKING_VOLUMES.claimedBy(plugin);
}
