/**
 * The node-scoped capability: a plugin whose volumes live on the machine it runs on (host-path;
 * a node agent's sized host-path serves its own node only). Without it a plugin serves every
 * claim of its provisioner and keeps no state a restart of the machine could undo.
 */
import type { VolumePlugin } from '../core.js';
import { defineCapability } from './capability.js';

export interface NodeScoped {
  /** Whether this process may act on a claim whose selected node is `selectedNode` (a node agent: only its own). */
  servesNode(selectedNode: string | undefined): boolean;
  /**
   * Puts back what a restart of the machine or the process undid, before the first operation
   * (sized volumes: mounts a reboot dropped, loop devices a kill left attached).
   */
  recover(): Promise<void>;
}

export const NODE_SCOPED = defineCapability<NodeScoped>()('node-scoped', ['servesNode', 'recover']);

export function isNodeScoped(plugin: VolumePlugin): plugin is VolumePlugin & NodeScoped {
  return NODE_SCOPED.claimedBy(plugin);
}
