/**
 * The reclaimer: what happens to a volume once its claim is gone (upstream `reclaimVolume`), with
 * bounded retries that survive restarts (attempts.ts), and finalizer annealing (finalizers.ts).
 *
 * It plugs into the controller in two places:
 * - `reclaimVolume(pv)` is the binder's hook, called on every sync of a Released or Failed PV;
 * - `syncVolume(pv)` runs before the binder's syncVolume: it anneals the deletion finalizer and
 *   deletes the backing volume of an unbound PV that is being deleted while it carries our
 *   finalizer (the PV object was deleted first; policy Delete is still honoured).
 * Plugin calls run in the background (runtime/operations.ts); their end enqueues the PV again.
 */
import { pino, type Logger } from 'pino';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { ANN_MIGRATED_TO, ANN_RELEASED_DEADLINE, ANN_REUSE, FINALIZER_PV_CONTROLLER } from '@pv-controller/kube/annotations.js';
import { isConflict, isNotFound } from '@pv-controller/kube/errors.js';
import { hasAnnotation } from '@pv-controller/kube/volume-helpers.js';
import type { VolumePlugin } from '../../plugins/api/core.js';
import type { PluginRegistry } from '../../plugins/registry.js';
import type { OperationObserver } from '../../metrics/prometheus.js';
import type { ControllerContext } from '../runtime/context.js';
import { DONE, type SyncResult } from '../runtime/sync-result.js';
import type { ReclaimFacts } from '../binder/hooks.js';
import { chargedAttempts, isBackingDeleted, msUntilNextAttempt, readAttempts, withAttempts, type RetryPolicy } from './attempts.js';
import { finishDeletion, hasExternalDeleter, runDelete } from './delete.js';
import {
  MSG_NO_RECYCLER,
  MSG_UNKNOWN_RECLAIM_POLICY,
  msgNoDeleter,
  msgUsedByPods,
} from './events.js';
import { annealDeletionFinalizer, hasFinalizer } from './finalizers.js';
import { OperationRunner } from '../runtime/operations.js';
import { failureReason, markFailed, MissingPluginError, recordFailedAttempt, type ReclaimKind } from './outcome.js';
import { podsUsingReleasedClaim, runRecycle } from './recycle.js';
import { withPhase, type ReclaimerDeps } from './deps.js';
import { EventReason } from '../runtime/event-reasons.js';
import { isReleasingForGoneNode } from '../node-gone/local-volume.js';
import { canRecycle } from '../../plugins/api/capabilities/recycle.js';
import { canProveProvenance } from '../../plugins/api/capabilities/provenance.js';
import { isStillReleased } from './released.js';
import { releasedTtlOf, syncReleasedTtl } from './released-ttl.js';
import { clearStaleMarks, reuseReleased } from './reuse.js';

export const DEFAULT_MAX_RECLAIM_ATTEMPTS = 3;
export const DEFAULT_RECLAIM_INTERVAL_MS = 15_000;
/** As many plugin calls in flight as the provisioner's (16): a bulk delete is as wide as a bulk create. */
export const DEFAULT_RECLAIM_CONCURRENCY = 16;

export interface ReclaimerOptions {
  ctx: ControllerContext;
  plugins: PluginRegistry;
  /** `--cluster-name`: backing names are `<cluster>-dynamic-<pv>`. Default "kubernetes". */
  clusterName?: string;
  /** `--pv-recycler-maximum-retry` (default 3): attempts in total; 0 ⇒ Failed without trying. */
  maxAttempts?: number;
  /** `--pvclaimbinder-sync-period` in ms (default 15 s): least time between two attempts. */
  retryIntervalMs?: number;
  /** Plugin calls running at once (default 16). */
  concurrency?: number;
  logger?: Logger;
  /** Plugin call durations and errors (Prometheus). */
  metrics?: OperationObserver;
  /** Whether the binder runs in this process (default true); without it (a node agent), reclaim Released volumes from the volume sync. */
  binderRunsHere?: boolean;
}

type Trigger = 'released' | 'pv-deleted';

export class Reclaimer {
  private readonly s: ReclaimerDeps;
  private readonly binderRunsHere: boolean;

