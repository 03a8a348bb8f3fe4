/**
 * The controller's flag values → a typed ControllerOptions, with the one default of each
 * (cli/flags.ts defines the flags from them; the plugin flags are cli/plugin-flags.ts's). Flag
 * names follow kube-controller-manager where it has one. Bad values throw OptionsError (the CLI
 * exits 2).
 *
 * `--pvclaimbinder-sync-period` defaults to 10m, as kube-controller-manager 1.2 had it: it is both the resync period and the wait between reclaim retries ("3 tries, 10 minutes
 * apart"). Upstream's later 15s default existed because a claim created before its volume waited
 * for the next resync; here a volume that becomes free wakes the pending claims of its class at
 * once (binder/pending-claims.ts), so the resync is only a safety net.
 */
import { parseAge, parseDuration } from './duration.js';

export { parseAge, parseDuration };

export const CONTROLLER_NAMES = ['binder', 'provisioner', 'reclaimer', 'pvc-protection', 'pvc-unused', 'pv-protection', 'expander', 'node-gone', 'snapshot'] as const;
export type ControllerName = (typeof CONTROLLER_NAMES)[number];

/**
 * Whether the binder runs in this process. Decided here once: without it (a node agent, or
 * `--controllers` without binder) the provisioner takes the claims a binder elsewhere annotated
 * for it and the reclaimer reclaims Released volumes from its own volume sync.
 */
export function binderRunsHere(options: Pick<ControllerOptions, 'controllers'>): boolean {
  return options.controllers.includes('binder');
}
export type LogFormat = 'json' | 'text';

/**
 * What the snapshot module does (docs/snapshots.md): `controller+sidecar` binds every
 * VolumeSnapshot to its content (external-snapshotter's snapshot-controller) and cuts and deletes
 * the backend snapshots of the drivers whose plugin this process holds (its csi-snapshotter);
 * `sidecar` only the latter, beside external-snapshotter's own snapshot-controller.
 */
export const SNAPSHOT_ROLES = ['controller+sidecar', 'sidecar'] as const;
export type SnapshotRole = (typeof SNAPSHOT_ROLES)[number];

export interface LeaderElectionConfig {
  enabled: boolean;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  resourceName: string;
  resourceNamespace: string;
}

export interface ControllerOptions {
  /** Kubeconfig file; unset ⇒ in-cluster, then client-node's default chain. */
  kubeconfig?: string;
  clusterName: string;
  /** --pvclaimbinder-sync-period: every claim and volume is re-synced this often; reclaim retry interval. */
  syncPeriodMs: number;
  /** --pv-recycler-maximum-retry: failed reclaim attempts before the PV goes Failed. */
  recyclerMaximumRetry: number;
  concurrentSyncs: number;
  kubeApiQps: number;
  kubeApiBurst: number;
  leaderElection: LeaderElectionConfig;
  controllers: ControllerName[];
  logFormat: LogFormat;
  logLevel: string;
  metricsBindAddress: string;
  volumeStatsAggPeriodMs: number;
  /** --node-gone-delay: how long a deleted Node stays gone before its local volumes are released; 0 disables. */
  nodeGoneDelayMs: number;
  /** --snapshot-role: see SNAPSHOT_ROLES. */
  snapshotRole: SnapshotRole;
}

export const DEFAULTS = {
  clusterName: 'kubernetes',
  syncPeriod: '10m',
  recyclerMaximumRetry: '3',
  // Workers per queue: sig-storage-lib-external-provisioner's default Threadiness. Upstream's
  // in-tree binder runs one worker per queue; parallel keys here are safe (volume reservations).
  concurrentSyncs: '4',
  kubeApiQps: '20',
  kubeApiBurst: '30',
  leaseDuration: '15s',
  renewDeadline: '10s',
  retryPeriod: '2s',
  leaseName: 'pv-controller',
  leaseNamespace: 'kube-system',
  controllers: '*',
  logFormat: 'json',
  logLevel: 'info',
  metricsBindAddress: '127.0.0.1:10258',
  volumeStatsAggPeriod: '1m',
  // The 300 s Kubernetes gives pods on a not-ready or unreachable node (the default tolerations
  // of DefaultTolerationSeconds) before it gives up on them: a deleted Node is waited for as long.
  nodeGoneDelay: '5m',
  snapshotRole: 'controller+sidecar',
} as const;

