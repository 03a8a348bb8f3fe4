/** The expand capability: grow a volume after birth (KEP-1790). Without it claims cannot grow (ControllerResizeInfeasible). */
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import type { VolumePlugin } from '../core.js';
import { defineCapability } from './capability.js';

/** Grow the backing volume of a PV to at least `sizeBytes`. */
export interface ExpandRequest {
  pv: PersistentVolume;
  sizeBytes: bigint;
  signal?: AbortSignal;
}

export interface ExpandedVolume {
  /** What the backend now holds, as a Quantity string (may be larger than asked). */
  capacity: string;
  /**
   * The filesystem on the volume must still be grown on the node that mounts it (a block
   * device formatted by the kubelet); false when the backend's answer is already usable.
   */
  nodeExpansionRequired: boolean;
}

export interface Expander {
  /**
   * Grows the backing volume, idempotently (a volume already that large is success). A
   * PluginError that is not retryable is final for that size (Infeasible); any other is retried.
   */
  expand(req: ExpandRequest): Promise<ExpandedVolume>;
  /**
   * Why volumes provisioned with these StorageClass parameters can never grow (host-path's plain
   * directories), for a warning on a class that says allowVolumeExpansion; undefined when they can.
   */
  neverGrows?(parameters: Record<string, string>): string | undefined;
}

export const EXPAND = defineCapability<Expander>()('expand', ['expand']);

export function canExpand(plugin: VolumePlugin): plugin is VolumePlugin & Expander {
  return EXPAND.claimedBy(plugin);
}
