/**
 * The one timing wrapper for plugin calls: every provision, delete and recycle is reported to the
 * OperationObserver (Prometheus: storage_operation_duration_seconds and
 * volume_operation_total_errors, as upstream's operation metrics) with its plugin, duration and
 * outcome, and with the context the caller knows (the claim or volume, its class and data source:
 * end-to-end and external-provisioner's per-class series); the call's result or error passes
 * through unchanged.
 */
import type { OperationContext, OperationObserver } from '../../metrics/prometheus.js';

/**
 * `expand_volume` is the in-tree expand controller's operation name; kube-controller-manager
 * modifies no volume, so `modify_volume` follows its naming.
 */
export type VolumeOperation = 'provision' | 'delete' | 'recycle' | 'expand_volume' | 'modify_volume' | 'create_snapshot' | 'delete_snapshot';

export async function measured<T>(
  metrics: OperationObserver | undefined,
  plugin: string,
  operation: VolumeOperation,
  call: () => Promise<T>,
  context?: OperationContext,
): Promise<T> {
  const started = process.hrtime.bigint();
  const seconds = (): number => Number(process.hrtime.bigint() - started) / 1e9;
  try {
    const result = await call();
    metrics?.onOperation(plugin, operation, seconds(), undefined, context);
    return result;
  } catch (err) {
    metrics?.onOperation(plugin, operation, seconds(), err instanceof Error ? err : new Error(String(err)), context);
    throw err;
  }
}
