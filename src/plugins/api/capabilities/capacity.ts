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
  storageCapacity(parameters: Record<string, string>): Promise<StorageCapacity>;
}

export const CAPACITY = defineCapability<CapacityReporter>()('capacity', ['storageCapacity']);

export function canReportCapacity(plugin: VolumePlugin): plugin is VolumePlugin & CapacityReporter {
  return CAPACITY.claimedBy(plugin);
}
