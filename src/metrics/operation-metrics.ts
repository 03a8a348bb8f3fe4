/**
 * Metrics of plugin calls (provision, delete, recycle, expand, modify), under the names the
 * upstream components use for the same quantities:
 * - kube-controller-manager (pkg/volume/util, pkg/controller/volume/persistentvolume/metrics):
 *   `storage_operation_duration_seconds` {volume_plugin, operation_name, status, migrated} per call,
 *   `volume_operation_total_seconds` {plugin_name, operation_name} from an operation's first attempt
 *   to the attempt that succeeded, and its error counters `volume_operation_errors_total` and the
 *   deprecated (Kubernetes 1.36) `volume_operation_total_errors` {plugin_name, operation_name};
 * - external-provisioner (sig-storage-lib-external-provisioner, subsystem `controller`):
 *   `controller_persistentvolumeclaim_provision_{total,failed_total,duration_seconds}` {class, source}
 *   and `controller_persistentvolume_delete_{total,failed_total,duration_seconds}` {class}.
 * Every label is bounded by the cluster's configuration (plugins, classes, data source kinds);
 * no claim or volume name is a label.
 */
import { Counter, Histogram, type Registry } from 'prom-client';

/** What the caller knows about the object an operation is for (all optional). */
export interface OperationContext {
  /** The claim (namespace/name) or PV name: volume_operation_total_seconds runs from its first attempt. */
  key?: string;
  /** The StorageClass name: external-provisioner's provision and delete families count by it. */
  storageClass?: string;
  /** The kind of the claim's data source, '' for none (external-provisioner's `source`). */
  source?: string;
}

/** What the provisioner and reclaimer report about each plugin call (controller/runtime/operation-metrics.ts times it). */
export interface OperationObserver {
  onOperation(plugin: string, operation: string, seconds: number, error?: Error, context?: OperationContext): void;
}

export const NOT_AVAILABLE = 'N/A';
/** kube's buckets for storage operations (pkg/volume/util/metrics.go). */
export const OPERATION_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 25, 50, 120, 300, 600];
/** client_golang's DefBuckets, which external-provisioner's histograms use. */
export const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Operations whose first attempt is remembered at once; the oldest is forgotten beyond it. */
export const MAX_PENDING_OPERATIONS = 10_000;

type ClassLabels = 'class' | 'source';

/** Registers the operation metrics and returns the observer that feeds them. */
export function registerOperationMetrics(registry: Registry, now: () => number = () => performance.now()): OperationObserver {
  const registers = [registry];
  const pluginOp = ['plugin_name', 'operation_name'] as const;
  const duration = new Histogram({
    name: 'storage_operation_duration_seconds',
    help: 'Storage operation duration',
    labelNames: ['volume_plugin', 'operation_name', 'status', 'migrated'],
    buckets: OPERATION_BUCKETS,
    registers,
  });
  const endToEnd = new Histogram({ name: 'volume_operation_total_seconds', help: 'Storage operation end to end duration in seconds', labelNames: pluginOp, buckets: OPERATION_BUCKETS, registers });
  const errors = [
    new Counter({ name: 'volume_operation_errors_total', help: 'Total volume operation errors', labelNames: pluginOp, registers }),
    new Counter({ name: 'volume_operation_total_errors', help: 'Total volume operation errors (deprecated: use volume_operation_errors_total)', labelNames: pluginOp, registers }),
  ];
  const provision = family<ClassLabels>(registers, 'persistentvolumeclaim_provision', 'provision persistent volumes', ['class', 'source']);
  const remove = family<'class'>(registers, 'persistentvolume_delete', 'delete persistent volumes', ['class']);
  const firstAttempt = new Map<string, number>();
  return {
    onOperation: (plugin, operation, seconds, error, context) => {
      const pluginName = plugin || NOT_AVAILABLE;
      duration.observe({ volume_plugin: pluginName, operation_name: operation, status: error ? 'fail-unknown' : 'success', migrated: 'false' }, seconds);
      const labels = { plugin_name: pluginName, operation_name: operation };
      if (error) for (const c of errors) c.inc(labels);
      if (context?.key !== undefined) {
        const key = `${operation}\u0000${context.key}`;
        const started = firstAttempt.get(key) ?? remember(firstAttempt, key, now() - seconds * 1000);
        if (!error) {
          endToEnd.observe(labels, (now() - started) / 1000);
          firstAttempt.delete(key);
        }
      }
      if (context?.storageClass === undefined) return;
      if (operation === 'provision') provision.record({ class: context.storageClass, source: context.source ?? '' }, seconds, error);
      if (operation === 'delete') remove.record({ class: context.storageClass }, seconds, error);
    },
  };
}

function remember(pending: Map<string, number>, key: string, at: number): number {
  if (pending.size >= MAX_PENDING_OPERATIONS) {
    const oldest = pending.keys().next();
    if (!oldest.done) pending.delete(oldest.value);
  }
  pending.set(key, at);
  return at;
}

/** external-provisioner's three series per operation: successes, failed attempts, and the duration of successes. */
function family<L extends string>(registers: Registry[], name: string, what: string, labelNames: L[]) {
  const base = `controller_${name}`;
  const total = new Counter<L>({ name: `${base}_total`, help: `Total number of successful calls to ${what}`, labelNames, registers });
  const failed = new Counter<L>({ name: `${base}_failed_total`, help: `Total number of failed attempts to ${what}`, labelNames, registers });
  const duration = new Histogram<L>({
    name: `${base}_duration_seconds`,
    help: `Latency in seconds to ${what}; failed attempts are ignored`,
    labelNames,
    buckets: DEFAULT_BUCKETS,
    registers,
  });
  return {
    record(labels: Record<L, string>, seconds: number, error?: Error): void {
      const l = labels as Partial<Record<L, string>>;
      if (error) return void failed.inc(l);
      total.inc(l);
      duration.observe(l, seconds);
    },
  };
}
