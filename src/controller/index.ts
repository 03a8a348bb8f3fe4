/**
 * The controller's public entry: everything the command line (src/cli) uses of it, and nothing
 * else. The CLI imports the controller only through this file and options.ts (lint: local/arrows),
 * so the folders behind it (runtime/, one per module) can be rearranged without touching a
 * command. A command that needs only the configuration (flags, --help, `apiserver`, `usage`)
 * imports options.ts: this file loads the whole controller, its plugins and client-node.
 */
export { startController, NO_PLUGINS_WARNING, type ControllerDeps, type ControllerStats, type RunningController } from './controller.js';
export { defaultModules, nodeAgentModules, NODE_AGENT_CONTROLLERS, type ModuleOptions } from './modules.js';
export {
  CONTROLLER_NAMES,
  DEFAULTS,
  logLevelOf,
  OptionsError,
  parseControllerOptions,
  VERBOSITY_HELP,
  type ControllerOptions,
  type RawControllerFlags,
} from './options.js';
export { formatDuration, parseDuration } from './duration.js';
export { createControllerLogger } from './runtime/log.js';
export {
  deleteOrphans,
  findOrphans,
  findStrayFiles,
  removeStrayFiles,
  type ClusterObjects,
  type FoundStrayFile,
  type Orphan,
  type OrphanDeletion,
} from './orphan-monitor/orphans.js';
export { planSweep, type SweepItem, type SweepPlan } from './cloud-sweep/plan.js';
export { executeSweep, type SweepResult } from './cloud-sweep/execute.js';
export { topologyFromKubeConfig } from './topology/node-zones.js';
export { startCsiPlugins, type RunningCsiPlugins } from './csi/start.js';
