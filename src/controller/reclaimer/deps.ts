/**
 * What every reclaim step carries (the seam, the plugins, the retry policy, a logger), and the
 * writes made after a plugin call: those may find the PV changed meanwhile (a finalizer removed
 * by pv-protection, a label added), so on 409 they re-read it live and re-apply their change to
 * the fresh copy, as long as it is still the same object (same uid).
 */
import type { Logger } from 'pino';
import type { PersistentVolume, VolumePhase } from '@pv-controller/kube/types.js';
import { isConflict, isNotFound } from '@pv-controller/kube/errors.js';
import type { ControllerContext } from '../runtime/context.js';
import type { PluginRegistry } from '../../plugins/registry.js';
import type { RetryPolicy } from './attempts.js';
import type { OperationObserver } from '../../metrics/prometheus.js';
import type { OperationRunner } from '../runtime/operations.js';

export interface ReclaimerDeps {
  ctx: ControllerContext;
  plugins: PluginRegistry;
  policy: RetryPolicy;
  clusterName: string;
  ops: OperationRunner;
  log: Logger;
  /** uids of PVs whose backing volume was deleted but whose PV object is not gone yet. */
  backingDeleted: Set<string>;
  metrics?: OperationObserver;
}

const FRESH_WRITE_TRIES = 3;

/**
 * Writes `change(pv)` (spec or status), re-reading live and re-applying on 409. `change` returns
 * undefined when nothing is to be written. Returns the saved PV, or undefined when the PV is
 * gone, was replaced, or `change` declined.
 */
export async function updateFresh(
  s: ReclaimerDeps,
  pv: PersistentVolume,
  target: 'spec' | 'status',
  change: (fresh: PersistentVolume) => PersistentVolume | undefined,
): Promise<PersistentVolume | undefined> {
  let current: PersistentVolume | undefined = pv;
  for (let i = 0; i < FRESH_WRITE_TRIES && current; i++) {
    const next = change(current);
    if (!next) return undefined;
    try {
      return target === 'spec' ? await s.ctx.api.updateVolume(next) : await s.ctx.api.updateVolumeStatus(next);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      if (!isConflict(err)) throw err;
      const live = await s.ctx.api.getVolume(pv.metadata.name ?? '');
      current = live && live.metadata.uid === pv.metadata.uid ? live : undefined;
    }
  }
  if (current) throw new Error(`PersistentVolume "${pv.metadata.name ?? ''}" kept changing while being updated`);
  return undefined;
}

/** A copy of `pv` in `phase` with `message` (status write content). */
export function withPhase(pv: PersistentVolume, phase: VolumePhase, message: string): PersistentVolume {
  const next = structuredClone(pv);
  next.status = { ...next.status, phase, message };
  return next;
}
