/**
 * The controller process: a client, informers (one merged store and reflector per watched kind),
 * two work queues (claims, volumes), optional leader election, and the module loop that hands
 * every key to the enabled ControllerModules (runtime/module.ts). Workers start once every cache
 * has synced and, with leader election, once this process leads; losing the lease refuses every
 * further write at once and ends the controller (`lost` resolves; the CLI exits non-zero, like
 * kube-controller-manager).
 */
import os from 'node:os';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { Backoff } from '../backoff.js';
import type { Reflector } from '../kube-client/cache/reflector.js';
import { KubeApiClient } from '../kube-client/kube-api-client.js';
import { loadKubeConfig } from '../kube-client/kubeconfig.js';
import type { VerbCounts } from '../kube-client/request-counters.js';
import { RestTransport } from '../kube-client/transport.js';
import type { ControllerContext } from './runtime/context.js';
import { KubeEventRecorder } from './runtime/events.js';
import { LeaderElector } from './runtime/leader-election.js';
import { createControllerLogger } from './runtime/log.js';
import { watchesNodes, type ControllerOptions } from './options.js';
import { WorkQueue, type QueueStats } from './runtime/queue.js';
import { makeReflectors, makeStores, moduleInformerFactory, readClaimsFence, wireEnqueueRules, type Stores } from './runtime/informers.js';
import type { ControllerModule } from './runtime/module.js';
import { ModuleSet } from './runtime/module-set.js';
import { PluginRegistry } from '../plugins/registry.js';
import { startControllerObservability, type RunningObservability } from '../metrics/observability.js';
import { ControllerMetrics } from '../metrics/prometheus.js';

/** Said at start-up by a controller that serves no plugin: what it can and cannot do then. */
export const NO_PLUGINS_WARNING =
  'no volume plugin is configured: claims bind only to existing PVs, claims of a class get ExternalProvisioning and wait, ' +
  'and a released Delete or Recycle volume goes Failed; configure one with --host-path-root, --nfs-mount or --cloud-provider ' +
  '(with node agents serving host-path.pv-controller.io this is expected: their claims still bind here)';

export interface ControllerDeps {
  /** The controllers to run, in sync order (controller/modules.ts lists the shipped ones). */
  modules: readonly ControllerModule[];
  /** Volume plugins, for the provisioner, reclaimer and orphan monitor (default: none). */
  plugins?: PluginRegistry;
  /** Use this instead of loading `opts.kubeconfig`. */
  kubeConfig?: KubeConfig;
  logger?: Logger;
  now?: () => Date;
  /** Informer reconnect-after-silence (default 130 s) and reconnect backoff, for tests. */
  informerInactivityMs?: number;
  informerBackoff?: () => Backoff;
  /** The Prometheus registry to fill (default: a fresh one). */
  metrics?: ControllerMetrics;
}

export interface ControllerStats {
  leading: boolean;
  synced: boolean;
  requests: Record<string, VerbCounts>;
  throttled: number;
  queues: { claims: QueueStats; volumes: QueueStats };
  events: KubeEventRecorder['counts'];
  informers: Record<string, Reflector<never>['counts']>;
  objects: { volumes: number; claims: number; classes: number; pods: number; nodes: number };
}

export interface RunningController {
  stop(): Promise<void>;
  /** Caches synced, leading (or election off), workers running. */
  ready(): boolean;
  stats(): ControllerStats;
  /** Resolves if the lease is lost (never on a clean stop). */
  readonly lost: Promise<void>;
  readonly context: ControllerContext;
  readonly api: KubeApiClient;
  /** Holder identity when electing. */
  readonly identity?: string;
  /** Usage collector, Prometheus registry and the /metrics /healthz /readyz server (`server` is absent when it could not bind). */
  readonly observability: RunningObservability;
}

export async function startController(opts: ControllerOptions, deps: ControllerDeps): Promise<RunningController> {
  const controller = new ControllerProcess(opts, deps);
  controller.observability = await startControllerObservability(controller, {
    metricsBindAddress: opts.metricsBindAddress,
    volumeStatsAggPeriodMs: opts.volumeStatsAggPeriodMs,
    ...(controller.identity !== undefined ? { leaseName: opts.leaderElection.resourceName } : {}),
    plugins: controller.plugins,
    metrics: controller.metrics,
    bindFailure: 'log',
    logger: controller.log,
  });
  return controller;
}

