/** The node-gone controller's Event messages: each names the node and, once due, how long it was gone. */
import { formatDuration } from '../duration.js';

/** Whole seconds, Go-style ("5m3s"): how long a node has been gone. */
export function goneFor(ms: number): string {
  return formatDuration(Math.max(0, Math.round(ms / 1000)) * 1000);
}

function outcome(policy: string | undefined): string {
  return policy === 'Delete'
    ? 'its claim is re-created to provision on another node and the volume is deleted'
    : `the volume and its claim are kept (reclaim policy ${policy ?? 'unset'})`;
}

export const msgNodeDeleted = (node: string, delayMs: number, policy: string | undefined): string =>
  `node "${node}" was deleted and this volume's data is on that node only: if the node stays gone for ${goneFor(delayMs)}, ${outcome(policy)}`;

export const msgNodeReturned = (node: string): string => `node "${node}" is back: the volume is not released`;

export const msgClaimInUse = (node: string, goneMs: number, pods: string[]): string =>
  `node "${node}" has been gone for ${goneFor(goneMs)}; the claim is re-created for a new node once no pod uses it (used by ${pods.join(', ')})`;

export const msgClaimRecreated = (node: string, goneMs: number, volume: string): string =>
  `re-created for a new node: volume ${volume} was on node "${node}", gone for ${goneFor(goneMs)}, and can never serve this claim again`;

export const msgVolumeDeleted = (node: string, goneMs: number): string =>
  `volume deleted: node "${node}" has been gone for ${goneFor(goneMs)}; its backing data stays on that node's disk, nothing there was deleted`;

export const msgVolumeKept = (node: string, goneMs: number, policy: string | undefined): string =>
  `node "${node}" has been gone for ${goneFor(goneMs)}; the volume and its claim are kept because the reclaim policy is ${policy ?? 'unset'}: ` +
  'the data may be recovered if the disk is attached to a node again; delete the claim to provision a new volume elsewhere';
