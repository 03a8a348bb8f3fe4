/**
 * `pv-controller node-agent`: the host-path provisioner for one node, run on every node (a
 * DaemonSet). It serves provisioner `host-path.pv-controller.io` for its own node only: it
 * provisions the WaitForFirstConsumer claims kube-scheduler placed on it (selected-node) as
 * `local` PVs pinned to it, deletes, grows and measures its own node's volumes, and publishes what
 * its roots can still hold as CSIStorageCapacity. Binding, protection and every other plugin stay
 * with the central controller (`pv-controller controller`), which leaves these volumes to the
 * agents. A per-node Lease keeps two agents of one node (a rolling update) from acting at once.
 */
import { Command, Option } from 'commander';
import {
  createControllerLogger,
  NODE_AGENT_CONTROLLERS,
  nodeAgentModules,
  parseControllerOptions,
  parseDuration,
  type RawControllerFlags,
  startController,
} from '../controller/index.js';
import { loadKubeConfig } from '../kube-client/kubeconfig.js';
import { HostPathPlugin, NODE_HOST_PATH_PROVISIONER } from '../plugins/host-path/index.js';
import { PluginRegistry } from '../plugins/registry.js';
import { addOptions, controllerFlags, FlagError, flags, usageError } from './flags.js';
import { pluginFlags, pluginSettingsFromFlags, type PluginFlags } from './plugin-flags.js';

/** The controller flags that do not apply: the agent's set of controllers is fixed. */
const NOT_FOR_AGENTS = new Set(['--controllers', '--nfs-mount', '--cloud-provider', '--gce-project', '--gce-zone', '--gce-endpoint']);

interface AgentFlags extends PluginFlags, RawControllerFlags {
  capacityNamespace: string;
  capacityPublishPeriod: string;
}

export function register(program: Command): void {
  const command = program
    .command('node-agent')
    .description('Provision, grow and delete the host-path volumes of this node only (provisioner host-path.pv-controller.io); run one per node');
  const options = [
    flags.kubeconfig(),
    ...controllerFlags()
      .filter((o) => !NOT_FOR_AGENTS.has(o.long ?? ''))
      .map((o) => (o.long === '--leader-elect-resource-name' ? new Option(o.flags, 'name of the Lease (default: pv-controller-node-<node-name>)') : o)),
    ...pluginFlags().filter((o) => !NOT_FOR_AGENTS.has(o.long ?? '')),
    new Option('--capacity-namespace <ns>', 'namespace of the CSIStorageCapacity objects this agent publishes').default(process.env.POD_NAMESPACE ?? 'kube-system'),
    new Option('--capacity-publish-period <duration>', 'how often the capacity is re-published (and soon after each volume change)').default('1m'),
  ];
  addOptions(command, options).action(async (_flags: unknown, cmd: Command) => {
    await runAgent(cmd);
  });
}

function parseAgentFlags(cmd: Command) {
  const raw = cmd.opts<AgentFlags>();
  try {
    if (!raw.nodeName) throw new FlagError('--node-name is required: the node this agent serves');
    if (!raw.hostPathRoot?.length) throw new FlagError('--host-path-root is required: where this node keeps its volumes');
    // One Lease per node: agents of different nodes never wait for each other.
    const leaseName = raw.leaderElectResourceName ?? `pv-controller-node-${raw.nodeName}`;
    const opts = parseControllerOptions({ ...raw, controllers: NODE_AGENT_CONTROLLERS, leaderElectResourceName: leaseName });
    const settings = pluginSettingsFromFlags(raw);
    return { opts, settings, nodeName: raw.nodeName, namespace: raw.capacityNamespace, periodMs: publishPeriod(raw.capacityPublishPeriod) };
  } catch (err) {
    return usageError(cmd, err);
  }
}

function publishPeriod(text: string): number {
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch (err) {
    throw new FlagError(`--capacity-publish-period: ${(err as Error).message}`);
  }
  if (!(ms > 0)) throw new FlagError(`--capacity-publish-period must be a positive duration, got "${text}"`);
  return ms;
}

async function runAgent(cmd: Command): Promise<void> {
  const { opts, settings, nodeName, namespace, periodMs } = parseAgentFlags(cmd);
  const logger = createControllerLogger(opts.logFormat, opts.logLevel).child({ node: nodeName });
  const plugins = new PluginRegistry();
  plugins.register(
    new HostPathPlugin({
      roots: settings.hostPathRoots,
      nodeName,
      provisionerName: NODE_HOST_PATH_PROVISIONER,
      logger,
      ...(settings.hostPathOvercommitRatio !== undefined ? { overcommitRatio: settings.hostPathOvercommitRatio } : {}),
    }),
  );
  const modules = nodeAgentModules({ nodeName, namespace, periodMs });
  const running = await startController(opts, { logger, plugins, modules, kubeConfig: loadKubeConfig(opts.kubeconfig) });
  const stop = (signal: string): void => {
    logger.info({ signal }, 'shutting down');
    void running.stop().then(() => process.exit(0));
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  await running.lost;
  logger.error('leader election lost');
  await running.stop();
  process.exit(1);
}
