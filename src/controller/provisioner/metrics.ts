/**
 * What the provisioner reports about its plugin calls. A small seam the Prometheus side wires up
 * (upstream: storage_operation_duration_seconds, volume_operation_total_errors).
 */

export type ProvisionerOperation = 'provision' | 'delete';

export interface OperationMetrics {
  /** One finished plugin call: which plugin, what, how long, and its error if it failed. */
  onOperation(plugin: string, operation: ProvisionerOperation, seconds: number, error?: Error): void;
}

/** Times `call` and reports it to `metrics` (if any), passing the result or error through. */
export async function measured<T>(
  metrics: OperationMetrics | undefined,
  plugin: string,
  operation: ProvisionerOperation,
  call: () => Promise<T>,
): Promise<T> {
  const started = process.hrtime.bigint();
  const seconds = (): number => Number(process.hrtime.bigint() - started) / 1e9;
  try {
    const result = await call();
    metrics?.onOperation(plugin, operation, seconds());
    return result;
  } catch (err) {
    metrics?.onOperation(plugin, operation, seconds(), err instanceof Error ? err : new Error(String(err)));
    throw err;
  }
}
