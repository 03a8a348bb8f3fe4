/**
 * `pv-controller controller`: runs the persistent-volume controller against a cluster (a
 * kubeconfig file, or in-cluster). Flag parsing and wiring only; controller/options.ts and
 * plugin-flags.ts do the checking; controller-run.ts runs it.
 */
import { Command } from 'commander';
import { type ControllerOptions, parseControllerOptions, type RawControllerFlags } from '../controller/options.js';
import type { PluginSettings } from '../plugins/from-options.js';
import { addOptions, controllerFlags, flags, usageError } from './flags.js';
import { csiFlags, pluginFlags, pluginSettingsFromFlags, type PluginFlags } from './plugin-flags.js';

export function register(program: Command): void {
  const command = program
    .command('controller')
    .description('Run the PV controller (bind, provision, reclaim) against a Kubernetes API server');
  addOptions(command, [flags.kubeconfig(), ...controllerFlags(), ...pluginFlags(), ...csiFlags()]).action(async (_flags: unknown, cmd: Command) => {
    const { opts, plugins } = parseFlags(cmd);
    // The controller, client-node and the cloud SDKs load only now, never for --help.
    const { runController } = await import('./controller-run.js');
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
