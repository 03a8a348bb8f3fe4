/**
 * The capacity capability: what a plugin can still provision for a class, which a node agent
 * publishes as CSIStorageCapacity. Without it the plugin does not know (cloud quotas are not read).
 */
import type { VolumePlugin } from '../core.js';
import { defineCapability } from './capability.js';

export interface StorageCapacity {
  /** All the class may still get. */
  capacityBytes: bigint;
  /** The largest single volume (never more than capacityBytes). */
  maximumVolumeBytes: bigint;
}

export interface CapacityReporter {
  /**
   * `segment`: the topology segment to ask about (a CSI driver's GetCapacity per segment); a
   * plugin whose capacity does not depend on topology ignores it.
   */
  storageCapacity(parameters: Record<string, string>, segment?: Record<string, string>): Promise<StorageCapacity>;
}

export const CAPACITY = defineCapability<CapacityReporter>()('capacity', ['storageCapacity']);

export function canReportCapacity(plugin: VolumePlugin): plugin is VolumePlugin & CapacityReporter {
  return CAPACITY.claimedBy(plugin);
}
