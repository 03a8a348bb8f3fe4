/**
 * Every controller module this program ships, in one list: the binder is built into
 * controller.ts; the modules here plug into it and are switched on and off by `--controllers`.
 */
import type { ControllerModule } from './controller.js';
import { provisionerModule, type ProvisionerModuleOptions } from './provisioner/module.js';
import { reclaimerModule, type ReclaimerModuleOptions } from './reclaimer/module.js';
import { protectionModules } from './protection/module.js';
import { orphanMonitorModule } from './orphan-monitor.js';

export interface ModuleOptions {
  provisioner?: ProvisionerModuleOptions;
  reclaimer?: ReclaimerModuleOptions;
  orphanMonitor?: { periodMs?: number };
}

export function defaultModules(options: ModuleOptions = {}): ControllerModule[] {
  return [
    provisionerModule(options.provisioner),
    reclaimerModule(options.reclaimer),
    ...protectionModules(),
    orphanMonitorModule(options.orphanMonitor),
  ];
}
