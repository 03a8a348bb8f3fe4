/** Event reasons and messages of the reclaimer, as upstream's `pkg/controller/volume/events`. */

export const REASON_VOLUME_FAILED_DELETE = 'VolumeFailedDelete';
/** Normal: the backend says the volume is still in use; deletion is retried, not counted. */
export const REASON_VOLUME_DELETE = 'VolumeDelete';
export const REASON_VOLUME_FAILED_RECYCLE = 'VolumeFailedRecycle';
export const REASON_VOLUME_RECYCLED = 'VolumeRecycled';
export const REASON_UNKNOWN_RECLAIM_POLICY = 'VolumeUnknownReclaimPolicy';

export const MSG_UNKNOWN_RECLAIM_POLICY = 'Volume has unrecognized PersistentVolumeReclaimPolicy';
export const MSG_NO_RECYCLER = 'No recycler plugin found for the volume!';
export const MSG_RECYCLED = 'Volume recycled';

export function msgNoDeleter(pvName: string): string {
  return `error getting deleter volume plugin for volume "${pvName}": no volume plugin matched`;
}

export function msgUsedByPods(podKeys: string[]): string {
  return `Volume is used by pods: ${podKeys.join(',')}`;
}

export function msgRecycleFailed(detail: string): string {
  return `Recycle failed: ${detail}`;
}
