/**
 * How the binder meets the rest of the controller: the provisioner and the reclaimer plug in
 * through `BinderHooks`; everything else comes through the ControllerContext.
 */
import { pino, type Logger } from 'pino';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import type { ControllerContext } from '../runtime/context.js';
import type { SyncResult } from '../runtime/sync-result.js';
import type { VolumeIndex } from './volume-index.js';

/** What the binder established while deciding a volume is released, so the reclaimer need not ask again. */
export interface ReclaimFacts {
  /**
   * The server itself said the claim the volume's claimRef names (that uid) is gone: a live read
   * in this very sync found it missing, or the watch delivered its deletion. A uid never comes
   * back, so the volume is released for good and the reclaimer need not ask again.
   */
  claimConfirmedGone?: boolean;
}

export interface BinderHooks {
  /**
   * Provision a volume for an unbound claim whose class names a provisioner this process serves.
   * The binder has already checked the class exists and that no volume matched.
   */
  provisionClaim?(claim: PersistentVolumeClaim): Promise<SyncResult>;
  /** Reclaim a Released volume (Retain / Delete / Recycle); called on every sync while released. */
  reclaimVolume?(pv: PersistentVolume, facts?: ReclaimFacts): Promise<SyncResult>;
  /**
   * Whether `provisionClaim` handles this StorageClass provisioner. Without it, every
   * provisioner counts as served when `provisionClaim` is given and none otherwise. Claims of an
   * unserved provisioner get the external-provisioner annotations and event.
   */
  servesProvisioner?(name: string): boolean;
  /**
   * True while another part of the controller is writing this unbound claim ("ns/name") — a
   * provisioning operation, which binds the claim to its new volume itself and re-enqueues the
   * claim when it ends. The binder leaves such a claim alone instead of racing it to a 409.
   */
  claimBusy?(key: string): boolean;
  /** Where decisions are logged; defaults to a pino logger named "binder". */
  logger?: Logger;
}

let defaultLogger: Logger | undefined;

function binderLogger(hooks: BinderHooks | undefined): Logger {
  if (hooks?.logger) return hooks.logger;
  defaultLogger ??= pino({ name: 'binder', level: process.env.LOG_LEVEL ?? 'info' });
  return defaultLogger;
}

/** What one sync carries around: the seam, the index, the hooks and a logger. */
export interface BinderDeps {
  ctx: ControllerContext;
  index: VolumeIndex;
  hooks: BinderHooks;
  log: Logger;
}

export function binderDeps(ctx: ControllerContext, index: VolumeIndex, hooks?: BinderHooks): BinderDeps {
  return { ctx, index, hooks: hooks ?? {}, log: binderLogger(hooks) };
}

/**
 * Where the modules that provision and reclaim for the binder hand it their hooks. The assembly
 * (controller/modules.ts) gives one board to the binder and to them; the binder, listed first,
 * opens a fresh round when it is built, the others' hooks join that round as they are built, and
 * the binder combines them when it starts (the process leads, every module is built).
 */
export class BinderHookBoard {
  private round: Partial<BinderHooks>[] = [];

  /** Called by the binder when it is built: the hooks contributed from now on are its. */
  open(): readonly Partial<BinderHooks>[] {
    this.round = [];
    return this.round;
  }

  contribute(hooks: Partial<BinderHooks>): void {
    this.round.push(hooks);
  }
}

/**
 * One BinderHooks from the parts other modules contribute: the first provider of a provisioning
 * or reclaim hook wins; a claim is busy when any part says so; a provisioner is served when any
 * part serves it (a part with `provisionClaim` and no `servesProvisioner` serves every one).
 */
export function combineHooks(parts: readonly Partial<BinderHooks>[], logger: Logger): BinderHooks {
  const hooks: BinderHooks = { logger };
  for (const p of parts) {
    hooks.provisionClaim ??= p.provisionClaim;
    hooks.reclaimVolume ??= p.reclaimVolume;
  }
  const busy = parts.filter((p) => p.claimBusy);
  if (busy.length > 0) hooks.claimBusy = (key) => busy.some((p) => p.claimBusy!(key));
  const servers = parts.filter((p) => p.servesProvisioner || p.provisionClaim);
  if (servers.length > 0) {
    hooks.servesProvisioner = (name) => servers.some((p) => (p.servesProvisioner ? p.servesProvisioner(name) : true));
  }
  return hooks;
}