  constructor(options: ReclaimerOptions) {
    const policy: RetryPolicy = {
      maxAttempts: options.maxAttempts ?? DEFAULT_MAX_RECLAIM_ATTEMPTS,
      intervalMs: options.retryIntervalMs ?? DEFAULT_RECLAIM_INTERVAL_MS,
    };
    if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 0) {
      throw new RangeError(`maximum reclaim attempts must be an integer ≥ 0, got ${policy.maxAttempts}`);
    }
    if (!(policy.intervalMs >= 0)) throw new RangeError(`reclaim retry interval must be ≥ 0, got ${policy.intervalMs}`);
    this.binderRunsHere = options.binderRunsHere !== false;
    this.s = {
      ctx: options.ctx,
      plugins: options.plugins,
      policy,
      clusterName: options.clusterName ?? 'kubernetes',
      ops: new OperationRunner({ name: 'reclaimer', concurrency: options.concurrency ?? DEFAULT_RECLAIM_CONCURRENCY }),
      log: options.logger ?? pino({ name: 'reclaimer', level: process.env.LOG_LEVEL ?? 'info' }),
      backingDeleted: new Set(),
      ...(options.metrics ? { metrics: options.metrics } : {}),
    };
  }

  /** Whether a provisioner name is one of our plugins (finalizer annealing applies to its PVs). */
  servesProvisioner(name: string): boolean {
    return this.s.plugins.byProvisioner(name) !== undefined;
  }

  /** The binder's hook for a Released or Failed PV. */
  reclaimVolume(pv: PersistentVolume, facts: ReclaimFacts = {}): Promise<SyncResult> {
    return this.guarded(pv, () => this.reclaim(pv, facts));
  }

  /**
   * Before the binder: anneal the finalizer; delete an unbound PV being deleted. undefined ⇒ go
   * on. Standalone (no binder in this process: a node agent), only volumes a plugin here handles
   * are touched, and a Released or Failed one is reclaimed from here, as external-provisioner's
   * deleter does.
   */
  syncVolume(pv: PersistentVolume): Promise<SyncResult | undefined> {
    if (!this.binderRunsHere && !this.s.plugins.forVolume(pv)) return Promise.resolve(undefined);
    return this.guarded(pv, async () => {
      // While its delete runs (or its backing volume is already gone) the finalizer is ours to
      // remove: re-adding it on a copy read meanwhile would hold the deleted PV until the next
      // retry interval.
      const annealed = this.isDeleting(pv) ? undefined : annealDeletionFinalizer(pv, (name) => this.servesProvisioner(name));
      let current = pv;
      if (annealed) {
        current = await this.s.ctx.api.updateVolume(annealed);
        const added = hasFinalizer(current, FINALIZER_PV_CONTROLLER);
        this.s.log.info({ pv: pv.metadata.name, finalizer: FINALIZER_PV_CONTROLLER, added }, 'deletion finalizer annealed');
      }
      if (isUnboundAndBeingDeleted(current)) return this.attempt(current, 'delete', 'pv-deleted');
      const phase = current.status?.phase;
      if (phase !== 'Released' && phase !== 'Failed' && !current.metadata.deletionTimestamp) current = (await clearStaleMarks(this.s, current)) ?? current;
      if (!this.binderRunsHere && (phase === 'Released' || phase === 'Failed')) return this.reclaim(current, {});
      return undefined;
    });
  }

  private isDeleting(pv: PersistentVolume): boolean {
    const uid = pv.metadata.uid ?? '';
    return this.s.backingDeleted.has(uid) || isBackingDeleted(pv) || this.s.ops.isRunning(deleteOpKey(pv));
  }

  /** Resolves when no plugin call is running (tests, shutdown). */
  settled(): Promise<void> {
    return this.s.ops.idle();
  }

  /** Aborts running plugin calls (their attempts stay counted) and waits for them. */
  close(): Promise<void> {
    return this.s.ops.close();
  }

  private async reclaim(pv: PersistentVolume, facts: ReclaimFacts): Promise<SyncResult> {
    // Its node is gone: node-gone replaces the claim and removes the PV, never touching the data.
    if (hasAnnotation(pv, ANN_MIGRATED_TO) || isReleasingForGoneNode(pv)) return DONE;
    if (hasAnnotation(pv, ANN_REUSE)) {
      const reuse = await reuseReleased(this.s, pv, facts);
      if (reuse.kind === 'wipe') return this.attempt(pv, 'recycle', 'released', { ...facts, claimConfirmedGone: true });
      if (reuse.kind === 'result') return reuse.result;
    }
    const policy = pv.spec.persistentVolumeReclaimPolicy;
    if (policy === 'Retain') {
      const ttl = releasedTtlOf(pv);
      return ttl.kind === 'none' ? this.keep(pv) : syncReleasedTtl(this.s, pv, ttl, (current) => this.expire(current, facts));
    }
    if (policy === 'Delete') return this.attempt(pv, 'delete', 'released', facts);
    if (policy === 'Recycle') return this.attempt(pv, 'recycle', 'released', facts);
    await markFailed(this.s, pv, EventReason.VolumeUnknownReclaimPolicy, MSG_UNKNOWN_RECLAIM_POLICY);
    return DONE;
  }

  /**
   * Retain does nothing to the data. A Failed PV switched to Retain (its delete or recycle gave up)
   * whose attempts annotation was then removed, as docs/operations.md says to retry, is Released
   * again: that is where a kept volume is (and where the reuse procedure starts).
   */
  private async keep(pv: PersistentVolume): Promise<SyncResult> {
    const attempts = readAttempts(pv);
    if (pv.status?.phase !== 'Failed' || attempts.failed !== undefined || attempts.malformed) return DONE;
    await this.s.ctx.api.updateVolumeStatus(withPhase(pv, 'Released', ''));
    this.s.log.info({ pv: pv.metadata.name, from: 'Failed', to: 'Released', why: 'attempts annotation removed; policy Retain keeps the data' }, 'volume phase changed');
    return DONE;
  }

  /**
   * A Released volume's TTL has run out (released-ttl.ts): deleted as policy Delete deletes, once
   * its plugin proves pv-controller made it; otherwise kept, with a Warning.
   */
  private async expire(pv: PersistentVolume, facts: ReclaimFacts): Promise<SyncResult> {
    const attempts = readAttempts(pv);
    if (pv.status?.phase === 'Failed' && (attempts.failed !== undefined || attempts.malformed)) return DONE;
    const plugin = this.s.plugins.forVolume(pv);
    if (!plugin || !canProveProvenance(plugin) || !(await plugin.provesProvisioned(pv, this.s.clusterName))) {
      const who = plugin ? `plugin ${plugin.name} cannot prove` : 'no plugin here can prove';
      this.s.ctx.events.event(pv, 'Warning', EventReason.ReleasedTTLRefused, `${ANN_RELEASED_DEADLINE} has passed, but ${who} that pv-controller provisioned this volume: it is kept (a TTL deletes only volumes pv-controller made)`);
      return DONE;
    }
    if (attempts.failed === undefined) {
      this.s.ctx.events.event(pv, 'Normal', EventReason.ReleasedTTLExpired, `${ANN_RELEASED_DEADLINE} ${pv.metadata.annotations?.[ANN_RELEASED_DEADLINE] ?? ''} has passed: deleting the volume`);
    }
    return this.attempt(pv, 'delete', 'released', facts);
  }

  private async attempt(pv: PersistentVolume, kind: ReclaimKind, trigger: Trigger, facts: ReclaimFacts = {}): Promise<SyncResult> {
    const { s } = this;
    const opKey = operationKey(kind, pv);
    if (s.ops.isRunning(opKey)) return DONE;
    if (kind === 'delete' && hasExternalDeleter(s, pv)) {
      s.log.debug({ pv: pv.metadata.name }, 'volume is deleted by an external deleter; leaving it alone');
      return DONE;
    }
    if (kind === 'delete' && ((pv.metadata.uid && s.backingDeleted.has(pv.metadata.uid)) || isBackingDeleted(pv))) {
      await finishDeletion(s, pv);
      return DONE;
    }
    const ready = await this.readyForAttempt(pv, kind);
    if (ready.kind !== 'go') return ready.result;
    const current = ready.pv;
    // The binder's live read in this sync already found the claim gone: no second GET for the same fact.
    const confirmed = facts.claimConfirmedGone === true && current.spec.claimRef?.uid === pv.spec.claimRef?.uid;
    if (trigger === 'released' && !confirmed && !(await isStillReleased(s, current))) return DONE;
    if (kind === 'recycle') {
      const users = await podsUsingReleasedClaim(s, current);
      if (users.length > 0) {
        s.ctx.events.event(current, 'Normal', EventReason.VolumeFailedRecycle, msgUsedByPods(users));
        return { kind: 'requeueAfter', ms: Math.max(s.policy.intervalMs, 1) };
      }
    }
    return this.chargeAndStart(current, kind, opKey);
  }

  /**
   * Failed PVs wait for an operator unless the attempts annotation was removed (then they are
   * Released again with a fresh set of attempts); used-up attempts ⇒ Failed; too early ⇒ wait.
   */
  private async readyForAttempt(
    pv: PersistentVolume,
    kind: ReclaimKind,
  ): Promise<{ kind: 'go'; pv: PersistentVolume } | { kind: 'stop'; result: SyncResult }> {
    const { s } = this;
    const attempts = readAttempts(pv);
    let current = pv;
    if (pv.status?.phase === 'Failed') {
      if (attempts.failed !== undefined || attempts.malformed) return { kind: 'stop', result: DONE };
      const saved = await s.ctx.api.updateVolumeStatus(withPhase(pv, 'Released', ''));
      s.log.info({ pv: pv.metadata.name, from: 'Failed', to: 'Released', why: 'attempts annotation removed: retry' }, 'volume phase changed');
      current = saved;
    }
    const charged = chargedAttempts(attempts, s.policy);
    if (charged >= s.policy.maxAttempts) {
      const why = attempts.malformed
        ? 'the reclaim attempts annotation is not a number'
        : `${charged} of ${s.policy.maxAttempts} reclaim attempts failed`;
      await markFailed(s, current, failureReason(kind), why);
      return { kind: 'stop', result: DONE };
    }
    const wait = msUntilNextAttempt(attempts, s.policy, s.ctx.now());
    if (wait > 0) return { kind: 'stop', result: { kind: 'requeueAfter', ms: wait } };
    return { kind: 'go', pv: current };
  }

  private async chargeAndStart(pv: PersistentVolume, kind: ReclaimKind, opKey: string): Promise<SyncResult> {
    const { s } = this;
    const count = chargedAttempts(readAttempts(pv), s.policy) + 1;
    const plugin = s.plugins.forVolume(pv);
    const charged = await s.ctx.api.updateVolume(withAttempts(pv, count, s.ctx.now()));
    s.log.info({ pv: pv.metadata.name, attempt: count, maxAttempts: s.policy.maxAttempts, plugin: plugin?.name }, `${kind} attempt`);
    const missing = missingPluginError(plugin, kind, pv, s.plugins);
    if (missing) {
      await recordFailedAttempt(s, charged, kind, count, missing);
      return DONE;
    }
    const run = kind === 'delete' ? runDelete : runRecycle;
    s.ops.start(opKey, async ({ signal }) => {
      try {
        await run(s, plugin!, charged, count, signal);
      } catch (err) {
        s.log.warn({ pv: pv.metadata.name, err: (err as Error).message }, `${kind}: writing the outcome failed`);
      } finally {
        s.ctx.enqueueVolume(pv.metadata.name ?? '');
      }
    });
    return DONE;
  }

  private async guarded<T>(pv: PersistentVolume, body: () => Promise<T>): Promise<T | SyncResult> {
    try {
      return await body();
    } catch (err) {
      if (isConflict(err) || isNotFound(err)) return { kind: 'retry', reason: isConflict(err) ? 'conflict' : 'not found' };
      const message = err instanceof Error ? err.message : String(err);
      this.s.log.warn({ pv: pv.metadata.name, err: message }, 'reclaim sync failed');
      return { kind: 'retry', reason: message };
    }
  }
}

