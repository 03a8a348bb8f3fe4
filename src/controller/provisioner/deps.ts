/** What the provisioning operation and its cleanup are given (built once by Provisioner). */
import type { Logger } from 'pino';
import type { PluginRegistry } from '../../plugins/registry.js';
import type { ControllerContext } from '../runtime/context.js';
import type { OperationObserver } from '../../metrics/prometheus.js';
import type { ModuleRest } from '../runtime/rest-get.js';

export interface ProvisionerDeps {
  ctx: ControllerContext;
  plugins: PluginRegistry;
  /** Prefix of backing names (`--cluster-name`, default "kubernetes"). */
  clusterName: string;
  log: Logger;
  metrics?: OperationObserver;
  /** REST access for the kinds ApiClient does not cover (the VolumeSnapshots a claim is restored from). */
  rest?: ModuleRest;
  /** Tries at creating the PV object before the backing volume is deleted again (upstream: 5). */
  createAttempts: number;
  /** Wait before the first retry of a PV create; doubles on each further retry. */
  createRetryDelayMs: number;
  /** A plugin call still running after this long gets the `Provisioning` event on its claim. */
  provisioningEventAfterMs: number;
}
