/**
 * Dynamic provisioning in the controller: exactly one volume per claim, never a leaked one.
 *
 * Two ways in, one way through:
 * - `provisionClaim(claim)` — the binder's hook (no volume matched, the class's provisioner is
 *   one of ours);
 * - `syncClaim(claim)` — the provisioner's own claim sync, run for every claim event. It resumes
 *   claims carrying our intent finalizer (crash recovery, claim deleted mid-provision, claim bound
 *   elsewhere) and, when the binder does not run in this process (`binderRunsHere` false), provisions claims
 *   annotated with `volume.kubernetes.io/storage-provisioner` = a provisioner we serve — the
 *   external-provisioner protocol.
 * Both start the same operation (operation.ts) through an OperationRunner: outside the queue worker,
 * at most `concurrency` at once, never two for one claim, failures backed off per claim.
 */
import { pino, type Logger } from 'pino';
import { ANN_BIND_COMPLETED, ANN_CLONES_IN_PROGRESS, ANN_SELECTED_NODE } from '@pv-controller/kube/annotations.js';
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { hasAnnotation } from '@pv-controller/kube/volume-helpers.js';
import type { PluginRegistry } from '../../plugins/registry.js';
import { type ControllerContext } from '../runtime/context.js';
import { keyOf } from '@pv-controller/kube/object-key.js';
import { DONE, type SyncResult } from '../runtime/sync-result.js';
import { newerCopyOf } from '../../kube-client/cache/resource-version.js';
import { annotatedProvisioner, hasProvisioningFinalizer } from './claim-intent.js';
import type { ProvisionerDeps } from './deps.js';
import type { OperationObserver } from '../../metrics/prometheus.js';
import { claimOperationRunner, type OperationRunner, type StartResult } from '../runtime/operations.js';
import { runProvisionOperation } from './operation.js';
import { releaseCloneSource } from './clone-protection.js';
import { claimDataSource } from './data-source.js';
import { isNodeScoped } from '../../plugins/api/capabilities/node-scoped.js';
import type { ModuleRest } from '../runtime/rest-get.js';

export const DEFAULT_CLUSTER_NAME = 'kubernetes';

export interface ProvisionerOptions {
  ctx: ControllerContext;
  plugins: PluginRegistry;
  /** `--cluster-name`: prefix of backing names. Default "kubernetes". */
  clusterName?: string;
  logger?: Logger;
  metrics?: OperationObserver;
  /** REST access for VolumeSnapshots (restore); without it a claim restoring from a snapshot is refused. */
  rest?: ModuleRest;
  /** Plugin calls in flight at once. Default 16. */
  concurrency?: number;
  /** Whether the binder runs in this process (default true); without it, take claims annotated for our provisioners. */
  binderRunsHere?: boolean;
  /** Tries at creating the PV object before the backing volume is deleted again. Default 5. */
  createAttempts?: number;
  /** First wait between PV create tries (doubles each time). Default 1000 ms. */
  createRetryDelayMs?: number;
  /**
   * The `Provisioning` event ("provisioning a volume for claim …") is emitted only when the plugin
   * call is still running after this long (default 1000 ms): a slow cloud create shows up in
   * `kubectl describe pvc` while it runs, a fast one gets just `ProvisioningSucceeded` (as the
   * in-tree provisioner) and no extra API write.
   */
  provisioningEventAfterMs?: number;
  /** Backoff after a failed operation: first wait, doubling up to the cap. Defaults 500 ms / 120 s. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
}

/** The part of BinderHooks the provisioner fills in. */
export interface ProvisionerBinderHooks {
  provisionClaim(claim: PersistentVolumeClaim): Promise<SyncResult>;
  servesProvisioner(name: string): boolean;
  claimBusy(key: string): boolean;
}

export class Provisioner {
  private readonly deps: ProvisionerDeps;
  private readonly runner: OperationRunner;
  private readonly binderRunsHere: boolean;

  constructor(options: ProvisionerOptions) {
    this.deps = {
      ctx: options.ctx,
      plugins: options.plugins,
      clusterName: options.clusterName ?? DEFAULT_CLUSTER_NAME,
      log: options.logger ?? pino({ name: 'provisioner', level: process.env.LOG_LEVEL ?? 'info' }),
      createAttempts: options.createAttempts ?? 5,
      createRetryDelayMs: options.createRetryDelayMs ?? 1000,
      provisioningEventAfterMs: options.provisioningEventAfterMs ?? 1000,
      ...(options.metrics ? { metrics: options.metrics } : {}),
      ...(options.rest ? { rest: options.rest } : {}),
    };
    this.binderRunsHere = options.binderRunsHere !== false;
    // Woken after success once the key stops counting as running: the binder skips claims whose operation runs.
    this.runner = claimOperationRunner('provisioner', (key) => options.ctx.enqueueClaim(key), options);
  }