export class OptionsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OptionsError';
  }
}

/** Flag values as commander hands them over (camelCase of the flag names). */
export interface RawControllerFlags {
  kubeconfig?: string;
  clusterName?: string;
  pvclaimbinderSyncPeriod?: string;
  pvRecyclerMaximumRetry?: string;
  concurrentSyncs?: string;
  kubeApiQps?: string;
  kubeApiBurst?: string;
  leaderElect?: string | boolean;
  leaderElectLeaseDuration?: string;
  leaderElectRenewDeadline?: string;
  leaderElectRetryPeriod?: string;
  leaderElectResourceName?: string;
  leaderElectResourceNamespace?: string;
  controllers?: string;
  logFormat?: string;
  v?: string;
  metricsBindAddress?: string;
  volumeStatsAggPeriod?: string;
  nodeGoneDelay?: string;
  snapshotRole?: string;
}

export function parseControllerOptions(raw: RawControllerFlags): ControllerOptions {
  const opts: ControllerOptions = {
    clusterName: nonEmpty('--cluster-name', raw.clusterName ?? DEFAULTS.clusterName),
    syncPeriodMs: positiveDuration('--pvclaimbinder-sync-period', raw.pvclaimbinderSyncPeriod ?? DEFAULTS.syncPeriod),
    recyclerMaximumRetry: integer('--pv-recycler-maximum-retry', raw.pvRecyclerMaximumRetry ?? DEFAULTS.recyclerMaximumRetry, 0),
    concurrentSyncs: integer('--concurrent-syncs', raw.concurrentSyncs ?? DEFAULTS.concurrentSyncs, 1),
    kubeApiQps: number('--kube-api-qps', raw.kubeApiQps ?? DEFAULTS.kubeApiQps),
    kubeApiBurst: integer('--kube-api-burst', raw.kubeApiBurst ?? DEFAULTS.kubeApiBurst, 1),
    leaderElection: parseLeaderElection(raw),
    controllers: parseControllers(raw.controllers ?? DEFAULTS.controllers),
    logFormat: oneOf('--log-format', raw.logFormat ?? DEFAULTS.logFormat, ['json', 'text'] as const),
    logLevel: logLevelOf(raw.v),
    metricsBindAddress: hostPort('--metrics-bind-address', raw.metricsBindAddress ?? DEFAULTS.metricsBindAddress),
    volumeStatsAggPeriodMs: durationOrZero('--volume-stats-agg-period', raw.volumeStatsAggPeriod ?? DEFAULTS.volumeStatsAggPeriod),
    nodeGoneDelayMs: durationOrZero('--node-gone-delay', raw.nodeGoneDelay ?? DEFAULTS.nodeGoneDelay),
    snapshotRole: oneOf('--snapshot-role', raw.snapshotRole ?? DEFAULTS.snapshotRole, SNAPSHOT_ROLES),
  };
  if (raw.kubeconfig !== undefined) opts.kubeconfig = nonEmpty('--kubeconfig', raw.kubeconfig);
  return opts;
}

function parseLeaderElection(raw: RawControllerFlags): LeaderElectionConfig {
  const le: LeaderElectionConfig = {
    enabled: bool('--leader-elect', raw.leaderElect ?? true),
    leaseDurationMs: positiveDuration('--leader-elect-lease-duration', raw.leaderElectLeaseDuration ?? DEFAULTS.leaseDuration),
    renewDeadlineMs: positiveDuration('--leader-elect-renew-deadline', raw.leaderElectRenewDeadline ?? DEFAULTS.renewDeadline),
    retryPeriodMs: positiveDuration('--leader-elect-retry-period', raw.leaderElectRetryPeriod ?? DEFAULTS.retryPeriod),
    resourceName: nonEmpty('--leader-elect-resource-name', raw.leaderElectResourceName ?? DEFAULTS.leaseName),
    resourceNamespace: nonEmpty('--leader-elect-resource-namespace', raw.leaderElectResourceNamespace ?? DEFAULTS.leaseNamespace),
  };
  // The same checks client-go's leaderelection.NewLeaderElector makes.
  if (le.leaseDurationMs <= le.renewDeadlineMs) {
    throw new OptionsError('--leader-elect-lease-duration must be greater than --leader-elect-renew-deadline');
  }
  if (le.renewDeadlineMs <= 1.2 * le.retryPeriodMs) {
    throw new OptionsError('--leader-elect-renew-deadline must be greater than 1.2 × --leader-elect-retry-period');
  }
  return le;
}

