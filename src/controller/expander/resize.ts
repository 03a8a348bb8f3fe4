/**
 * One expansion of a bound claim's volume, each step recorded before the next is taken:
 * 1. the size is recorded on the claim (allocatedResources, ControllerResizeInProgress, Resizing,
 *    and the plugin as the claim's storage-resizer) before the plugin is asked for it, so a controller that dies after asking resumes with the
 *    same size, and the plugin, which grows idempotently, does not grow the volume again;
 * 2. the plugin grows the backing volume (timed as `expand_volume`);
 * 3. the PV takes the new capacity (and, when the filesystem grows on the node, the claim's old
 *    capacity in the pre-resize annotation, as upstream);
 * 4. the claim is marked NodeResizePending (FileSystemResizePending) or finished (its capacity).
 * A failure the plugin calls final marks the size ControllerResizeInfeasible: the claim's
 * request may then come down to any size above its capacity and is tried again (KEP-1790).
 */
import { ANN_PRE_RESIZE_CAPACITY } from '@pv-controller/kube/annotations.js';
import { compareQuantityStrings, quantityToBytes } from '@pv-controller/kube/quantity.js';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import type { VolumePlugin } from '../../plugins/api/core.js';
import { PluginError } from '../../plugins/api/errors.js';
import { canExpand, type ExpandedVolume } from '../../plugins/api/capabilities/expand.js';
import { EventReason } from '../runtime/event-reasons.js';
import { measured } from '../runtime/operation-metrics.js';
import type { OperationOutcome } from '../runtime/operations.js';
import { markNodeExpansionPending, markResizeFailed, markResizeFinished, markResizeInProgress, storageResizeStatus } from './claim-status.js';
import { MSG_FS_RESIZE_REQUIRED, MSG_RESIZE_SUCCEEDED, msgNoExpand, msgResizeFailed, msgResizing } from './events.js';
import type { ExpanderOperation } from './operation.js';

export async function runResize(s: ExpanderOperation, plugin: VolumePlugin, pvName: string, size: string): Promise<OperationOutcome> {
  const recorded = await recordIntent(s, plugin.name, pvName, size);
  if (!recorded) return 'succeeded';
  const { claim, pv } = recorded;
  let expanded: ExpandedVolume;
  try {
    expanded = await measured(s.d.metrics, plugin.name, 'expand_volume', () => expandWith(plugin, pv, size, s.handle.signal));
  } catch (err) {
    return recordFailure(s, claim, err);
  }
  const grown = await recordCapacity(s, pv, expanded, claim.status?.capacity?.storage);
  const current = s.claim(claim) ?? claim;
  if (expanded.nodeExpansionRequired) {
    const saved = await s.writeClaimStatus(markNodeExpansionPending(current, s.now()));
    s.event(saved, 'Normal', EventReason.FileSystemResizeRequired, MSG_FS_RESIZE_REQUIRED);
  } else {
    const saved = await s.writeClaimStatus(markResizeFinished(current, grown.spec.capacity?.storage ?? expanded.capacity));
    s.event(saved, 'Normal', EventReason.VolumeResizeSuccessful, MSG_RESIZE_SUCCEEDED);
  }
  s.d.log.info({ claim: s.key, pv: pvName, capacity: expanded.capacity, node: expanded.nodeExpansionRequired }, 'volume expanded');
  return 'succeeded';
}

/** Step 1: the size on the claim, and the plugin as its resizer, unless it is recorded already (a resumed expansion). */
async function recordIntent(
  s: ExpanderOperation,
  resizer: string,
  pvName: string,
  size: string,
): Promise<{ claim: PersistentVolumeClaim; pv: PersistentVolume } | undefined> {
  const claim = s.claim();
  const pv = s.volume(pvName);
  if (!claim || !pv) return undefined;
  const resumed = storageResizeStatus(claim) === 'ControllerResizeInProgress' && claim.status?.allocatedResources?.storage === size;
  if (resumed) return { claim, pv };
  const saved = await s.writeClaimStatus(markResizeInProgress(claim, size, s.now(), resizer));
  s.event(saved, 'Normal', EventReason.Resizing, msgResizing(pvName, size));
  return { claim: saved, pv };
}

/** The plugin's expand capability; a plugin without it fails for good. */
function expandWith(plugin: VolumePlugin, pv: PersistentVolume, size: string, signal: AbortSignal): Promise<ExpandedVolume> {
  if (!canExpand(plugin)) return Promise.reject(new PluginError('NotSupported', msgNoExpand(plugin.name), false));
  return plugin.expand({ pv, sizeBytes: quantityToBytes(size), signal });
}

async function recordFailure(s: ExpanderOperation, claim: PersistentVolumeClaim, err: unknown): Promise<OperationOutcome> {
  if (s.handle.stopSignal.aborted) return 'stopped';
  const final = !(err instanceof PluginError && err.retryable);
  const message = msgResizeFailed(s.key, err instanceof Error ? err.message : String(err));
  const saved = await s.writeClaimStatus(markResizeFailed(s.claim(claim) ?? claim, message, final, s.now()));
  s.event(saved, 'Warning', EventReason.VolumeResizeFailed, message);
  s.d.log.warn({ claim: s.key, final, err: message }, 'volume expansion failed');
  // A final failure waits for the user to change the request; any other is retried with backoff.
  return final ? 'succeeded' : 'failed';
}

/** Step 3: the PV's capacity (never lowered) and the capacity the claim had before. */
async function recordCapacity(s: ExpanderOperation, pv: PersistentVolume, expanded: ExpandedVolume, before: string | undefined): Promise<PersistentVolume> {
  const current = s.volume(pv.metadata.name ?? '', pv) ?? pv;
  const have = current.spec.capacity?.storage;
  if (have !== undefined && compareQuantityStrings(have, expanded.capacity) >= 0) return current;
  const next = structuredClone(current);
  next.spec.capacity = { ...(next.spec.capacity ?? {}), storage: expanded.capacity };
  if (expanded.nodeExpansionRequired && before !== undefined && next.metadata.annotations?.[ANN_PRE_RESIZE_CAPACITY] === undefined) {
    next.metadata.annotations = { ...(next.metadata.annotations ?? {}), [ANN_PRE_RESIZE_CAPACITY]: before };
  }
  return s.writeVolume(next);
}
