/**
 * The controller's Prometheus metrics, in a dedicated prom-client Registry (never the global one),
 * under the names existing dashboards know:
 * - kubelet's volume stats, `kubelet_volume_stats_{capacity,available,used}_bytes` and
 *   `kubelet_volume_stats_inodes{,_free,_used}` {namespace, persistentvolumeclaim}, from the usage
 *   collector's cache (the last good value of each Bound PV whose claim we know);
 * - kube-controller-manager's `pv_collector_{bound,unbound}_pv_count` {storage_class},
 *   `pv_collector_{bound,unbound}_pvc_count` {namespace, storage_class, volume_attributes_class}
 *   (the labels of Kubernetes ≥ 1.31; a `sum by (namespace)` still works) and
 *   `pv_collector_total_pv_count` {plugin_name, volume_mode}, counted from the stores on scrape;
 * - plugin calls, under kube-controller-manager's and external-provisioner's names
 *   (operation-metrics.ts: `storage_operation_duration_seconds`, `volume_operation_total_seconds`,
 *   `controller_persistentvolumeclaim_provision_*`, `controller_persistentvolume_delete_*`, ...);
 * - client-go's work-queue metrics with real histograms (workqueue-metrics.ts) and REST client
 *   metrics `rest_client_requests_total`, `rest_client_request_duration_seconds` (rest-client-metrics.ts);
 * - prom-client's default `process_*` and `nodejs_*` metrics, once the process asks for them
 *   (collectProcessMetrics: the CLI's controller, up and node-agent do);
 * - `leader_election_master_status` {name};
 * - per Failed PV, `pv_controller_persistentvolume_failed` {persistentvolume, storage_class} = 1
 *   (kube-controller-manager has no phase metric; a series per Failed PV lets an alert name it);
 * - what collection costs: `pv_collector_volume_stats_collection_duration_seconds` {volume_plugin},
 *   `pv_collector_volume_stats_last_pass_duration_seconds`, `..._last_pass_timestamp_seconds`,
 *   `pv_collector_volume_stats_errors_total` {reason}, and per claim whose latest measurement
 *   failed, `pv_collector_volume_stats_failing` {namespace, persistentvolumeclaim, reason} = 1.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { storageClassOfClaim, storageClassOfVolume, volumeModeOf } from '@pv-controller/kube/volume-helpers.js';
import type { PassSummary, UsageCollectionObserver, UsageErrorReason, VolumeUsage } from './collector.js';
import type { VolumeMetrics } from './provider.js';
import { NOT_AVAILABLE, registerOperationMetrics, type OperationObserver } from './operation-metrics.js';
import { registerRestClientMetrics, type RestClientObserver } from './rest-client-metrics.js';
import { registerWorkqueueMetrics, type QueueCounters, type QueueLatencyObserver } from './workqueue-metrics.js';

export { NOT_AVAILABLE, type OperationContext, type OperationObserver } from './operation-metrics.js';
export type { QueueCounters } from './workqueue-metrics.js';

/** Where scrape-time values come from; every part is optional and may be set late. */
export interface MetricsSources {
  volumes?: { list(): PersistentVolume[] };
  claims?: { list(): PersistentVolumeClaim[] };
  usage?: () => readonly VolumeUsage[];
  queues?: () => Record<string, QueueCounters>;
  /** Present only when leader election is on. */
  leaderElection?: { name: string; isLeader(): boolean };
  /** The plugin that owns a PV (for pv_collector_total_pv_count); undefined ⇒ "N/A". */
  pluginNameOf?: (pv: PersistentVolume) => string | undefined;
}

/** Receives each attempt to write a claim's Unused condition (kube-controller-manager's SLI of KEP-5541). */
export interface UnusedConditionObserver {
  unusedConditionSync(result: 'success' | 'error'): void;
}

/** kube-controller-manager 1.37's count of the same writes (its pvc-protection's Unused condition), by result. */
function unusedConditionCounter(registry: Registry): UnusedConditionObserver {
  const syncs = new Counter({
    name: 'pvc_protection_controller_unused_condition_syncs_total',
    help: 'Number of PVC Unused condition status update attempts',
    labelNames: ['result'],
    registers: [registry],
  });
  return { unusedConditionSync: (result) => syncs.inc({ result }) };
}

/** Receives the result of each orphan scan: orphaned backing volumes per plugin. */
export interface OrphanObserver {
  orphanCounts(counts: ReadonlyMap<string, number>): void;
}

