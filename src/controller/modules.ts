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

export interface ModuleOptions {
  provisioner?: ProvisionerModuleOptions;
  reclaimer?: ReclaimerModuleOptions;
  orphanMonitor?: { periodMs?: number };
  expander?: ExpanderModuleOptions;
  csiCapacity?: CsiCapacityOptions;
}

export function defaultModules(options: ModuleOptions = {}): ControllerModule[] {
  // The binder provisions and reclaims through the hooks these two hand it on the board.
  const board = new BinderHookBoard();
  return [
    binderModule(board),
    provisionerModule(options.provisioner, board),
    reclaimerModule(options.reclaimer, board),
    ...protectionModules(),
    expanderModule(options.expander),
    nodeGoneModule(),
    orphanMonitorModule(options.orphanMonitor),
    // Runs only when a CSI driver with GET_CAPACITY is driven (--csi-address).
    csiCapacityModule(options.csiCapacity),
  ];
}

/**
 * What a node agent runs (`pv-controller node-agent`): no binder and no protection (the central
 * controller's), so the provisioner, the reclaimer and the expander work standalone on its own
 * node's claims and volumes (the expander scoped to them: expander/resizer.ts), and the capacity
 * publisher reports what its roots can still hold.
 */
export function nodeAgentModules(capacity: CapacityPublisherOptions): ControllerModule[] {
  return [provisionerModule(), reclaimerModule(), expanderModule({ scope: 'node' }), capacityPublisherModule(capacity)];
}

/** The `--controllers` a node agent runs: fixed, the modules nodeAgentModules switches. */
export const NODE_AGENT_CONTROLLERS = 'provisioner,reclaimer,expander';