class ControllerProcess implements RunningController {
  readonly log: Logger;
  readonly plugins: PluginRegistry;
  readonly metrics: ControllerMetrics;
  readonly api: KubeApiClient;
  readonly context: ControllerContext;
  readonly lost: Promise<void>;
  readonly identity?: string;
  observability!: RunningObservability;
  private readonly transport: RestTransport;
  private readonly stores: Stores = makeStores();
  private readonly elector?: LeaderElector;
  private readonly events: KubeEventRecorder;
  private readonly claimQueue: WorkQueue;
  private readonly volumeQueue: WorkQueue;
  private readonly modules: ModuleSet;
  private readonly reflectors: Reflector<never>[];
  private lostResolve: () => void = () => undefined;
  private stopping = false;
  private workersStarted = false;
  /** See ControllerContext.claimsFenceResourceVersion: read once leading, before the workers run. */
  private claimsFence: number | undefined;
  private resyncTimer: NodeJS.Timeout | undefined;
  /** Set by halt(): workers that were still starting must not start anything afterwards. */
  private halted = false;
  private stopped: Promise<void> | undefined;

  constructor(
    private readonly opts: ControllerOptions,
    deps: ControllerDeps,
  ) {
    this.log = deps.logger ?? createControllerLogger(opts.logFormat, opts.logLevel);
    this.plugins = deps.plugins ?? new PluginRegistry();
    this.metrics = deps.metrics ?? new ControllerMetrics();
    this.lost = new Promise<void>((resolve) => (this.lostResolve = resolve));
    this.transport = new RestTransport(deps.kubeConfig ?? loadKubeConfig(opts.kubeconfig), {
      qps: opts.kubeApiQps,
      burst: opts.kubeApiBurst,
      observer: this.metrics.restClient,
    });
    this.elector = opts.leaderElection.enabled ? this.makeElector() : undefined;
    if (this.elector) this.identity = this.elector.identity;
    this.api = new KubeApiClient(this.transport, { volumes: this.stores.volumes, claims: this.stores.claims, writeGuard: () => this.writeRefusal() });
    this.events = new KubeEventRecorder(this.api, this.log.child({ component: 'events' }), { host: os.hostname() });
    this.claimQueue = new WorkQueue({ name: 'claims', log: this.log, latency: this.metrics.workqueue });
    this.volumeQueue = new WorkQueue({ name: 'volumes', log: this.log, latency: this.metrics.workqueue });
    this.context = this.makeContext(deps);
    const informers = moduleInformerFactory(this.transport, this.log, { inactivityMs: deps.informerInactivityMs, backoff: deps.informerBackoff });
    const env = { options: opts, plugins: this.plugins, metrics: this.metrics.operations, orphans: this.metrics.orphans, unusedConditions: this.metrics.unusedConditions, changes: this.stores, rest: this.transport, informers };
    this.modules = new ModuleSet(deps.modules, this.context, env, this.log);
    wireEnqueueRules(this.stores, { claim: (key) => this.claimQueue.add(key), volume: (name) => this.volumeQueue.add(name) });
    this.reflectors = makeReflectors(this.stores, this.transport, this.log, {
      inactivityMs: deps.informerInactivityMs,
      backoff: deps.informerBackoff,
      watchNodes: watchesNodes(opts),
    });
    for (const r of this.reflectors) r.start();
    this.elector?.start();
    if (!this.elector) void this.startWorkers();
  }

  private makeElector(): LeaderElector {
    const le = this.opts.leaderElection;
    return new LeaderElector(
      this.transport,
      { namespace: le.resourceNamespace, name: le.resourceName, leaseDurationMs: le.leaseDurationMs, renewDeadlineMs: le.renewDeadlineMs, retryPeriodMs: le.retryPeriodMs },
      { onStartedLeading: () => void this.startWorkers(), onStoppedLeading: () => void this.onLost() },
      this.log.child({ component: 'leader-election' }),
    );
  }