/** Whether the node-gone controller runs, and so whether Nodes are watched. */
export function watchesNodes(opts: Pick<ControllerOptions, 'controllers' | 'nodeGoneDelayMs'>): boolean {
  return opts.controllers.includes('node-gone') && opts.nodeGoneDelayMs > 0;
}

/** kube-controller-manager syntax: "*" = all, "name" enables, "-name" disables. */
export function parseControllers(text: string): ControllerName[] {
  const enabled = new Set<ControllerName>();
  const disabled = new Set<ControllerName>();
  let star = false;
  for (const item of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    if (item === '*') {
      star = true;
      continue;
    }
    const name = item.startsWith('-') ? item.slice(1) : item;
    if (!(CONTROLLER_NAMES as readonly string[]).includes(name)) {
      throw new OptionsError(`--controllers: unknown controller "${name}" (known: ${CONTROLLER_NAMES.join(', ')}, *)`);
    }
    (item.startsWith('-') ? disabled : enabled).add(name as ControllerName);
  }
  return CONTROLLER_NAMES.filter((n) => !disabled.has(n) && (star || enabled.has(n)));
}

/** What `-v` means, the same in every command (klog's scale: higher shows more). */
export const VERBOSITY_HELP = 'log verbosity: 0 info, 2 debug, 4 trace';

/** The log level `-v N` selects; absent ⇒ info. Throws OptionsError for a non-integer. */
export function logLevelOf(v: string | undefined): string {
  if (v === undefined) return DEFAULTS.logLevel;
  const n = integer('-v', v, 0);
  return n >= 4 ? 'trace' : n >= 2 ? 'debug' : 'info';
}

function nonEmpty(flag: string, value: string): string {
  if (value.trim() === '') throw new OptionsError(`${flag} must not be empty`);
  return value;
}

function positiveDuration(flag: string, value: string): number {
  let ms: number;
  try {
    ms = parseDuration(value);
  } catch (err) {
    throw new OptionsError(`${flag}: ${(err as Error).message}`);
  }
  if (!(ms > 0)) throw new OptionsError(`${flag} must be a positive duration, got "${value}"`);
  return ms;
}

/** A duration where 0 means "off" (e.g. --volume-stats-agg-period 0 disables collection). */
function durationOrZero(flag: string, value: string): number {
  return value.trim() === '0' ? 0 : positiveDuration(flag, value);
}

function number(flag: string, value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new OptionsError(`${flag} must be a non-negative number, got "${value}"`);
  return n;
}

function integer(flag: string, value: string, min: number): number {
  const n = Number(value);
  if (!/^\s*-?\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n < min) {
    throw new OptionsError(`${flag} must be an integer ≥ ${min}, got "${value}"`);
  }
  return n;
}

function bool(flag: string, value: string | boolean): boolean {
  if (typeof value === 'boolean') return value;
  if (/^(true|1|t)$/i.test(value)) return true;
  if (/^(false|0|f)$/i.test(value)) return false;
  throw new OptionsError(`${flag} must be true or false, got "${value}"`);
}

function oneOf<const V extends readonly string[]>(flag: string, value: string, allowed: V): V[number] {
  if (!allowed.includes(value)) throw new OptionsError(`${flag} must be one of ${allowed.join(', ')}, got "${value}"`);
  return value as V[number];
}

/** host:port, or "0" to turn the listener off. */
function hostPort(flag: string, value: string): string {
  if (value === '0') return value;
  if (!/^(\[[^\]]+\]|[^:]*):\d{1,5}$/.test(value) || Number(value.slice(value.lastIndexOf(':') + 1)) > 65535) {
    throw new OptionsError(`${flag} must be host:port (or 0 to disable), got "${value}"`);
  }
  return value;
}
