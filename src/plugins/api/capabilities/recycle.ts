/** The recycle capability: a Recycle reclaim policy. Without it such a volume fails with "no recycler". */
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import type { VolumePlugin } from '../core.js';
import { defineCapability } from './capability.js';

export interface Recycler {
  /** Scrubs the volume's contents (not the volume itself), strictly inside what the PV names. */
  recycle(pv: PersistentVolume, signal?: AbortSignal): Promise<void>;
}

export const RECYCLE = defineCapability<Recycler>()('recycle', ['recycle']);

export function canRecycle(plugin: VolumePlugin): plugin is VolumePlugin & Recycler {
  return RECYCLE.claimedBy(plugin);
}
