/**
 * A timed window on the wall clock, for finding its requests in kube-apiserver's audit log (which
 * stamps each request with the wall-clock time it was received).
 */

/** Milliseconds since the epoch. */
export interface WallWindow {
  from: number;
  to: number;
}

/**
 * What a controller still sends for the work of a window once its clock has stopped: Events are
 * posted off the queue, and kube-controller-manager's pvc-protection writes its `Unused`
 * condition once a claim is Bound. A window's requests count until this much later.
 */
export const SETTLE_MS = 1000;

/** Waits SETTLE_MS and returns the wall clock then: the end of a window's request count. */
export async function settled(): Promise<number> {
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  return Date.now();
}
