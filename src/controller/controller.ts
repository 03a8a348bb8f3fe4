/**
 * Wiring: client → reflectors (PV, PVC, StorageClass, Pod) → merged stores → queues (claims,
 * volumes) → workers calling the binder. Workers start once every cache has synced and, with
 * leader election, once this process leads; losing the lease refuses every further write at once
 * and ends the controller (`lost` resolves; the CLI exits non-zero, like kube-controller-manager).
 *
 * Extension point: `deps.modules` — the provisioner, reclaimer and protection controllers plug in
 * as ControllerModules contributing BinderHooks (provisionClaim, reclaimVolume,
 * servesProvisioner, claimBusy) and/or per-key syncs, enabled by `--controllers`.
 */
import os from 'node:os';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger } from 'pino';
import type { PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '../kube/types.js';
import { syncClaim, syncVolume, VolumeIndex, type BinderHooks } from './binder/index.js';
import { Backoff } from './cache/backoff.js';
import { MergedStore } from './cache/merged-store.js';
import { Reflector } from './cache/reflector.js';
import { KubeApiClient } from './client/kube-api-client.js';
import { loadKubeConfig } from './client/kubeconfig.js';
import { listCallFor } from './client/list-calls.js';
import { rvNumber } from './cache/resource-version.js';
import { paths } from './client/paths.js';
import type { VerbCounts } from './client/request-counters.js';
import { RestTransport } from './client/transport.js';
import { DONE, type ControllerContext, type SyncResult } from './context.js';
import { KubeEventRecorder } from './events.js';
import { LeaderElector } from './leader-election.js';
import { createControllerLogger } from './log.js';
import { PendingClaims } from './pending-claims.js';
import { CONTROLLER_NAMES, type ControllerName, type ControllerOptions } from './options.js';
import { WorkQueue, type QueueStats } from './queue.js';
import { pluginRegistryOf } from './provisioner/module.js';
import { startControllerObservability, type RunningObservability } from '../metrics/observability.js';
import { ControllerMetrics, type OperationObserver, type OrphanObserver } from '../metrics/prometheus.js';

/**
 * A controller that plugs into this process (provisioner, reclaimer, protection, …): built once
 * the context exists; contributes BinderHooks and/or its own per-key syncs, run after the
 * binder's for every claim / volume key. Enabled by `--controllers` when its name is listed in
 * CONTROLLER_NAMES; other names always run.
 */
export interface ControllerModule {
  name: ControllerName | string;
  create(ctx: ControllerContext, env: ModuleEnv): ModuleInstance;
}

export interface ModuleEnv {
  options: ControllerOptions;
  plugins: unknown;
  logger: Logger;
  /** Where plugin calls are reported (storage_operation_duration_seconds, volume_operation_total_errors). */
  metrics?: OperationObserver;
  /** Where orphan scans are reported (pv_controller_orphaned_volumes). */
  orphans?: OrphanObserver;
}

export interface ModuleInstance {
  binderHooks?: Partial<BinderHooks>;
  syncClaim?(claim: PersistentVolumeClaim): Promise<SyncResult>;
  syncVolume?(pv: PersistentVolume): Promise<SyncResult>;
  start?(): void | Promise<void>;
  stop?(): void | Promise<void>;
}

export interface ControllerDeps {
  /** Volume plugins, for the provisioner and reclaimer modules (opaque here). */
  plugins?: unknown;
  modules?: ControllerModule[];
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
  objects: { volumes: number; claims: number; classes: number; pods: number };
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

const CLAIM_KEY = (ns: string | undefined, name: string | undefined): string => `${ns ?? ''}/${name ?? ''}`;

export async function startController(opts: ControllerOptions, deps: ControllerDeps = {}): Promise<RunningController> {
  const log = deps.logger ?? createControllerLogger(opts.logFormat, opts.logLevel);
  const kc = deps.kubeConfig ?? loadKubeConfig(opts.kubeconfig);
  const transport = new RestTransport(kc, { qps: opts.kubeApiQps, burst: opts.kubeApiBurst });
  const stores = {
    volumes: new MergedStore<PersistentVolume>(),
    claims: new MergedStore<PersistentVolumeClaim>(),
    classes: new MergedStore<StorageClass>(),
    pods: new MergedStore<Pod>(),
  };
  let stopping = false;
  let lostResolve: () => void = () => undefined;
  const lost = new Promise<void>((resolve) => (lostResolve = resolve));
  const elector = opts.leaderElection.enabled
    ? new LeaderElector(
        transport,
        {
          namespace: opts.leaderElection.resourceNamespace,
          name: opts.leaderElection.resourceName,
          leaseDurationMs: opts.leaderElection.leaseDurationMs,
          renewDeadlineMs: opts.leaderElection.renewDeadlineMs,
          retryPeriodMs: opts.leaderElection.retryPeriodMs,
        },
        { onStartedLeading: () => void maybeStartWorkers(), onStoppedLeading: () => void onLost() },
        log.child({ component: 'leader-election' }),
      )
    : undefined;
  const api = new KubeApiClient(transport, {
    volumes: stores.volumes,
    claims: stores.claims,
    writeGuard: () => (stopping ? 'controller is stopping' : elector && !elector.isLeader() ? 'not the leader' : undefined),
  });
  const events = new KubeEventRecorder(api, log.child({ component: 'events' }), { host: os.hostname() });
  const index = new VolumeIndex();
  const claimQueue = new WorkQueue({ name: 'claims', log });
  const volumeQueue = new WorkQueue({ name: 'volumes', log });
  const ctx: ControllerContext = {
    volumes: stores.volumes,
    claims: stores.claims,
    classes: stores.classes,
    pods: stores.pods,
    api,
    events,
    enqueueClaim: (key) => claimQueue.add(key),
    enqueueVolume: (name) => volumeQueue.add(name),
    now: deps.now ?? (() => new Date()),
    claimsFenceResourceVersion: () => claimsFence,
  };
  wireChangeHandlers(stores, index, claimQueue, volumeQueue);

  const metrics = deps.metrics ?? new ControllerMetrics();
  const modules = (deps.modules ?? [])
    .filter((m) => isEnabled(m.name, opts.controllers))
    .map((m) => m.create(ctx, { options: opts, plugins: deps.plugins, logger: log.child({ component: m.name }), metrics: metrics.operations, orphans: metrics.orphans }));
  const hooks = mergeHooks(modules.map((m) => m.binderHooks ?? {}), log.child({ component: 'binder' }));
  const binderOn = opts.controllers.includes('binder');
  const reflectors = makeReflectors(stores, transport, log, deps);
  for (const r of reflectors) r.start();
  elector?.start();

  let workersStarted = false;
  /** See ControllerContext.claimsFenceResourceVersion: read once leading, before the workers run. */
  let claimsFence: number | undefined;
  let resyncTimer: NodeJS.Timeout | undefined;
  const synced = (): boolean => reflectors.every((r) => r.hasSynced());

  async function maybeStartWorkers(): Promise<void> {
    while (!synced() && !stopping) await new Promise((r) => setTimeout(r, 20));
    if (workersStarted || stopping || (elector && !elector.isLeader())) return;
    workersStarted = true;
    claimsFence = await readClaimsFence(transport, log);
    for (const m of modules) await m.start?.();
    claimQueue.run(opts.concurrentSyncs, (key) => syncClaimKey(key));
    volumeQueue.run(opts.concurrentSyncs, (key) => syncVolumeKey(key));
    resync();
    resyncTimer = setInterval(resync, opts.syncPeriodMs);
    log.info({ controllers: opts.controllers, workers: opts.concurrentSyncs }, 'controller started');
  }

  function resync(): void {
    for (const key of stores.claims.keys()) claimQueue.add(key);
    for (const key of stores.volumes.keys()) volumeQueue.add(key);
  }

  async function syncClaimKey(key: string): Promise<SyncResult> {
    const claim = stores.claims.get(key);
    if (!claim) return DONE;
    const results = binderOn ? [await syncClaim(ctx, index, claim, hooks)] : [];
    for (const m of modules) if (m.syncClaim) results.push(await m.syncClaim(stores.claims.get(key) ?? claim));
    return mostUrgent(results);
  }

  async function syncVolumeKey(name: string): Promise<SyncResult> {
    const pv = stores.volumes.get(name);
    if (!pv) return DONE;
    const results = binderOn ? [await syncVolume(ctx, index, pv, hooks)] : [];
    for (const m of modules) if (m.syncVolume) results.push(await m.syncVolume(stores.volumes.get(name) ?? pv));
    return mostUrgent(results);
  }

  async function halt(): Promise<void> {
    clearInterval(resyncTimer);
    await Promise.all([claimQueue.shutDown(), volumeQueue.shutDown()]);
    for (const m of modules) await m.stop?.();
  }

  async function onLost(): Promise<void> {
    await halt();
    stopping = true;
    lostResolve();
  }

  if (!elector) void maybeStartWorkers();
  let stopped: Promise<void> | undefined;
  const running: Omit<RunningController, 'observability'> = {
    lost,
    context: ctx,
    api,
    ...(elector ? { identity: elector.identity } : {}),
    ready: () => workersStarted && !stopping && synced() && (!elector || elector.isLeader()),
    stop: () =>
      (stopped ??= (async () => {
        await observability.stop();
        await halt();
        await Promise.race([events.flush(), new Promise((r) => setTimeout(r, 2000).unref())]);
        stopping = true;
        await elector?.stop();
        await Promise.all(reflectors.map((r) => r.stop()));
        transport.close();
        log.info('controller stopped');
      })()),
    stats: () => ({
      leading: elector ? elector.isLeader() : true,
      synced: synced(),
      requests: transport.counters.snapshot(),
      throttled: transport.throttled(),
      queues: { claims: claimQueue.stats(), volumes: volumeQueue.stats() },
      events: { ...events.counts },
      informers: Object.fromEntries(reflectors.map((r) => [r.kind, { ...r.counts }])),
      objects: {
        volumes: stores.volumes.size(),
        claims: stores.claims.size(),
        classes: stores.classes.size(),
        pods: stores.pods.size(),
      },
    }),
  };
  const observability = await startControllerObservability(running, {
    metricsBindAddress: opts.metricsBindAddress,
    volumeStatsAggPeriodMs: opts.volumeStatsAggPeriodMs,
    ...(elector ? { leaseName: opts.leaderElection.resourceName } : {}),
    plugins: pluginRegistryOf(deps.plugins),
    metrics,
    bindFailure: 'log',
    logger: log,
  });
  return { ...running, observability };
}

type Stores = {
  volumes: MergedStore<PersistentVolume>;
  claims: MergedStore<PersistentVolumeClaim>;
  classes: MergedStore<StorageClass>;
  pods: MergedStore<Pod>;
};

/**
 * Enqueue rules as upstream: a PV change enqueues the PV and, when its claimRef carries a uid and
 * that claim exists, the claim; a deleted PV enqueues the claim it pointed at; a PVC change
 * enqueues the PVC; a deleted PVC enqueues its volume; a pod change enqueues the claims it uses.
 * Own writes only update the index (their informer echo, same resourceVersion, enqueues).
 */
function wireChangeHandlers(stores: Stores, index: VolumeIndex, claims: WorkQueue, volumes: WorkQueue): void {
  const pending = new PendingClaims();
  stores.volumes.onChange((name, pv, prev, origin) => {
    if (pv) index.upsert(pv);
    else index.remove(name);
    if (pv) for (const key of pending.wokenBy(pv, prev)) claims.add(key);
    const ref = (pv ?? prev)?.spec.claimRef;
    // A deletion wakes the other side whoever saw it first: when our own write (a finalizer
    // removed) is what deletes the object, its answer may reach the store before the watch event.
    if (!pv && ref) claims.add(CLAIM_KEY(ref.namespace, ref.name));
    if (origin === 'own-write') return;
    volumes.add(name);
    if (pv && ref?.uid && stores.claims.get(CLAIM_KEY(ref.namespace, ref.name))) claims.add(CLAIM_KEY(ref.namespace, ref.name));
  });
  stores.claims.onChange((key, pvc, prev, origin) => {
    pending.track(key, pvc);
    if (!pvc && prev?.spec.volumeName) volumes.add(prev.spec.volumeName);
    if (origin === 'own-write') return;
    claims.add(key);
  });
  // A pod appearing, changing or going away can unblock its claims (delayed binding, protection).
  stores.pods.onChange((_key, pod, prev) => {
    const p = pod ?? prev;
    for (const v of p?.spec?.volumes ?? []) {
      if (v.persistentVolumeClaim?.claimName) claims.add(CLAIM_KEY(p?.metadata.namespace, v.persistentVolumeClaim.claimName));
    }
  });
}

function makeReflectors(stores: Stores, transport: RestTransport, log: Logger, deps: ControllerDeps): Reflector<never>[] {
  const make = <T extends PersistentVolume | PersistentVolumeClaim | StorageClass | Pod>(
    kind: string,
    path: string,
    store: MergedStore<T>,
  ): Reflector<never> =>
    new Reflector<T>({
      kind,
      path,
      store,
      transport,
      log: log.child({ component: 'reflector', kind }),
      ...(deps.informerInactivityMs ? { inactivityTimeoutMs: deps.informerInactivityMs } : {}),
      ...(deps.informerBackoff ? { backoff: deps.informerBackoff() } : {}),
    }) as unknown as Reflector<never>;
  return [
    make('PersistentVolume', paths.volumes(), stores.volumes),
    make('PersistentVolumeClaim', paths.claimsAll(), stores.claims),
    make('StorageClass', paths.storageClasses(), stores.classes),
    make('Pod', paths.podsAll(), stores.pods),
  ];
}

/** The server's current resourceVersion (a one-item quorum list); undefined when it cannot be read. */
async function readClaimsFence(transport: RestTransport, log: Logger): Promise<number | undefined> {
  try {
    const page = await listCallFor<PersistentVolumeClaim>(transport, paths.claimsAll())({ limit: 1 });
    const rv = rvNumber(page.resourceVersion);
    return rv >= 0 ? rv : undefined;
  } catch (err) {
    log.warn({ err: err instanceof Error ? err.message : String(err) }, 'could not read the claims fence; binding re-reads claims live');
    return undefined;
  }
}

function isEnabled(name: string, enabled: ControllerName[]): boolean {
  return !(CONTROLLER_NAMES as readonly string[]).includes(name) || enabled.includes(name as ControllerName);
}

/** Of several syncs' results: retry beats the shortest requeueAfter beats done. */
export function mostUrgent(results: SyncResult[]): SyncResult {
  let best: SyncResult = DONE;
  for (const r of results) {
    if (r.kind === 'retry') return r;
    if (r.kind === 'requeueAfter' && (best.kind !== 'requeueAfter' || r.ms < best.ms)) best = r;
  }
  return best;
}

/** One BinderHooks from every module's: the first provider of each hook wins. */
function mergeHooks(parts: Partial<BinderHooks>[], logger: Logger): BinderHooks {
  const hooks: BinderHooks = { logger };
  for (const p of parts) {
    hooks.provisionClaim ??= p.provisionClaim;
    hooks.reclaimVolume ??= p.reclaimVolume;
  }
  const busy = parts.filter((p) => p.claimBusy);
  if (busy.length > 0) hooks.claimBusy = (key) => busy.some((p) => p.claimBusy!(key));
  const servers = parts.filter((p) => p.servesProvisioner || p.provisionClaim);
  if (servers.length > 0) {
    hooks.servesProvisioner = (name) => servers.some((p) => (p.servesProvisioner ? p.servesProvisioner(name) : true));
  }
  return hooks;
}
