/** Disk sizes: every backend here allocates whole GiB. */
import { formatBytes } from '@pv-controller/kube/quantity.js';
import { PluginError } from '../api/errors.js';

export const GIB = 1024n ** 3n;

/** Whole GiB holding `bytes`, at least 1 (a zero-byte request still gets the smallest disk). */
export function roundUpToGiB(bytes: bigint): number {
  if (bytes < 0n) throw new PluginError('InvalidParameter', `negative size ${bytes} requested`, false);
  const gib = bytes === 0n ? 1n : (bytes + GIB - 1n) / GIB;
  if (gib > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new PluginError('InvalidParameter', `size of ${bytes} bytes is too large`, false);
  }
  return Number(gib);
}

/** The capacity Quantity string of a disk of `gib` GiB ("10Gi"). */
export function gibCapacity(gib: number): string {
  return formatBytes(BigInt(gib) * GIB);
}
