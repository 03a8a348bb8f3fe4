/**
 * What `pv-controller node-agent` runs (node-agent.ts defines its flags): the flags checked, the
 * node's host-path plugin, and the agent's controller modules.
 */
import type { Command } from 'commander';
import {
  createControllerLogger,
  NODE_AGENT_CONTROLLERS,
  nodeAgentModules,
  parseControllerOptions,
  parseDuration,
  type RawControllerFlags,
  startController,
} from '../controller/index.js';
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import { loadKubeConfig } from '../kube-client/kubeconfig.js';
import { labelKeyProblem } from '../plugins/host-path/node-pin.js';
import { HostPathPlugin, NODE_HOST_PATH_PROVISIONER } from '../plugins/host-path/index.js';
import { PluginRegistry } from '../plugins/registry.js';
import { ControllerMetrics } from '../metrics/prometheus.js';
import { FlagError, usageError } from './flags.js';
import { pluginSettingsFromFlags, type PluginFlags } from './plugin-flags.js';

interface AgentFlags extends PluginFlags, RawControllerFlags {
  capacityNamespace: string;
  nodeAffinityLabel: string;
  capacityPublishPeriod: string;
}

function parseAgentFlags(cmd: Command) {
  const raw = cmd.opts<AgentFlags>();
  try {
    if (!raw.nodeName) throw new FlagError('--node-name is required: the node this agent serves');
    if (!raw.hostPathRoot?.length) throw new FlagError('--host-path-root is required: where this node keeps its volumes');
    // One Lease per node: agents of different nodes never wait for each other.
    const leaseName = raw.leaderElectResourceName ?? `pv-controller-node-${raw.nodeName}`;
    const opts = parseControllerOptions({ ...raw, controllers: NODE_AGENT_CONTROLLERS, snapshotRole: 'sidecar', leaderElectResourceName: leaseName });
    const settings = pluginSettingsFromFlags(raw);
    const keyProblem = labelKeyProblem(raw.nodeAffinityLabel);
    if (keyProblem) throw new FlagError(`--node-affinity-label: ${keyProblem}`);
    return { opts, settings, nodeAffinityLabel: raw.nodeAffinityLabel, nodeName: raw.nodeName, namespace: raw.capacityNamespace, periodMs: publishPeriod(raw.capacityPublishPeriod) };
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

export async function runAgent(cmd: Command): Promise<void> {
  const { opts, settings, nodeAffinityLabel, nodeName, namespace, periodMs } = parseAgentFlags(cmd);
  const logger = createControllerLogger(opts.logFormat, opts.logLevel).child({ node: nodeName });
  const kubeConfig = loadKubeConfig(opts.kubeconfig);
  const nodeLabels = await readNodeLabels(kubeConfig, nodeName, logger);
  const plugins = new PluginRegistry();
  plugins.register(
    new HostPathPlugin({
      roots: settings.hostPathRoots,
      nodeName,
      provisionerName: NODE_HOST_PATH_PROVISIONER,
      logger,
      ...(settings.hostPathOvercommitRatio !== undefined ? { overcommitRatio: settings.hostPathOvercommitRatio } : {}),
      ...(settings.hostPathRootLimits ? { rootLimits: settings.hostPathRootLimits } : {}),
      nodeLabels,
      nodeAffinityLabel,
    }),
  );
  const modules = nodeAgentModules({ nodeName, namespace, periodMs });
  const metrics = new ControllerMetrics();
  metrics.collectProcessMetrics();
  const running = await startController(opts, { logger, plugins, modules, kubeConfig, metrics });
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

/**
 * The node's labels, for PVs pinned by a label other than its hostname (node-pin.ts). Read once:
 * a label added later takes effect when the agent restarts. Without them (the Node unreadable)
 * hostname pins still work and a class pinned by another label fails per claim, saying why.
 */
async function readNodeLabels(kubeConfig: KubeConfig, nodeName: string, logger: Logger): Promise<Record<string, string>> {
  try {
    const node = await kubeConfig.makeApiClient(CoreV1Api).readNode({ name: nodeName });
    return node.metadata?.labels ?? {};
  } catch (err) {
    logger.warn({ err: (err as Error).message }, 'could not read this node\'s labels: volumes can be pinned by kubernetes.io/hostname only');
    return {};
  }
}
