/**
 * Every capability a plugin may have beyond the core, in one list: what the conformance suite
 * selects a plugin's sub-suites by (test/plugins/conformance/), and checks that no capability is
 * implemented only in part.
 */
import type { VolumePlugin } from './core.js';
import { LIST_BACKING_VOLUMES } from './capabilities/backing-volumes.js';
import { CAPACITY } from './capabilities/capacity.js';
import { EXPAND } from './capabilities/expand.js';
import { MODIFY } from './capabilities/modify.js';
import { NODE_SCOPED } from './capabilities/node-scoped.js';
import { PROVENANCE } from './capabilities/provenance.js';
import { ARCHIVES } from './capabilities/archives.js';
import { RECYCLE } from './capabilities/recycle.js';
import { SNAPSHOT } from './capabilities/snapshot.js';
import { STRAY_FILES } from './capabilities/stray-files.js';

export const CAPABILITIES = [EXPAND, MODIFY, RECYCLE, LIST_BACKING_VOLUMES, STRAY_FILES, CAPACITY, NODE_SCOPED, SNAPSHOT, PROVENANCE, ARCHIVES] as const;

export type CapabilityName = (typeof CAPABILITIES)[number]['name'];

/** The capabilities a plugin has, in CAPABILITIES order. */
export function capabilitiesOf(plugin: VolumePlugin): CapabilityName[] {
  return CAPABILITIES.filter((c) => c.claimedBy(plugin)).map((c) => c.name);
}

/** The capabilities a plugin implements only some members of (a programming error). */
export function partialCapabilitiesOf(plugin: VolumePlugin): CapabilityName[] {
  return CAPABILITIES.filter((c) => c.partlyIn(plugin)).map((c) => c.name);
}
