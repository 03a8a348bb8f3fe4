/**
 * Every flag more than one command takes, defined once: its name, help text and default (from
 * controller/options.ts DEFAULTS, which parseControllerOptions falls back to as well). Each
 * factory returns a fresh commander Option, so a command that must differ (`up`'s single-process
 * defaults, listed with their reasons in up.ts) says so where it adds the flag. Names follow
 * kube-controller-manager where it has one. Plugin flags are in plugin-flags.ts.
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { CONTROLLER_NAMES, DEFAULTS, OptionsError, VERBOSITY_HELP } from '../controller/options.js';

export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

function hostPort(value: string): string {
  if (!/^(\[[^\]]+\]|[^:]*):\d{1,5}$/.test(value)) throw new InvalidArgumentError('expected host:port, e.g. 127.0.0.1:6443');
  return value;
}

export const flags = {
  kubeconfig: () => new Option('--kubeconfig <file>', 'kubeconfig file (default: in-cluster, then $KUBECONFIG / ~/.kube/config)'),
  dataDir: () => new Option('--data-dir <dir>', 'where the objects (SQLite), TLS material, token and kubeconfig live (up: the volumes too)').makeOptionMandatory(),
  /** For the client commands: the `up` data dir whose cluster (and volumes) to look at. */
  upDataDir: () => new Option('--data-dir <dir>', 'an `up` data dir: use DIR/kubeconfig (and DIR/volumes); default ./.pv-controller when it exists'),
  listen: () => new Option('--listen <host:port>', 'API server address (port 0 picks a free port)').argParser(hostPort).default('127.0.0.1:6443'),
  storage: () => new Option('--storage <kind>', 'object storage: sqlite (durable) or memory').choices(['sqlite', 'memory']).default('sqlite'),
  logFormat: () => new Option('--log-format <format>', 'log output').choices(['json', 'text']).default(DEFAULTS.logFormat),
  verbosity: () => new Option('-v, --v <level>', VERBOSITY_HELP),
  clusterName: () =>
    new Option('--cluster-name <name>', 'this cluster\'s name: backing volumes are named <name>-dynamic-<pv> and tagged with it').default(DEFAULTS.clusterName),
};

/** The controller's own flags, in the order `--help` lists them (all but --kubeconfig and the plugins'). */
export function controllerFlags(): Option[] {
  return [
    flags.clusterName(),
    new Option('--pvclaimbinder-sync-period <duration>', 'resync every claim and volume this often; also the wait between reclaim retries').default(DEFAULTS.syncPeriod),
    new Option('--pv-recycler-maximum-retry <n>', 'failed reclaim attempts before a PV is marked Failed').default(DEFAULTS.recyclerMaximumRetry),
    new Option('--concurrent-syncs <n>', 'workers per queue (claims, volumes)').default(DEFAULTS.concurrentSyncs),
    new Option('--kube-api-qps <qps>', 'client-side request rate limit').default(DEFAULTS.kubeApiQps),
    new Option('--kube-api-burst <n>', 'client-side request burst').default(DEFAULTS.kubeApiBurst),
    new Option('--leader-elect [bool]', 'elect a leader through a Lease before acting (true|false)').default(true),
    new Option('--leader-elect-lease-duration <duration>', 'how long a standby waits before taking a silent lease').default(DEFAULTS.leaseDuration),
    new Option('--leader-elect-renew-deadline <duration>', 'the leader stops when it could not renew for this long').default(DEFAULTS.renewDeadline),
    new Option('--leader-elect-retry-period <duration>', 'wait between election attempts and renewals').default(DEFAULTS.retryPeriod),
    new Option('--leader-elect-resource-name <name>', 'name of the Lease').default(DEFAULTS.leaseName),
    new Option('--leader-elect-resource-namespace <ns>', 'namespace of the Lease').default(DEFAULTS.leaseNamespace),
    new Option('--controllers <list>', `controllers to run: * | comma list of ${CONTROLLER_NAMES.join(',')} | -name disables`).default(DEFAULTS.controllers),
    flags.logFormat(),
    flags.verbosity(),
    new Option('--metrics-bind-address <host:port>', 'where /metrics is served (0 disables)').default(DEFAULTS.metricsBindAddress),
    new Option('--volume-stats-agg-period <duration>', 'how often volume usage is measured (0 disables)').default(DEFAULTS.volumeStatsAggPeriod),
    new Option('--node-gone-delay <duration>', 'release the local volumes of a deleted Node once it has stayed deleted this long (0 disables)').default(DEFAULTS.nodeGoneDelay),
    new Option(
      '--snapshot-role <role>',
      'controller+sidecar: bind every VolumeSnapshot and cut the snapshots of our plugins; sidecar: only cut and delete our plugins\' snapshots, beside external-snapshotter\'s snapshot-controller (docs/snapshots.md)',
    ).default(DEFAULTS.snapshotRole),
  ];
}

export function addOptions(command: Command, options: Option[]): Command {
  for (const option of options) command.addOption(option);
  return command;
}

/** A bad flag value: the message and exit status 2, as for commander's own usage errors. */
export function usageError(command: Command, err: unknown): never {
  if (err instanceof OptionsError || err instanceof FlagError) {
    command.error(`error: ${err.message}`, { exitCode: 2, code: 'pv-controller.invalidOption' });
  }
  throw err;
}

/** A flag value refused by the CLI's own parsing (plugin flags); the message names the flag. */
export class FlagError extends Error {
  override readonly name = 'FlagError';
}