  private makeContext(deps: ControllerDeps): ControllerContext {
    const { stores } = this;
    return {
      volumes: stores.volumes,
      claims: stores.claims,
      classes: stores.classes,
      pods: stores.pods,
      ...(watchesNodes(this.opts) ? { nodes: stores.nodes } : {}),
      api: this.api,
      events: this.events,
      enqueueClaim: (key) => this.claimQueue.add(key),
      enqueueVolume: (name) => this.volumeQueue.add(name),
      now: deps.now ?? (() => new Date()),
      claimsFenceResourceVersion: () => this.claimsFence,
    };
  }

  private writeRefusal(): string | undefined {
    if (this.stopping) return 'controller is stopping';
    return this.elector && !this.elector.isLeader() ? 'not the leader' : undefined;
  }

  private synced(): boolean {
    return this.reflectors.every((r) => r.hasSynced());
  }

  private async startWorkers(): Promise<void> {
    while (!this.synced() && !this.stopping) await new Promise((r) => setTimeout(r, 20));
    if (this.workersStarted || this.stopping || (this.elector && !this.elector.isLeader())) return;
    this.workersStarted = true;
    this.claimsFence = await readClaimsFence(this.transport, this.log);
    // stop() may have halted the controller while it read the fence or started its modules: start
    // nothing after that (a resync timer set after halt() would keep a stopped controller's process alive).
    if (this.halted) return;
    await this.modules.start();
    if (this.halted) {
      await this.modules.stop();
      return;
    }
    const { concurrentSyncs } = this.opts;
    this.claimQueue.run(concurrentSyncs, (key) => this.modules.syncClaim(this.stores.claims, key));
    this.volumeQueue.run(concurrentSyncs, (name) => this.modules.syncVolume(this.stores.volumes, name));
    this.resync();
    this.resyncTimer = setInterval(() => this.resync(), this.opts.syncPeriodMs);
    const plugins = this.plugins.all().map((p) => p.name);
    this.log.info({ controllers: this.opts.controllers, workers: concurrentSyncs, plugins }, 'controller started');
    if (plugins.length === 0) this.log.warn(NO_PLUGINS_WARNING);
  }

  private resync(): void {
    for (const key of this.stores.claims.keys()) this.claimQueue.add(key);
    for (const key of this.stores.volumes.keys()) this.volumeQueue.add(key);
  }

  private async halt(): Promise<void> {
    this.halted = true;
    clearInterval(this.resyncTimer);
    await Promise.all([this.claimQueue.shutDown(), this.volumeQueue.shutDown()]);
    await this.modules.stop();
  }

  private async onLost(): Promise<void> {
    await this.halt();
    this.stopping = true;
    this.lostResolve();
  }

  ready(): boolean {
    return this.workersStarted && !this.stopping && this.synced() && (!this.elector || this.elector.isLeader());
  }

  stop(): Promise<void> {
    this.stopped ??= (async () => {
      await this.observability.stop();
      await this.halt();
      await Promise.race([this.events.flush(), new Promise((r) => setTimeout(r, 2000).unref())]);
      this.stopping = true;
      await this.elector?.stop();
      await Promise.all(this.reflectors.map((r) => r.stop()));
      this.transport.close();
      this.log.info('controller stopped');
    })();
    return this.stopped;
  }

  stats(): ControllerStats {
    const { stores } = this;
    return {
      leading: this.elector ? this.elector.isLeader() : true,
      synced: this.synced(),
      requests: this.transport.counters.snapshot(),
      throttled: this.transport.throttled(),
      queues: { claims: this.claimQueue.stats(), volumes: this.volumeQueue.stats() },
      events: { ...this.events.counts },
      informers: Object.fromEntries(this.reflectors.map((r) => [r.kind, { ...r.counts }])),
      objects: { volumes: stores.volumes.size(), claims: stores.claims.size(), classes: stores.classes.size(), pods: stores.pods.size(), nodes: stores.nodes.size() },
    };
  }
}
