/**
 * Capacity accounting for sized host-path volumes, per root. A root promises what its sized
 * volumes' records say (their image sizes) and may promise at most its filesystem's size times
 * the over-commit ratio. Images are sparse, so a second check keeps the promise physical: the
 * part of every image not yet written, plus the new volume, must fit in the free space (times
 * the same ratio) — a root on a filesystem shared with other data cannot promise space that data
 * already took. A claim that does not fit is refused naming the root and the numbers; it never
 * over-commits silently. Plain directories (`sizing: none`) promise no space and are not counted,
 * unless the root has a configured capacity (`--host-path-root-capacity`): then every volume, plain
 * or sized, is counted by the size it was given (the record's `reservedBytes`), and the root never
 * promises more than that capacity.
 */
import { promises as fs } from 'node:fs';
import { formatBytes } from '@pv-controller/kube/quantity.js';
import { listRecords } from '../fs-common/metadata-record.js';
import { isErrno } from '../fs-common/safe-path.js';
import { imagePathOf } from './image-volume.js';

export interface RootCapacity {
  root: string;
  /** The root filesystem's size (statfs f_blocks × f_bsize). */
  filesystemBytes: bigint;
  /** Free space an unprivileged writer sees (f_bavail). */
  freeBytes: bigint;
  /** The sizes the root's sized volumes were given. */
  allocatedBytes: bigint;
  /** Of those, what their images have not written yet (still to come out of freeBytes). */
  unwrittenBytes: bigint;
  sizedVolumes: number;
  overcommitRatio: number;
  /** What the admin said the root may hold (`--host-path-root-capacity`); none: its filesystem. */
  configuredBytes?: bigint;
  /** What the root's plain directories were given (their records' `reservedBytes`). */
  plainBytes: bigint;
  plainVolumes: number;
}

function scaled(bytes: bigint, ratio: number): bigint {
  return BigInt(Math.floor(Number(bytes) * ratio));
}

/** The numbers of one root, from one statfs, its records and one stat per sized image. */
export async function rootCapacity(root: string, overcommitRatio: number, configuredBytes?: bigint): Promise<RootCapacity> {
  const st = await fs.statfs(root, { bigint: true });
  let allocatedBytes = 0n;
  let unwrittenBytes = 0n;
  let sizedVolumes = 0;
  let plainBytes = 0n;
  let plainVolumes = 0;
  for (const record of await listRecords(root)) {
    if (record.sizing !== 'image' || record.sizeBytes === undefined) {
      plainBytes += decimalBytes(record.reservedBytes);
      plainVolumes += 1;
      continue;
    }
    // The record keeps the size given at creation; a grown image is larger.
    const image = await imageStat(imagePathOf(root, record.backingName));
    const size = maxOf(BigInt(record.sizeBytes), image.size);
    sizedVolumes += 1;
    allocatedBytes += size;
    unwrittenBytes += size > image.written ? size - image.written : 0n;
  }
  return {
    root,
    filesystemBytes: st.blocks * st.bsize,
    freeBytes: st.bavail * st.bsize,
    allocatedBytes,
    unwrittenBytes,
    sizedVolumes,
    overcommitRatio,
    ...(configuredBytes !== undefined ? { configuredBytes } : {}),
    plainBytes,
    plainVolumes,
  };
}

/** A record's decimal byte count; 0 for none or anything that is not one (a record is read from disk). */
function decimalBytes(text: string | undefined): bigint {
  return text !== undefined && /^[0-9]{1,20}$/.test(text) ? BigInt(text) : 0n;
}

/** What the configured capacity still has room for (sized and plain volumes together); undefined without one. */
function configuredRoom(c: RootCapacity): bigint | undefined {
  return c.configuredBytes === undefined ? undefined : c.configuredBytes - c.allocatedBytes - c.plainBytes;
}

const minOf = (a: bigint, b: bigint | undefined): bigint => (b !== undefined && b < a ? b : a);

const maxOf = (a: bigint, b: bigint): bigint => (a > b ? a : b);

/** An image's apparent size and the bytes it has on disk (it is sparse); zeros when it is not made yet. */
async function imageStat(image: string): Promise<{ size: bigint; written: bigint }> {
  try {
    const st = await fs.stat(image, { bigint: true });
    return { size: st.size, written: st.blocks * 512n };
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return { size: 0n, written: 0n };
    throw err;
  }
}

/** The largest sized volume this root can still take: the smaller of the two limits. */
export function remainingBytes(c: RootCapacity): bigint {
  const bySize = scaled(c.filesystemBytes, c.overcommitRatio) - c.allocatedBytes;
  const byFree = scaled(c.freeBytes, c.overcommitRatio) - c.unwrittenBytes;
  const least = minOf(minOf(bySize, byFree), configuredRoom(c));
  return least > 0n ? least : 0n;
}

/** The largest plain directory this root can still take: its free space, and within its configured capacity when it has one. */
export function plainRemainingBytes(c: RootCapacity): bigint {
  const least = minOf(c.freeBytes, configuredRoom(c));
  return least > 0n ? least : 0n;
}

/** Why a new volume of `bytes` does not fit in the root's configured capacity, or undefined when it does (or it has none). */
export function configuredFitProblem(c: RootCapacity, bytes: bigint): string | undefined {
  const room = configuredRoom(c);
  if (room === undefined || c.configuredBytes === undefined || bytes <= room) return undefined;
  return (
    `host-path root "${c.root}" cannot hold ${formatBytes(bytes)} more: ${formatBytes(c.allocatedBytes + c.plainBytes)} of its configured ` +
    `capacity ${formatBytes(c.configuredBytes)} already given to ${c.sizedVolumes + c.plainVolumes} volume(s)`
  );
}

/** Why a new sized volume of `bytes` does not fit in the root, or undefined when it does. */
export function fitProblem(c: RootCapacity, bytes: bigint): string | undefined {
  const configured = configuredFitProblem(c, bytes);
  if (configured) return configured;
  const ratio = c.overcommitRatio === 1 ? '' : ` × over-commit ${c.overcommitRatio}`;
  const limit = scaled(c.filesystemBytes, c.overcommitRatio);
  if (c.allocatedBytes + bytes > limit) {
    return (
      `host-path root "${c.root}" cannot hold ${formatBytes(bytes)} more: ${formatBytes(c.allocatedBytes)} of ` +
      `${formatBytes(limit)} (filesystem ${formatBytes(c.filesystemBytes)}${ratio}) already allocated to ${c.sizedVolumes} sized volume(s)`
    );
  }
  const free = scaled(c.freeBytes, c.overcommitRatio);
  if (c.unwrittenBytes + bytes > free) {
    return (
      `host-path root "${c.root}" cannot hold ${formatBytes(bytes)} more: its filesystem has ${formatBytes(c.freeBytes)} free${ratio}, ` +
      `and ${formatBytes(c.unwrittenBytes)} of it is promised to sized volumes not yet written`
    );
  }
  return undefined;
}

/**
 * What `roots` can still hold for a class: sized, what they can promise; plain, their free space
 * (within a configured capacity). The largest room of any one root, not the sum: a volume cannot
 * span roots, and two roots on one filesystem would count its free space twice.
 */
export function classRoom(capacities: readonly RootCapacity[], sized: boolean): { capacityBytes: bigint; maximumVolumeBytes: bigint } {
  let most = 0n;
  for (const c of capacities) {
    const room = sized ? remainingBytes(c) : plainRemainingBytes(c);
    if (room > most) most = room;
  }
  return { capacityBytes: most, maximumVolumeBytes: most };
}
