/**
 * `pv-controller up` — the main job `npm start` runs: the embedded API server and the controller
 * in one process, a default StorageClass `standard` backed by host-path volumes under
 * DIR/volumes, the kubeconfig at DIR/kubeconfig, and a banner with the exact kubectl command to
 * try. The controller still talks to the server only over HTTPS, as it would to a real cluster.
 */
import { mkdir } from 'node:fs/promises';
import { relative, resolve, join } from 'node:path';
import { Command } from 'commander';
import { KubeConfig } from '@kubernetes/client-node';
import { startApiServer } from '../apiserver/server.js';
import { ensureDefaultStorageClass } from '../controller/bootstrap.js';
import { startController } from '../controller/controller.js';
import { createControllerLogger } from '../controller/log.js';
import { defaultModules } from '../controller/modules.js';
import { DEFAULTS, OptionsError, parseControllerOptions } from '../controller/options.js';
import { HOST_PATH_PROVISIONER } from '../plugins/host-path/index.js';
import { buildPluginRegistry } from '../plugins/from-options.js';

interface UpFlags {
  dataDir: string;
  listen: string;
  storage: string;
  clusterName: string;
  pvclaimbinderSyncPeriod: string;
  pvRecyclerMaximumRetry: string;
  concurrentSyncs: string;
  controllers: string;
  logFormat: string;
  v?: string;
  metricsBindAddress: string;
  volumeStatsAggPeriod: string;
}

export function register(program: Command): void {
  program
    .command('up')
    .description('Run an embedded API server and the controller in one process (what `npm start` runs)')
    .requiredOption('--data-dir <dir>', 'where objects (SQLite), volumes, the CA and the kubeconfig live')
    .option('--listen <host:port>', 'API server address (port 0 picks a free one)', '127.0.0.1:0')
    .option('--storage <kind>', 'sqlite (durable) | memory', 'sqlite')
    .option('--cluster-name <name>', 'prefix of backing volume names', DEFAULTS.clusterName)
    .option('--pvclaimbinder-sync-period <duration>', 'resync period and reclaim retry interval', DEFAULTS.syncPeriod)
    .option('--pv-recycler-maximum-retry <n>', 'failed reclaim attempts before a PV is Failed', DEFAULTS.recyclerMaximumRetry)
    .option('--concurrent-syncs <n>', 'workers per queue', '8')
    .option('--controllers <list>', 'controllers to run (see `controller --help`)', DEFAULTS.controllers)
    .option('--log-format <format>', 'text | json', 'text')
    .option('-v, --v <level>', 'log verbosity (0 info, 2 debug, 4 trace)')
    .option('--metrics-bind-address <host:port>', 'where /metrics is served', DEFAULTS.metricsBindAddress)
    .option('--volume-stats-agg-period <duration>', 'how often volume usage is measured (0 disables)', DEFAULTS.volumeStatsAggPeriod)
    .action(async (flags: UpFlags, command: Command) => {
      const dataDir = resolve(flags.dataDir);
      const volumes = join(dataDir, 'volumes');
      if (flags.storage !== 'sqlite' && flags.storage !== 'memory') {
        command.error(`error: --storage must be sqlite or memory, got "${flags.storage}"`, { exitCode: 2 });
      }
      let opts;
      try {
        opts = parseControllerOptions({ ...flags, leaderElect: false, kubeApiQps: '5000', kubeApiBurst: '10000', hostPathRoot: [volumes] });
      } catch (err) {
        if (err instanceof OptionsError) command.error(`error: ${err.message}`, { exitCode: 2 });
        throw err;
      }
      const logger = createControllerLogger(opts.logFormat, opts.logLevel);
      await mkdir(volumes, { recursive: true });
      const server = await startApiServer({
        dataDir,
        storage: flags.storage as 'sqlite' | 'memory',
        listen: flags.listen,
        logger: logger.child({ component: 'apiserver' }),
      });
      const kc = new KubeConfig();
      kc.loadFromFile(server.kubeconfigPath);
      await ensureDefaultStorageClass(kc, { name: 'standard', provisioner: HOST_PATH_PROVISIONER });
      const plugins = await buildPluginRegistry({ hostPathRoots: [volumes] }, logger);
      const controller = await startController({ ...opts, kubeconfig: server.kubeconfigPath }, { kubeConfig: kc, plugins, modules: defaultModules(), logger });
      printBanner(server.url, server.kubeconfigPath, volumes, flags.storage);
      let stopping = false;
      const stop = (signal: string): void => {
        if (stopping) return;
        stopping = true;
        logger.info({ signal }, 'shutting down');
        void controller
          .stop()
          .then(() => server.stop())
          .then(() => process.exit(0));
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    });
}

function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel.startsWith('..') ? path : rel;
}

function printBanner(url: string, kubeconfig: string, volumes: string, storage: string): void {
  const kubectl = `kubectl --kubeconfig ${shown(kubeconfig)}`;
  process.stdout.write(
    [
      '',
      `pv-controller is up: API server ${url} (${storage} storage), volumes under ${shown(volumes)}`,
      'StorageClass "standard" (host-path, default) is ready. Try:',
      '',
      `  ${kubectl} apply -f examples/claim.yaml`,
      `  ${kubectl} get pvc,pv`,
      '',
      'Ctrl-C stops it; everything is kept for the next start.',
      '',
    ].join('\n') + '\n',
  );
}
