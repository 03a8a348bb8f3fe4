/**
 * Who grows a bound claim's volume, so that exactly one process does. The split is the one the
 * provisioner and the reclaimer already make (PluginRegistry.forVolume): a process expands the
 * volumes a plugin of its own owns. A node agent's plugin owns only the PVs pinned to its own
 * node (HostPathPlugin.handles), and the central controller runs no plugin of the agents'
 * provisioner, so an agent's volume is grown by that agent and by nobody else.
 *
 * What a process says about a volume no plugin of its own owns depends on its scope:
 * - the central controller (`cluster`) says ExternalExpanding, as kube-controller-manager does
 *   for a volume some external resizer grows, except for the node agents' volumes (provisioned
 *   by host-path.pv-controller.io): their agent is the resizer it would be waiting for, and says
 *   so itself (the claim's `volume.kubernetes.io/storage-resizer`, its Resizing event);
 * - a node agent (`node`) neither writes nor says anything about a volume not its own: it is
 *   another agent's or the central controller's.
 */
import { ANN_PROVISIONED_BY } from '@pv-controller/kube/annotations.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { NODE_HOST_PATH_PROVISIONER } from '../../plugins/host-path/index.js';
import type { VolumePlugin } from '../../plugins/api/core.js';
import type { PluginRegistry } from '../../plugins/registry.js';

/** `cluster`: the central controller; `node`: a node agent, which acts on its own node's volumes only. */
export type ExpanderScope = 'cluster' | 'node';

export type Resizer =
  /** A plugin of this process owns the volume: this process grows it. */
  | { kind: 'plugin'; plugin: VolumePlugin }
  /** Nobody here: an external resizer's (kube-controller-manager's ExternalExpanding). */
  | { kind: 'external' }
  /** Another process of ours grows it (a node agent), or it is none of a node agent's business: left alone, silently. */
  | { kind: 'elsewhere' };

/** True for a PV the node agents made: its own node's agent grows it. */
export function servedByNodeAgent(pv: PersistentVolume): boolean {
  return pv.metadata.annotations?.[ANN_PROVISIONED_BY] === NODE_HOST_PATH_PROVISIONER;
}

export function resizerFor(pv: PersistentVolume, plugins: PluginRegistry, scope: ExpanderScope): Resizer {
  const plugin = plugins.forVolume(pv);
  if (plugin) return { kind: 'plugin', plugin };
  return scope === 'node' || servedByNodeAgent(pv) ? { kind: 'elsewhere' } : { kind: 'external' };
}
