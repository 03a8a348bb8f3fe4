/**
 * `pv-controller controller`: runs the persistent-volume controller against a cluster (a
 * kubeconfig file, or in-cluster). Flag parsing and wiring only; controller/options.ts and
 * plugin-flags.ts do the checking.
 */
import { Command } from 'commander';
import {
  type ControllerOptions,
  createControllerLogger,
  defaultModules,
  parseControllerOptions,
  type RawControllerFlags,
  startController,
} from '../controller/index.js';
import { loadKubeConfig } from '../kube-client/kubeconfig.js';
import { ControllerMetrics } from '../metrics/prometheus.js';
import type { PluginSettings } from '../plugins/from-options.js';
import { addOptions, controllerFlags, flags, usageError } from './flags.js';
import { csiFlags, pluginFlags, pluginSettingsFromFlags, startPlugins, type PluginFlags } from './plugin-flags.js';

export function register(program: Command): void {
  const command = program
    .command('controller')
    .description('Run the PV controller (bind, provision, reclaim) against a Kubernetes API server');
  addOptions(command, [flags.kubeconfig(), ...controllerFlags(), ...pluginFlags(), ...csiFlags()]).action(async (_flags: unknown, cmd: Command) => {
    const { opts, plugins } = parseFlags(cmd);
    await runController(opts, plugins);
  });
}

/** The controller's options and the plugin settings, or a usage error (exit 2) naming the bad flag. */
export function parseFlags(cmd: Command, overrides: Partial<RawControllerFlags> = {}): { opts: ControllerOptions; plugins: PluginSettings } {
  try {
    const opts = parseControllerOptions({ ...cmd.opts<RawControllerFlags>(), ...overrides });
    const plugins = pluginSettingsFromFlags(cmd.opts<PluginFlags>());
    // CSI volumes are named and tagged with the cluster's name, like every other backing volume.
    // Its proof of which volumes it made is kept beside its Leases.
    const { resourceNamespace: namespace, resourceName: name } = opts.leaderElection;
    if (plugins.csi) plugins.csi = { ...plugins.csi, clusterName: opts.clusterName, state: { namespace, name } };
    return { opts, plugins };
  } catch (err) {
    return usageError(cmd, err);
  }
}

async function runController(opts: ControllerOptions, settings: PluginSettings): Promise<void> {
  const logger = createControllerLogger(opts.logFormat, opts.logLevel);
  const kubeConfig = loadKubeConfig(opts.kubeconfig);
  // One registry for the controller's metrics and the CSI calls' (csi_sidecar_operations_seconds).
  const metrics = new ControllerMetrics();
  const { plugins, close: closePlugins } = await startPlugins(settings, kubeConfig, logger, metrics.registry);
  const running = await startController(opts, { logger, plugins, modules: defaultModules(), kubeConfig, metrics }).catch((err: unknown) => {
    closePlugins();
    throw err;
  });
  const shutDown = async (): Promise<void> => {
    await running.stop();
    closePlugins();
  };
  const stop = (signal: string): void => {
    logger.info({ signal }, 'shutting down');
    void shutDown().then(() => process.exit(0));
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  await running.lost;
  logger.error('leader election lost');
  await shutDown();
  process.exit(1);
}
