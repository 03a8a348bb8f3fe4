/**
 * The modify capability: VolumeAttributesClass parameters (KEP-3751), checked before a claim
 * naming the class is provisioned (they are passed to provision as `attributes`) and applied to
 * a live volume when a bound claim changes class. Without it a plugin takes no such class.
 */
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import type { VolumePlugin } from '../core.js';
import type { ParameterProblem } from '../errors.js';
import { defineCapability } from './capability.js';

/** Apply a VolumeAttributesClass's parameters to an existing volume. */
export interface ModifyRequest {
  pv: PersistentVolume;
  /** The new class's parameters, already accepted by validateAttributes. */
  attributes: Record<string, string>;
  signal?: AbortSignal;
}

export interface Modifier {
  /** Problems with VolumeAttributesClass parameters; [] when they are acceptable. */
  validateAttributes(attributes: Record<string, string>): ParameterProblem[];
  /** Applies a VolumeAttributesClass to a volume, idempotently. */
  modify(req: ModifyRequest): Promise<void>;
}

export const MODIFY = defineCapability<Modifier>()('modify', ['validateAttributes', 'modify']);

export function canModify(plugin: VolumePlugin): plugin is VolumePlugin & Modifier {
  return MODIFY.claimedBy(plugin);
}
