/** Event messages of the reclaimer, in upstream's `pv_controller.go` words; the reasons are runtime/event-reasons.ts. */

export const MSG_UNKNOWN_RECLAIM_POLICY = 'Volume has unrecognized PersistentVolumeReclaimPolicy';
export const MSG_NO_RECYCLER = 'No recycler plugin found for the volume!';
export const MSG_RECYCLED = 'Volume recycled';

/** Upstream's words, and when a plugin said why it declined the volume (a hostPath outside its roots), that too. */
export function msgNoDeleter(pvName: string, declined: string[] = []): string {
  const why = declined.length > 0 ? ` (${declined.join('; ')})` : '';
  return `error getting deleter volume plugin for volume "${pvName}": no volume plugin matched${why}`;
}

export function msgUsedByPods(podKeys: string[]): string {
  return `Volume is used by pods: ${podKeys.join(',')}`;
}

export function msgRecycleFailed(detail: string): string {
  return `Recycle failed: ${detail}`;
}
