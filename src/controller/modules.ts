/**
 * Every controller module this program ships, in sync order: the binder first, so the modules
 * after it decide on what it wrote. `--controllers` switches the ones CONTROLLER_NAMES lists.
 */
import { binderModule } from './binder/module.js';
import type { ControllerModule } from './runtime/module.js';
import { provisionerModule, type ProvisionerModuleOptions } from './provisioner/module.js';
import { reclaimerModule, type ReclaimerModuleOptions } from './reclaimer/module.js';
import { protectionModules } from './protection/module.js';
import { orphanMonitorModule } from './orphan-monitor.js';
import { nodeGoneModule } from './node-gone/module.js';

export interface ModuleOptions {
  provisioner?: ProvisionerModuleOptions;
  reclaimer?: ReclaimerModuleOptions;
  orphanMonitor?: { periodMs?: number };
}

export function defaultModules(options: ModuleOptions = {}): ControllerModule[] {
  return [
    binderModule(),
    provisionerModule(options.provisioner),
    reclaimerModule(options.reclaimer),
    ...protectionModules(),
    nodeGoneModule(),
    orphanMonitorModule(options.orphanMonitor),
  ];
}
