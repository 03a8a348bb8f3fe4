/**
 * Crash-consistent copies of sized volumes' images (snapshots, restores and clones of
 * `sizing: image` volumes). The copy is of the image file, so it holds the filesystem as a
 * whole; it is consistent because nothing changes the filesystem while it is taken:
 *
 * - a mounted image's filesystem is frozen (`fsfreeze -f` on its mount point: its dirty data and
 *   journal are written out and every writer, ours and every pod's bind mount of it, waits) for
 *   the moment of the copy, and thawed (`fsfreeze -u`) in a finally, whatever happened. The
 *   freeze is bounded: a copy still running after `timeoutMs` is aborted, the filesystem thawed
 *   and the snapshot failed (retryably), so a slow copy never keeps a workload waiting longer;
 * - an image that is not mounted is copied as it is, once no loop device holds it (one attached
 *   without our mount means another user has the filesystem: refused, retryably).
 *
 * The copy is a reflink where the image's filesystem shares extents (XFS with reflink=1, btrfs:
 * instant, whatever the size, so the freeze lasts milliseconds), else a sparse copy (the image's
 * holes stay holes). A process killed while a filesystem is frozen leaves it frozen: the plugin's
 * recover() thaws every sized volume when the process starts again.
 */
import { constants as C, promises as fs } from 'node:fs';
import { PluginError } from '../api/errors.js';
import { copyOpenFile, ReflinkState, type CopyStats } from '../fs-common/file-copy.js';
import { imagePathOf, type ImageVolumes } from './image-volume.js';

/** How long a sized volume's filesystem may stay frozen for one copy (default). */
export const DEFAULT_FREEZE_TIMEOUT_MS = 60_000;
const MIB = 1024n * 1024n;

/** Copies the image file `source` to the new file `destination` (reflink, else sparse copy). */
export async function copyImageFile(source: string, destination: string | Buffer, signal?: AbortSignal): Promise<CopyStats> {
  const handle = await fs.open(source, C.O_RDONLY | C.O_NOFOLLOW);
  try {
    const st = await handle.stat({ bigint: true });
    if (!st.isFile()) throw new PluginError('Unsafe', `"${source}" is not a regular file; refusing to copy it as an image`, false);
    return await copyOpenFile(handle, st, destination, { reflink: new ReflinkState(), ...(signal ? { signal } : {}) });
  } finally {
    await handle.close();
  }
}

export async function freeze(images: ImageVolumes, mountPoint: string): Promise<void> {
  try {
    await images.run('fsfreeze', ['--freeze', mountPoint]);
  } catch (err) {
    const missing = /ENOENT|not found/i.test((err as Error).message);
    throw new PluginError(missing ? 'NotSupported' : 'Backend', `freezing "${mountPoint}" for a consistent copy: ${(err as Error).message}`, !missing, { cause: err });
  }
}

/** Thaws the filesystem at `mountPoint`; one that is not frozen is fine (fsfreeze says EINVAL). */
export async function thaw(images: ImageVolumes, mountPoint: string): Promise<void> {
  try {
    await images.run('fsfreeze', ['--unfreeze', mountPoint]);
  } catch (err) {
    if (/Invalid argument/i.test((err as Error).message)) return;
    throw err;
  }
}

/**
 * Runs `copy` while the filesystem of the sized volume `(root, backingName)` cannot change:
 * frozen when it is mounted at `mountPoint`, else as it is when no loop device holds the image.
 * Returns what `copy` returned and how long the filesystem was frozen.
 */
export async function whileConsistent<T>(
  images: ImageVolumes,
  where: { root: string; backingName: string; mountPoint: string },
  timeoutMs: number,
  copy: (signal: AbortSignal) => Promise<T>,
  signal?: AbortSignal,
): Promise<{ result: T; frozenSeconds: number }> {
  const image = imagePathOf(where.root, where.backingName);
  const mounted = await images.mountedFrom(where.mountPoint, image);
  if (!mounted && (await images.devicesOf(image)).length > 0) {
    throw new PluginError('InUse', `the image of "${where.backingName}" is attached to a loop device but not mounted at "${where.mountPoint}": someone else holds its filesystem`, true);
  }
  const bound = new AbortController();
  const timer = setTimeout(() => bound.abort(new PluginError('Transient', `copying the image of "${where.backingName}" took longer than the ${timeoutMs} ms its filesystem may stay frozen; it was thawed and the copy dropped`, true)), timeoutMs);
  const both = signal ? AbortSignal.any([signal, bound.signal]) : bound.signal;
  if (mounted) await freeze(images, where.mountPoint);
  const frozenAt = performance.now();
  try {
    return { result: await copy(both), frozenSeconds: mounted ? (performance.now() - frozenAt) / 1000 : 0 };
  } catch (err) {
    if (bound.signal.aborted) throw bound.signal.reason as Error;
    throw err;
  } finally {
    clearTimeout(timer);
    if (mounted) await thaw(images, where.mountPoint);
  }
}

/**
 * Grows the unmounted image file `image` to `bytes` (never shrinks): the file, then its ext4
 * (`e2fsck -f -p` first, as resize2fs asks of an unmounted filesystem; exit 1 means it fixed
 * something and the filesystem is consistent).
 */
export async function growImageFile(images: ImageVolumes, image: string, bytes: bigint, signal?: AbortSignal): Promise<void> {
  const { size } = await fs.stat(image, { bigint: true });
  if (bytes <= size) return;
  if (bytes % MIB !== 0n) throw new PluginError('InvalidParameter', `image sizes are whole MiB, not ${bytes}`, false);
  await fs.truncate(image, Number(bytes));
  await images.run('e2fsck', ['-f', '-p', image], signal).catch((err: unknown) => {
    if ((err as { cause?: { code?: number } }).cause?.code !== 1) throw err;
  });
  await images.run('resize2fs', [image], signal);
}
