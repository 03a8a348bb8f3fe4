/**
 * Publishing a provisioned volume as a PV object, retried (upstream: 5 tries) because a backing
 * volume without a PV is exactly the leak this controller exists to prevent. AlreadyExists is
 * success: the name is deterministic, so an earlier try (whose answer was lost) made it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { backoffDelay } from '../../backoff.js';
import { isAlreadyExists } from '@pv-controller/kube/errors.js';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { keyOf } from '@pv-controller/kube/object-key.js';
import type { ProvisionerDeps } from './deps.js';
import { errorText, msgSavePvFailed } from './events.js';
import { EventReason } from '../runtime/event-reasons.js';

/**
 * Creates `pv`. Returns the created object; `'exists'` when a PV of that name was already there
 * (an earlier try made it — or someone else did: the caller must not assume its content); false
 * after the last failed try (event emitted).
 */
export async function savePersistentVolume(
  d: ProvisionerDeps,
  claim: PersistentVolumeClaim,
  pv: PersistentVolume,
  signal: AbortSignal,
): Promise<PersistentVolume | 'exists' | false> {
  const pvName = pv.metadata.name ?? '';
  let lastError: unknown;
  for (let attempt = 1; attempt <= d.createAttempts; attempt++) {
    if (attempt > 1) await sleep(backoffDelay({ initialMs: d.createRetryDelayMs, maxMs: Infinity }, attempt - 2), undefined, { signal });
    signal.throwIfAborted();
    try {
      const created = await d.ctx.api.createVolume(pv);
      d.log.info({ pv: pvName, claim: keyOf(claim), attempt }, 'provisioned volume saved');
      return created;
    } catch (err) {
      if (isAlreadyExists(err)) {
        d.log.info({ pv: pvName, claim: keyOf(claim) }, 'provisioned volume already saved');
        return 'exists';
      }
      lastError = err;
      d.log.warn({ pv: pvName, claim: keyOf(claim), attempt, err: errorText(err) }, 'saving provisioned volume failed');
    }
  }
  d.ctx.events.event(claim, 'Warning', EventReason.ProvisioningFailed, msgSavePvFailed(keyOf(claim), errorText(lastError)));
  return false;
}