function missingPluginError(plugin: VolumePlugin | undefined, kind: ReclaimKind, pv: PersistentVolume, plugins: PluginRegistry): MissingPluginError | undefined {
  if (kind === 'delete' && !plugin) {
    const declined = plugins.all().flatMap((p) => p.declines?.(pv) ?? []);
    return new MissingPluginError(msgNoDeleter(pv.metadata.name ?? '', declined));
  }
  if (kind === 'recycle' && !(plugin && canRecycle(plugin))) return new MissingPluginError(MSG_NO_RECYCLER);
  return undefined;
}

/** Policy Delete, our finalizer, a deletionTimestamp, and no claim bound (claimRef absent or uid-less). */
function isUnboundAndBeingDeleted(pv: PersistentVolume): boolean {
  return (
    pv.metadata.deletionTimestamp !== undefined &&
    hasFinalizer(pv, FINALIZER_PV_CONTROLLER) &&
    pv.spec.persistentVolumeReclaimPolicy === 'Delete' &&
    !pv.spec.claimRef?.uid
  );
}

function operationKey(kind: ReclaimKind, pv: PersistentVolume): string {
  return `${kind}-${pv.metadata.name ?? ''}[${pv.metadata.uid ?? ''}]`;
}

const deleteOpKey = (pv: PersistentVolume): string => operationKey('delete', pv);
