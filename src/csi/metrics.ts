/**
 * The CSI sidecars' call histogram, `csi_sidecar_operations_seconds` {driver_name, method_name,
 * grpc_status_code}, with their buckets (csi-lib-utils' metrics package): method_name is the full
 * gRPC path ("/csi.v1.Controller/CreateVolume"), grpc_status_code the code's name as Go writes it
 * ("OK", "DeadlineExceeded", "Canceled"), driver_name "unknown-driver" until GetPluginInfo has
 * named the driver. Registered in the Registry the caller passes, never the global one; one
 * instance per Registry, shared by every connection that reports there.
 */
import { Histogram, type Registry } from 'prom-client';

const BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 25, 50, 120, 300, 600];

/** What the sidecars record before the driver is named. */
export const UNKNOWN_DRIVER = 'unknown-driver';

export class CsiCallMetrics {
  private readonly histogram: Histogram<'driver_name' | 'method_name' | 'grpc_status_code'>;

  constructor(registry: Registry) {
    this.histogram = new Histogram({
      name: 'csi_sidecar_operations_seconds',
      help: 'Container Storage Interface operation duration with gRPC error code status total',
      labelNames: ['driver_name', 'method_name', 'grpc_status_code'],
      buckets: BUCKETS,
      registers: [registry],
    });
  }

  observe(driverName: string, methodPath: string, goCode: string, seconds: number): void {
    this.histogram.observe({ driver_name: driverName || UNKNOWN_DRIVER, method_name: methodPath, grpc_status_code: goCode }, seconds);
  }
}