  /** Whether this process provisions for the StorageClass provisioner `name`. */
  servesProvisioner(name: string): boolean {
    return this.deps.plugins.byProvisioner(name) !== undefined;
  }

  /** The hooks to hand to the binder (bound to this instance). */
  binderHooks(): ProvisionerBinderHooks {
    return {
      provisionClaim: (claim) => this.provisionClaim(claim),
      servesProvisioner: (name) => this.servesProvisioner(name),
      // The operation binds the claim's side itself when it publishes the PV (one claim write).
      claimBusy: (key) => this.runner.isRunning(key),
    };
  }

  /**
   * Starts (in the background) provisioning for a claim, or cleanup when it no longer wants a
   * volume. Returns at once: a second call while one runs, or while the claim backs off after a
   * failure, does nothing — the claim is re-enqueued when the operation succeeds (onSucceeded),
   * and when the backoff of a failed one expires.
   */
  async provisionClaim(claim: PersistentVolumeClaim): Promise<SyncResult> {
    const uid = claim.metadata.uid;
    if (!uid) return DONE;
    const key = keyOf(claim);
    if (claim.metadata.deletionTimestamp) this.runner.interrupt(key, 'the claim is being deleted');
    // A populator's claim (KEP-1495) starts nothing: an operation's success would wake the claim
    // again, and the binder would hand it back here, round and round.
    if (!hasProvisioningFinalizer(claim) && claimDataSource(claim).kind === 'populator') {
      this.deps.log.debug({ claim: key }, 'data source is not handled by the provisioner; assuming an external populator will provision the volume');
      return DONE;
    }
    const target = { namespace: claim.metadata.namespace ?? '', name: claim.metadata.name ?? '', uid };
    const started: StartResult = this.runner.start(key, (handle) => runProvisionOperation(this.deps, target, handle));
    this.deps.log.debug({ claim: key, started }, 'provisioning requested');
    return DONE;
  }

  /** The provisioner's own claim sync (see the file comment). */
  async syncClaim(claim: PersistentVolumeClaim): Promise<SyncResult> {
    const key = keyOf(claim);
    const current = newerCopyOf(claim, this.deps.ctx.claims.get(key));
    if (current.metadata.deletionTimestamp && hasAnnotation(current, ANN_CLONES_IN_PROGRESS)) await this.dropStaleClones(current);
    if (!this.mayAct(current)) return DONE;
    if (hasProvisioningFinalizer(current)) return this.provisionClaim(current);
    if (current.metadata.deletionTimestamp) {
      this.runner.interrupt(key, 'the claim is being deleted');
      return DONE;
    }
    if (!this.binderRunsHere && this.wantsProvisioning(current)) return this.provisionClaim(current);
    return DONE;
  }

  /**
   * A clone source being deleted waits for its clones in progress; one whose clones are all gone
   * (claims deleted with their finalizers stripped) would wait forever, so such entries are dropped.
   */
  private async dropStaleClones(source: PersistentVolumeClaim): Promise<void> {
    try {
      await releaseCloneSource(this.deps.ctx.api, source.metadata.namespace ?? '', source.metadata.name ?? '', undefined);
    } catch (err) {
      this.deps.log.warn({ claim: keyOf(source), err: (err as Error).message }, 'checking the clones of a claim being deleted failed');
    }
  }

  /**
   * Another process's claim is left alone: one annotated for a provisioner no plugin here serves
   * (its intent finalizer is that process's to finish), or, for a node agent, one whose selected
   * node is another node's.
   */
  private mayAct(claim: PersistentVolumeClaim): boolean {
    const provisioner = annotatedProvisioner(claim);
    if (provisioner === undefined) return true;
    const plugin = this.deps.plugins.byProvisioner(provisioner);
    if (!plugin) return false;
    return !isNodeScoped(plugin) || plugin.servesNode(claim.metadata.annotations?.[ANN_SELECTED_NODE]);
  }

  /** Standalone trigger: unbound, annotated for a provisioner we serve (the binder routed it to us). */
  private wantsProvisioning(claim: PersistentVolumeClaim): boolean {
    if (claim.spec.volumeName || hasAnnotation(claim, ANN_BIND_COMPLETED)) return false;
    const provisioner = annotatedProvisioner(claim);
    return provisioner !== undefined && this.servesProvisioner(provisioner);
  }

  /** True while an operation for the claim key ("ns/name") runs. */
  isProvisioning(key: string): boolean {
    return this.runner.isRunning(key);
  }

  /** True while the claim waits out the backoff of a failed operation. */
  isBackingOff(key: string): boolean {
    return this.runner.inBackoff(key);
  }

  /** Resolves once no operation runs (tests; graceful shutdown). */
  idle(): Promise<void> {
    return this.runner.idle();
  }

  /** Stops: no new operations, and running ones make no further API writes (like a crash). */
  stop(): void {
    this.runner.stop();
  }
}
