/**
 * Every controller module this program ships, in sync order: the binder first, so the modules
 * after it decide on what it wrote. `--controllers` switches the ones CONTROLLER_NAMES lists.
 */
import { binderModule } from './binder/module.js';
import { BinderHookBoard } from './binder/hooks.js';
import { expanderModule, type ExpanderModuleOptions } from './expander/module.js';
import type { ControllerModule } from './runtime/module.js';
import { provisionerModule, type ProvisionerModuleOptions } from './provisioner/module.js';
import { reclaimerModule, type ReclaimerModuleOptions } from './reclaimer/module.js';
import { protectionModules } from './protection/module.js';
import { orphanMonitorModule } from './orphan-monitor/module.js';
import { capacityPublisherModule, type CapacityPublisherOptions } from './capacity-publisher/module.js';
import { nodeGoneModule } from './node-gone/module.js';
import { csiCapacityModule, type CsiCapacityOptions } from './csi-capacity/module.js';
import { snapshotModule, type SnapshotModuleOptions } from './snapshot/module.js';
import { pvcUnusedModule } from './unused/module.js';

export interface ModuleOptions {
  provisioner?: ProvisionerModuleOptions;
  reclaimer?: ReclaimerModuleOptions;
  orphanMonitor?: { periodMs?: number };
  expander?: ExpanderModuleOptions;
  csiCapacity?: CsiCapacityOptions;
  snapshot?: SnapshotModuleOptions;
}

export function defaultModules(options: ModuleOptions = {}): ControllerModule[] {
  // The binder provisions and reclaims through the hooks these two hand it on the board.
  const board = new BinderHookBoard();
  return [
    binderModule(board),
    provisionerModule(options.provisioner, board),
    reclaimerModule(options.reclaimer, board),
    ...protectionModules(),
    // The Unused condition on Bound claims (KEP-5541; upstream inside pvc-protection).
    pvcUnusedModule(),
    expanderModule(options.expander),
    nodeGoneModule(),
    orphanMonitorModule(options.orphanMonitor),
    // Runs only when a CSI driver with GET_CAPACITY is driven (--csi-address).
    csiCapacityModule(options.csiCapacity),
    // Idle until the server serves snapshot.storage.k8s.io (docs/snapshots.md).
    snapshotModule(options.snapshot),
  ];
}

/**
 * What a node agent runs (`pv-controller node-agent`): no binder and no protection (the central
 * controller's), so the provisioner, the reclaimer and the expander work standalone on its own
 * node's claims and volumes (the expander scoped to them: expander/resizer.ts), and the capacity
 * publisher reports what its roots can still hold, and the snapshot module cuts and deletes its
 * own node's snapshots as a sidecar (the agent's --snapshot-role is always `sidecar`).
 */
export function nodeAgentModules(capacity: CapacityPublisherOptions): ControllerModule[] {
  return [provisionerModule(), reclaimerModule(), expanderModule({ scope: 'node' }), capacityPublisherModule(capacity), snapshotModule({ provenanceName: NODE_AGENT_PROVENANCE_NAME })];
}

/** The `--controllers` a node agent runs: fixed, the modules nodeAgentModules switches. */
/** The agents share one snapshot proof key, `pv-controller-node-csi-provenance` (their Leases are one per node). */
export const NODE_AGENT_PROVENANCE_NAME = 'pv-controller-node';

export const NODE_AGENT_CONTROLLERS = 'provisioner,reclaimer,expander,snapshot';
