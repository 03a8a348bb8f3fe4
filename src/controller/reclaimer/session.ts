/**
 * What every reclaim step carries (the seam, the plugins, the retry policy, a logger), and the
 * writes made after a plugin call: those may find the PV changed meanwhile (a finalizer removed
 * by pv-protection, a label added), so on 409 they re-read it live and re-apply their change to
 * the fresh copy, as long as it is still the same object (same uid).
 */
import type { Logger } from 'pino';
import type { PersistentVolume, VolumePhase } from '../../kube/types.js';
import { isConflict, isNotFound } from '../../kube/errors.js';
import type { ControllerContext } from '../context.js';
import type { PluginRegistry } from '../../plugins/registry.js';
import type { RetryPolicy } from './attempts.js';
import type { OperationRunner } from './operations.js';

/** Where plugin calls are reported (storage_operation_duration_seconds, volume_operation_total_errors). */
export interface ReclaimMetrics {
  onOperation(plugin: string, operation: 'delete' | 'recycle', seconds: number, error?: Error): void;
}

export interface ReclaimSession {
  ctx: ControllerContext;
  plugins: PluginRegistry;
  policy: RetryPolicy;
  clusterName: string;
  ops: OperationRunner;
  log: Logger;
  /** uids of PVs whose backing volume was deleted but whose PV object is not gone yet. */
  backingDeleted: Set<string>;
  metrics?: ReclaimMetrics;
}

/** Runs one plugin call, reporting its duration and outcome to the session's metrics. */
export async function timedPluginCall(
  s: ReclaimSession,
  plugin: string,
  operation: 'delete' | 'recycle',
  call: () => Promise<void>,
): Promise<void> {
  const started = process.hrtime.bigint();
  const seconds = (): number => Number(process.hrtime.bigint() - started) / 1e9;
  try {
    await call();
    s.metrics?.onOperation(plugin, operation, seconds());
  } catch (err) {
    s.metrics?.onOperation(plugin, operation, seconds(), err instanceof Error ? err : new Error(String(err)));
    throw err;
  }
}

const FRESH_WRITE_TRIES = 3;

/**
 * Writes `change(pv)` (spec or status), re-reading live and re-applying on 409. `change` returns
 * undefined when nothing is to be written. Returns the saved PV, or undefined when the PV is
 * gone, was replaced, or `change` declined.
 */
export async function updateFresh(
  s: ReclaimSession,
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
