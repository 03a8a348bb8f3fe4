/** What the provisioning operation and its cleanup are given (built once by Provisioner). */
import type { Logger } from 'pino';
import type { PluginRegistry } from '../../plugins/registry.js';
import type { ControllerContext } from '../runtime/context.js';
import type { OperationObserver } from '../../metrics/prometheus.js';

export interface ProvisionerDeps {
  ctx: ControllerContext;
  plugins: PluginRegistry;
  /** Prefix of backing names (`--cluster-name`, default "kubernetes"). */
  clusterName: string;
  log: Logger;
  metrics?: OperationObserver;
  /** Tries at creating the PV object before the backing volume is deleted again (upstream: 5). */
  createAttempts: number;
  /** Wait before the first retry of a PV create; doubles on each further retry. */
  createRetryDelayMs: number;
  /** A plugin call still running after this long gets the `Provisioning` event on its claim. */
  provisioningEventAfterMs: number;
}
