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
import type { PluginSettings } from '../plugins/from-options.js';
import { addOptions, controllerFlags, flags, usageError } from './flags.js';
import { pluginFlags, pluginSettingsFromFlags, startPlugins, type PluginFlags } from './plugin-flags.js';

export function register(program: Command): void {
  const command = program
    .command('controller')
    .description('Run the PV controller (bind, provision, reclaim) against a Kubernetes API server');
  addOptions(command, [flags.kubeconfig(), ...controllerFlags(), ...pluginFlags()]).action(async (_flags: unknown, cmd: Command) => {
    const { opts, plugins } = parseFlags(cmd);
    await runController(opts, plugins);
  });
}

/** The controller's options and the plugin settings, or a usage error (exit 2) naming the bad flag. */
export function parseFlags(cmd: Command, overrides: Partial<RawControllerFlags> = {}): { opts: ControllerOptions; plugins: PluginSettings } {
  try {
    return {
      opts: parseControllerOptions({ ...cmd.opts<RawControllerFlags>(), ...overrides }),
      plugins: pluginSettingsFromFlags(cmd.opts<PluginFlags>()),
    };
  } catch (err) {
    return usageError(cmd, err);
  }
}

async function runController(opts: ControllerOptions, settings: PluginSettings): Promise<void> {
  const logger = createControllerLogger(opts.logFormat, opts.logLevel);
  const kubeConfig = loadKubeConfig(opts.kubeconfig);
  const { plugins, close: closePlugins } = await startPlugins(settings, kubeConfig, logger);
  const running = await startController(opts, { logger, plugins, modules: defaultModules(), kubeConfig }).catch((err: unknown) => {
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