const VOLUME_STATS: Array<[string, string, (m: VolumeMetrics) => bigint]> = [
  ['kubelet_volume_stats_capacity_bytes', 'Capacity in bytes of the volume', (m) => m.capacityBytes],
  ['kubelet_volume_stats_available_bytes', 'Number of available bytes in the volume', (m) => m.availableBytes],
  ['kubelet_volume_stats_used_bytes', 'Number of used bytes in the volume', (m) => m.usedBytes],
  ['kubelet_volume_stats_inodes', 'Maximum number of inodes in the volume', (m) => m.inodes],
  ['kubelet_volume_stats_inodes_free', 'Number of free inodes in the volume', (m) => m.inodesFree],
  ['kubelet_volume_stats_inodes_used', 'Number of used inodes in the volume', (m) => m.inodesUsed],
];
const CLAIM_LABELS = ['namespace', 'persistentvolumeclaim'] as const;
const COLLECTION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

export class ControllerMetrics {
  readonly registry = new Registry();
  private sources: MetricsSources = {};
  /** Hand to the provisioner / reclaimer: one finished plugin call. */
  readonly operations: OperationObserver;
  /** Hand to the work queues: each item's wait and work time. */
  readonly workqueue: QueueLatencyObserver;
  /** Hand to the REST transport: each request to the API server. */
  readonly restClient: RestClientObserver;
  private processMetrics = false;
  private readonly collectionDuration: Histogram<'volume_plugin'>;
  private readonly collectionErrors: Counter<'reason'>;
  private readonly lastPassDuration: Gauge;
  private readonly lastPassTimestamp: Gauge;

  constructor() {
    const registers = [this.registry];
    this.registerVolumeStats();
    this.registerCounts();
    this.workqueue = registerWorkqueueMetrics(this.registry, () => Object.entries(this.sources.queues?.() ?? {}));
    this.operations = registerOperationMetrics(this.registry);
    this.restClient = registerRestClientMetrics(this.registry);
    this.collectionDuration = new Histogram({
      name: 'pv_collector_volume_stats_collection_duration_seconds',
      help: 'Time to measure the usage of one volume',
      labelNames: ['volume_plugin'],
      buckets: COLLECTION_BUCKETS,
      registers,
    });
    this.collectionErrors = new Counter({
      name: 'pv_collector_volume_stats_errors_total',
      help: 'Volume usage measurements that failed, by reason',
      labelNames: ['reason'],
      registers,
    });
    this.lastPassDuration = new Gauge({
      name: 'pv_collector_volume_stats_last_pass_duration_seconds',
      help: 'Duration of the last full volume usage collection pass',
      registers,
    });
    this.lastPassTimestamp = new Gauge({
      name: 'pv_collector_volume_stats_last_pass_timestamp_seconds',
      help: 'Unix time the last full volume usage collection pass finished',
      registers,
    });
  }

  /** Adds or replaces scrape-time sources (the controller's stores exist only once it runs). */
  setSources(sources: MetricsSources): void {
    this.sources = { ...this.sources, ...sources };
  }

  /**
   * Adds prom-client's default process_* and nodejs_* metrics (CPU, memory, file descriptors, event
   * loop lag, GC) to this registry. Once per process: they describe the process, not this object.
   */
  collectProcessMetrics(): void {
    if (this.processMetrics) return;
    this.processMetrics = true;
    collectDefaultMetrics({ register: this.registry });
  }

  private readonly orphanGauge = new Gauge({
    name: 'pv_controller_orphaned_volumes',
    help: 'Backing volumes carrying this cluster\'s mark that no PV or provisioning claim refers to, at the last scan',
    labelNames: ['plugin'],
    registers: [this.registry],
  });

  /** Hand to the orphan monitor: each scan replaces the previous counts. */
  readonly orphans: OrphanObserver = {
    orphanCounts: (counts) => {
      this.orphanGauge.reset();
      for (const [plugin, n] of counts) this.orphanGauge.set({ plugin }, n);
    },
  };

  /** Hand to the pvc-unused module: each status write of the Unused condition, and how it ended. */
  readonly unusedConditions: UnusedConditionObserver = unusedConditionCounter(this.registry);

  /** Hand to the VolumeUsageCollector. */
  readonly collection: UsageCollectionObserver = {
    volumeMeasured: (plugin: string, seconds: number, error?: UsageErrorReason) => {
      this.collectionDuration.observe({ volume_plugin: plugin }, seconds);
      if (error) this.collectionErrors.inc({ reason: error });
    },
    passFinished: (summary: PassSummary) => {
      this.lastPassDuration.set(summary.seconds);
      this.lastPassTimestamp.set(summary.finishedAt.getTime() / 1000);
    },
  };

