/**
 * `pv-controller controller`: runs the persistent-volume controller against a cluster (a
 * kubeconfig file, or in-cluster). Flag parsing and wiring only; options.ts does the checking.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { Command, Option } from 'commander';
import { startController } from '../controller/controller.js';
import { createControllerLogger } from '../controller/log.js';
import { defaultModules } from '../controller/modules.js';
import { DEFAULTS, OptionsError, parseControllerOptions, type RawControllerFlags } from '../controller/options.js';
import { loadKubeConfig } from '../controller/client/kubeconfig.js';
import { topologyFromKubeConfig } from '../controller/topology.js';
import { buildPluginRegistry, type CloudFlags, type CloudSettings, cloudSettingsFromFlags, parseCloudProvider, parseNfsMount } from '../plugins/from-options.js';
import { addCloudOptions } from './cloud-flags.js';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

export function register(program: Command): void {
  const controllerCommand = program
    .command('controller')
    .description('Run the PV controller (bind, provision, reclaim) against a Kubernetes API server')
    .option('--kubeconfig <file>', 'kubeconfig file (default: in-cluster, then $KUBECONFIG / ~/.kube/config)')
    .option('--cluster-name <name>', 'prefix of cloud volume names', DEFAULTS.clusterName)
    .option('--pvclaimbinder-sync-period <duration>', 'resync every claim and volume this often; also the wait between reclaim retries', DEFAULTS.syncPeriod)
    .option('--pv-recycler-maximum-retry <n>', 'failed reclaim attempts before a PV is marked Failed', DEFAULTS.recyclerMaximumRetry)
    .option('--concurrent-syncs <n>', 'workers per queue (claims, volumes)', DEFAULTS.concurrentSyncs)
    .option('--kube-api-qps <qps>', 'client-side request rate limit', DEFAULTS.kubeApiQps)
    .option('--kube-api-burst <n>', 'client-side request burst', DEFAULTS.kubeApiBurst)
    .addOption(new Option('--leader-elect [bool]', 'elect a leader through a Lease before acting (true|false)').default(true))
    .option('--leader-elect-lease-duration <duration>', 'how long a standby waits before taking a silent lease', DEFAULTS.leaseDuration)
    .option('--leader-elect-renew-deadline <duration>', 'the leader stops when it could not renew for this long', DEFAULTS.renewDeadline)
    .option('--leader-elect-retry-period <duration>', 'wait between election attempts and renewals', DEFAULTS.retryPeriod)
    .option('--leader-elect-resource-name <name>', 'name of the Lease', DEFAULTS.leaseName)
    .option('--leader-elect-resource-namespace <ns>', 'namespace of the Lease', DEFAULTS.leaseNamespace)
    .option('--controllers <list>', 'controllers to run: * | comma list of binder,provisioner,reclaimer,pvc-protection,pv-protection | -name disables', DEFAULTS.controllers)
    .option('--log-format <format>', 'json | text', DEFAULTS.logFormat)
    .option('-v, --v <level>', 'log verbosity (0 info, 2 debug, 4 trace)')
    .option('--metrics-bind-address <host:port>', 'where /metrics is served (0 disables)', DEFAULTS.metricsBindAddress)
    .option('--volume-stats-agg-period <duration>', 'how often volume usage is measured', DEFAULTS.volumeStatsAggPeriod)
    .option('--host-path-root <dir>', 'directory host-path volumes may live under (repeatable)', collect)
    .option('--node-name <name>', 'node this process runs on (host-path volumes)')
    .option('--nfs-mount <server:/share=/mount>', 'an NFS export mounted into this process, for nfs-subdir volumes (repeatable)', collect)
    .action(async (_flags: unknown, command: Command) => {
      let opts;
      try {
        opts = parseControllerOptions(command.opts<RawControllerFlags>());
      } catch (err) {
        if (err instanceof OptionsError) command.error(`error: ${err.message}`, { exitCode: 2, code: 'pv-controller.invalidOption' });
        throw err;
      }
      let nfsMounts;
      try {
        nfsMounts = (command.opts<{ nfsMount?: string[] }>().nfsMount ?? []).map(parseNfsMount);
      } catch (err) {
        command.error(`error: ${(err as Error).message}`, { exitCode: 2, code: 'pv-controller.invalidOption' });
      }
      const logger = createControllerLogger(opts.logFormat, opts.logLevel);
      const kubeConfig = loadKubeConfig(opts.kubeconfig);
      const { cloud, close: closeTopology } = cloudWithTopology(command.opts<CloudFlags>(), kubeConfig);
      const plugins = await buildPluginRegistry(
        { hostPathRoots: opts.hostPathRoots, nfsMounts, ...(opts.nodeName ? { nodeName: opts.nodeName } : {}), ...(cloud ? { cloud } : {}) },
        logger,
      );
      const running = await startController(opts, { logger, plugins, modules: defaultModules(), kubeConfig }).catch((err: unknown) => {
        closeTopology();
        throw err;
      });
      const shutDown = async (): Promise<void> => {
        await running.stop();
        closeTopology();
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
    });
  addCloudOptions(controllerCommand);
}

/**
 * The cloud the flags select, with a TopologyResolver reading nodes through the controller's client
 * on `kc` (none without a cloud); `close()` releases the resolver's connections.
 */
function cloudWithTopology(flags: CloudFlags, kc: KubeConfig): { cloud?: CloudSettings; close(): void } {
  if (parseCloudProvider(flags.cloudProvider) === undefined) return { close: () => undefined };
  const { topology, close } = topologyFromKubeConfig(kc);
  return { ...cloudSettingsFromFlags(flags, topology), close };
}
