/**
 * What one expander operation works with: the context, a logger, the metrics observer and the
 * runner's handle, and the reads and writes every step shares. Nothing is written once the
 * controller's modules have stopped (the context's ApiClient refuses it: runtime/stop-guarded-api.ts),
 * so a stop acts like a crash at that instant and the next leader resumes from what the claim records.
 */
import type { Logger } from 'pino';
import { newestOf } from '../../kube-client/cache/resource-version.js';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import type { OperationObserver } from '../../metrics/prometheus.js';
import type { ControllerContext, EventType } from '../runtime/context.js';
import type { EventReason } from '../runtime/event-reasons.js';
import type { OperationHandle } from '../runtime/operations.js';

export interface ExpanderDeps {
  ctx: ControllerContext;
  log: Logger;
  metrics?: OperationObserver;
}

export class ExpanderOperation {
  constructor(
    readonly d: ExpanderDeps,
    readonly handle: OperationHandle,
    readonly key: string,
    readonly uid: string,
  ) {}

  now(): string {
    return this.d.ctx.now().toISOString().replace(/\.\d+Z$/, 'Z');
  }

  /** The newest copy of the claim this operation is for; undefined once it is gone or replaced. */
  claim(given?: PersistentVolumeClaim): PersistentVolumeClaim | undefined {
    const newest = newestOf(given, this.d.ctx.claims.get(this.key));
    return newest?.metadata.uid === this.uid ? newest : undefined;
  }

  volume(name: string, given?: PersistentVolume): PersistentVolume | undefined {
    return newestOf(given, this.d.ctx.volumes.get(name));
  }

  async writeClaimStatus(next: PersistentVolumeClaim): Promise<PersistentVolumeClaim> {
    return this.d.ctx.api.updateClaimStatus(next);
  }

  async writeVolume(next: PersistentVolume): Promise<PersistentVolume> {
    return this.d.ctx.api.updateVolume(next);
  }

  event(claim: PersistentVolumeClaim, type: EventType, reason: EventReason, message: string): void {
    this.d.ctx.events.event(claim, type, reason, message);
  }
}
