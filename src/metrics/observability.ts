/**
 * Everything the controller exposes about itself, started next to a running controller: the
 * usage collector on its own loop, the Prometheus metrics fed from the controller's stores,
 * queues and lease, and the /metrics /healthz /readyz server.
 *
 * Typed structurally against the controller (RunningController satisfies ObservedController) so
 * metrics/ does not import controller/ or plugins/.
 */
import type { Logger } from 'pino';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { VolumeUsageCollector, type ObjectLister, type UsageSource } from './collector.js';
import { ControllerMetrics, type QueueCounters } from './prometheus.js';
import type { MetricsProvider } from './provider.js';
import { startMetricsServer, type HealthCheck, type RunningMetricsServer } from './server.js';

/** What is read from the running controller. */
export interface ObservedController {
  stats(): { synced: boolean; leading: boolean; queues: Record<string, QueueCounters> };
  /** Caches synced, leading (or election off), workers running. */
  ready(): boolean;
  readonly context: { volumes: ObjectLister<PersistentVolume>; claims: ObjectLister<PersistentVolumeClaim> };
  /** Resolves if the lease is lost. */
  readonly lost: Promise<void>;
}

/** The plugin registry, as far as measuring goes (PluginRegistry satisfies it). */
export interface PluginLookup {
  forVolume(pv: PersistentVolume): { readonly name: string; metricsFor(pv: PersistentVolume): MetricsProvider } | undefined;
}

export interface ObservabilityOptions {
  /** `--metrics-bind-address`; "" or "0" serves nothing. */
  metricsBindAddress: string;
  /** `--volume-stats-agg-period` in ms; 0 disables usage collection. */
  volumeStatsAggPeriodMs: number;
  /** The Lease name when leader election is on. */
  leaseName?: string;
  plugins?: PluginLookup;
  /** Created beforehand when modules need `metrics.operations`; otherwise made here. */
  metrics?: ControllerMetrics;
  /** Measurements at once and per-volume deadline (collector defaults otherwise). */
  collectConcurrency?: number;
  volumeTimeoutMs?: number;
  /** When the bind address is taken: throw (default), or log and run without the endpoints. */
  bindFailure?: 'throw' | 'log';
  logger?: Logger;
}

export interface RunningObservability {
  readonly metrics: ControllerMetrics;
  readonly collector: VolumeUsageCollector;
  /** Absent when no bind address was given. */
  readonly server?: RunningMetricsServer;
  stop(): Promise<void>;
}

/** Readiness: caches synced, and leading with workers running, or standing by with the election alive. */
export function controllerReadiness(controller: ObservedController, electing: boolean): HealthCheck[] {
  let lost = false;
  void controller.lost.then(() => (lost = true));
  const checks: HealthCheck[] = [
    { name: 'informer-sync', check: () => (controller.stats().synced ? undefined : 'informer caches have not synced yet') },
  ];
  if (electing) checks.push({ name: 'leader-election', check: () => (lost ? 'the lease was lost; the controller is exiting' : undefined) });
  checks.push({
    name: 'controller',
    check: () => {
      if (lost) return 'stopped';
      if (controller.stats().leading && !controller.ready()) return 'workers are not running';
      return undefined;
    },
  });
  return checks;
}

/** A UsageSource over a plugin registry: the owning plugin's provider, named by the plugin. */
export function pluginUsageSource(plugins: PluginLookup): UsageSource {
  return {
    providerFor: (pv) => {
      const plugin = plugins.forVolume(pv);
      return plugin ? { plugin: plugin.name, provider: plugin.metricsFor(pv) } : undefined;
    },
  };
}

export async function startControllerObservability(
  controller: ObservedController,
  opts: ObservabilityOptions,
): Promise<RunningObservability> {
  const metrics = opts.metrics ?? new ControllerMetrics();
  const electing = opts.leaseName !== undefined;
  const plugins = opts.plugins;
  const collector = new VolumeUsageCollector({
    volumes: controller.context.volumes,
    claims: controller.context.claims,
    source: plugins ? pluginUsageSource(plugins) : { providerFor: () => undefined },
    periodMs: plugins ? opts.volumeStatsAggPeriodMs : 0,
    // Only the replica that acts measures (standbys would double every series and every du), and
    // only once the stores are complete.
    active: () => {
      const stats = controller.stats();
      return stats.synced && stats.leading;
    },
    ...(opts.collectConcurrency !== undefined ? { concurrency: opts.collectConcurrency } : {}),
    ...(opts.volumeTimeoutMs !== undefined ? { timeoutMs: opts.volumeTimeoutMs } : {}),
    observer: metrics.collection,
    ...(opts.logger ? { logger: opts.logger.child({ component: 'volume-usage' }) } : {}),
  });
  metrics.setSources({
    volumes: controller.context.volumes,
    claims: controller.context.claims,
    usage: () => collector.snapshot(),
    queues: () => controller.stats().queues,
    ...(electing ? { leaderElection: { name: opts.leaseName ?? '', isLeader: () => controller.stats().leading } } : {}),
    ...(plugins ? { pluginNameOf: (pv: PersistentVolume) => plugins.forVolume(pv)?.name } : {}),
  });
  const serve = opts.metricsBindAddress !== '' && opts.metricsBindAddress !== '0';
  const server = serve ? await serveEndpoints(controller, metrics, electing, opts) : undefined;
  collector.start();
  let stopped: Promise<void> | undefined;
  return {
    metrics,
    collector,
    ...(server ? { server } : {}),
    stop: () => (stopped ??= Promise.all([collector.stop(), server?.stop()]).then(() => undefined)),
  };
}

async function serveEndpoints(
  controller: ObservedController,
  metrics: ControllerMetrics,
  electing: boolean,
  opts: ObservabilityOptions,
): Promise<RunningMetricsServer | undefined> {
  try {
    return await startMetricsServer({
      listen: opts.metricsBindAddress,
      metrics,
      readiness: controllerReadiness(controller, electing),
      ...(opts.logger ? { logger: opts.logger.child({ component: 'metrics-server' }) } : {}),
    });
  } catch (err) {
    if (opts.bindFailure !== 'log') throw err;
    const message = err instanceof Error ? err.message : String(err);
    opts.logger?.error({ address: opts.metricsBindAddress, err: message }, 'cannot serve /metrics, /healthz and /readyz; running without them');
    return undefined;
  }
}
