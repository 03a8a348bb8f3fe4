/**
 * The provider for volumes whose usage cannot be measured from here (e.g. a cloud disk that is
 * not attached to this machine). Like kubelet's MetricsNil: every call fails, saying why.
 */
import { MetricsNotSupportedError, type MetricsProvider, type VolumeMetrics } from './provider.js';

export class NilMetricsProvider implements MetricsProvider {
  /** `what` names the volume kind in the error, e.g. `aws-ebs volume "vol-123"`. */
  constructor(private readonly what: string) {}

  getMetrics(): Promise<VolumeMetrics> {
    return Promise.reject(new MetricsNotSupportedError(this.what));
  }
}
