/**
 * The expander: for each bound claim, the next change its volume needs — a larger size
 * (resize.ts) before a new VolumeAttributesClass (modify.ts) — run outside the queue workers,
 * one operation per claim at a time, a failing claim retried with backoff (500 ms doubling to
 * 2 min, as upstream's operations). Which process grows a volume is resizer.ts's rule: the one
 * whose plugin owns it (a node agent its own node's, the central controller the rest); a volume
 * no plugin here owns is left to an external controller (ExternalExpanding, as
 * kube-controller-manager says it) or, when a node agent serves it, to that agent. Once the
 * kubelet has finished growing the filesystem (the claim's capacity reaches the PV's), the PV's
 * pre-resize annotation is removed, as the in-tree expand controller does.
 */
import type { Logger } from 'pino';
import { ANN_PRE_RESIZE_CAPACITY } from '@pv-controller/kube/annotations.js';
import { keyOf } from '@pv-controller/kube/object-key.js';
import { compareQuantityStrings, isValidQuantity } from '@pv-controller/kube/quantity.js';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { newerCopyOf } from '../../kube-client/cache/resource-version.js';
import type { OperationObserver } from '../../metrics/prometheus.js';
import type { PluginRegistry } from '../../plugins/registry.js';
import type { ControllerContext } from '../runtime/context.js';
import { EventReason } from '../runtime/event-reasons.js';
import { claimOperationRunner, type OperationRunner } from '../runtime/operations.js';
import { DONE, type SyncResult } from '../runtime/sync-result.js';
import { storageResizeStatus } from './claim-status.js';
import { MSG_EXTERNAL_EXPANDING } from './events.js';
import { resizerFor, type ExpanderScope } from './resizer.js';
import { nextModifyStep, runModify } from './modify.js';
import { nextResizeStep } from './resize-target.js';
import { runResize } from './resize.js';
import { ExpanderOperation, type ExpanderDeps } from './operation.js';
import { StoppedWriteError } from '../runtime/stop-guarded-api.js';

export interface ExpanderOptions {
  ctx: ControllerContext;
  plugins: PluginRegistry;
  /** `node` in a node agent: only its own plugin's volumes are touched (default `cluster`). */
  scope?: ExpanderScope;
  logger: Logger;
  metrics?: OperationObserver;
  concurrency?: number;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
}

export class Expander {
  private readonly deps: ExpanderDeps;
  private readonly plugins: PluginRegistry;
  private readonly scope: ExpanderScope;
  private readonly runner: OperationRunner;

  constructor(options: ExpanderOptions) {
    this.deps = { ctx: options.ctx, log: options.logger, ...(options.metrics ? { metrics: options.metrics } : {}) };
    this.plugins = options.plugins;
    this.scope = options.scope ?? 'cluster';
    this.runner = claimOperationRunner('expander', (key) => options.ctx.enqueueClaim(key), options);
  }

  async syncClaim(given: PersistentVolumeClaim): Promise<SyncResult> {
    const key = keyOf(given);
    const claim = newerCopyOf(given, this.deps.ctx.claims.get(key));
    const pv = this.boundVolume(claim);
    if (!pv || this.runner.isRunning(key)) return DONE;
    const resizer = resizerFor(pv, this.plugins, this.scope);
    if (resizer.kind === 'elsewhere') return DONE;
    const resize = nextResizeStep(claim);
    const modify = nextModifyStep(claim);
    if (resize.kind === 'none' && modify.kind === 'none') return this.tidyPreResize(claim, pv);
    if (resizer.kind === 'external') {
      if (resize.kind === 'expand') this.deps.ctx.events.event(claim, 'Normal', EventReason.ExternalExpanding, MSG_EXTERNAL_EXPANDING);
      return DONE;
    }
    const { plugin } = resizer;
    const pvName = pv.metadata.name ?? '';
    this.runner.start(key, async (handle) => {
      const operation = new ExpanderOperation(this.deps, handle, key, claim.metadata.uid ?? '');
      try {
        if (resize.kind === 'expand') return await runResize(operation, plugin, pvName, resize.size);
        return modify.kind === 'modify' ? await runModify(operation, plugin, pvName, modify.target) : 'succeeded';
      } catch (err) {
        if (err instanceof StoppedWriteError) return 'stopped';
        throw err;
      }
    });
    return DONE;
  }

  /** The PV of a Bound claim, when it is bound to that very claim (upstream checks the claimRef's uid). */
  private boundVolume(claim: PersistentVolumeClaim): PersistentVolume | undefined {
    if (claim.status?.phase !== 'Bound' || !claim.spec.volumeName || claim.metadata.deletionTimestamp) return undefined;
    const pv = this.deps.ctx.volumes.get(claim.spec.volumeName);
    const ref = pv?.spec.claimRef;
    return ref?.uid === claim.metadata.uid && ref?.namespace === claim.metadata.namespace ? pv : undefined;
  }

  private async tidyPreResize(claim: PersistentVolumeClaim, pv: PersistentVolume): Promise<SyncResult> {
    if (pv.metadata.annotations?.[ANN_PRE_RESIZE_CAPACITY] === undefined || storageResizeStatus(claim) !== undefined) return DONE;
    const have = claim.status?.capacity?.storage;
    const want = pv.spec.capacity?.storage;
    if (!have || !want || !isValidQuantity(have) || !isValidQuantity(want) || compareQuantityStrings(have, want) < 0) return DONE;
    const next = structuredClone(pv);
    delete next.metadata.annotations?.[ANN_PRE_RESIZE_CAPACITY];
    await this.deps.ctx.api.updateVolume(next);
    return DONE;
  }

  /** Resolves once no operation runs (tests). */
  idle(): Promise<void> {
    return this.runner.idle();
  }

  stop(): Promise<void> {
    return this.runner.close();
  }
}