  /** The exposition text and its content type. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  private registerVolumeStats(): void {
    const registers = [this.registry];
    const usage = (): readonly VolumeUsage[] => this.sources.usage?.() ?? [];
    for (const [name, help, pick] of VOLUME_STATS) {
      new Gauge({
        name,
        help,
        labelNames: CLAIM_LABELS,
        registers,
        collect() {
          this.reset();
          for (const u of usage()) {
            if (u.metrics) this.set({ namespace: u.namespace, persistentvolumeclaim: u.claimName }, Number(pick(u.metrics)));
          }
        },
      });
    }
    new Gauge({
      name: 'pv_collector_volume_stats_failing',
      help: '1 for each claim whose latest volume usage measurement failed (numbers shown are older or absent)',
      labelNames: [...CLAIM_LABELS, 'reason'],
      registers,
      collect() {
        this.reset();
        for (const u of usage()) {
          if (u.error) this.set({ namespace: u.namespace, persistentvolumeclaim: u.claimName, reason: u.error.reason }, 1);
        }
      },
    });
  }

  private registerCounts(): void {
    const registers = [this.registry];
    const volumes = (): PersistentVolume[] => this.sources.volumes?.list() ?? [];
    const claims = (): PersistentVolumeClaim[] => this.sources.claims?.list() ?? [];
    const pluginOf = (pv: PersistentVolume): string => this.sources.pluginNameOf?.(pv) ?? NOT_AVAILABLE;
    const pvCount = (name: string, help: string, bound: boolean): void => {
      countingGauge(name, help, ['storage_class'], registers, () =>
        volumes()
          .filter((pv) => (pv.status?.phase === 'Bound') === bound)
          .map((pv) => ({ storage_class: storageClassOfVolume(pv) })),
      );
    };
    const pvcCount = (name: string, help: string, bound: boolean): void => {
      countingGauge(name, help, ['namespace', 'storage_class', 'volume_attributes_class'], registers, () =>
        claims()
          .filter((pvc) => (pvc.status?.phase === 'Bound') === bound)
          .map((pvc) => ({
            namespace: pvc.metadata.namespace ?? '',
            storage_class: storageClassOfClaim(pvc) ?? '',
            volume_attributes_class: pvc.spec.volumeAttributesClassName ?? '',
          })),
      );
    };
    pvCount('pv_collector_bound_pv_count', 'Gauge measuring number of persistent volume currently bound', true);
    pvCount('pv_collector_unbound_pv_count', 'Gauge measuring number of persistent volume currently unbound', false);
    pvcCount('pv_collector_bound_pvc_count', 'Gauge measuring number of persistent volume claim currently bound', true);
    pvcCount('pv_collector_unbound_pvc_count', 'Gauge measuring number of persistent volume claim currently unbound', false);
    countingGauge('pv_collector_total_pv_count', 'Gauge measuring total number of persistent volumes', ['plugin_name', 'volume_mode'], registers, () =>
      volumes().map((pv) => ({ plugin_name: pluginOf(pv), volume_mode: volumeModeOf(pv) })),
    );
    countingGauge('pv_controller_persistentvolume_failed', 'Persistent volumes in phase Failed (1 per volume)', ['persistentvolume', 'storage_class'], registers, () =>
      volumes()
        .filter((pv) => pv.status?.phase === 'Failed')
        .map((pv) => ({ persistentvolume: pv.metadata.name ?? '', storage_class: storageClassOfVolume(pv) })),
    );
    const leader = (): MetricsSources['leaderElection'] => this.sources.leaderElection;
    new Gauge({
      name: 'leader_election_master_status',
      help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master',
      labelNames: ['name'],
      registers,
      collect() {
        this.reset();
        const le = leader();
        if (le) this.set({ name: le.name }, le.isLeader() ? 1 : 0);
      },
    });
  }
}

/** A gauge counting label sets, recomputed on every scrape (stale label sets disappear). */
function countingGauge<L extends string>(
  name: string,
  help: string,
  labelNames: L[],
  registers: Registry[],
  rows: () => Array<Record<L, string>>,
): void {
  new Gauge<L>({
    name,
    help,
    labelNames,
    registers,
    collect() {
      this.reset();
      for (const labels of rows()) this.inc(labels as Partial<Record<L, string>>, 1);
    },
  });
}
