/**
 * host-path volumes that hold their size (StorageClass parameter `sizing: image`): the volume is
 * a sparse ext4 image `<root>/.pv-controller-images/<backingName>.img` of the claim's size,
 * loop-mounted at the volume directory `<root>/<backingName>`. A write past the size fails with
 * ENOSPC inside the pod; usage is one statfs of the mount; growing is `truncate` + `losetup -c` +
 * `resize2fs` while mounted. Each step is idempotent, so a retry after a crash at any point
 * finishes the same volume:
 *
 *   record ─► mount-point directory ─► image (made under a temporary name, formatted, renamed:
 *   an image under its final name is always a complete filesystem) ─► loop mount
 *
 * and deletion undoes it in reverse: unmount, detach any loop device still backed by the image
 * (a crash between attach and mount leaves one), remove the image, then the directory and the
 * record through the same containment rules as every other directory volume.
 *
 * The mount uses `mount -o loop`, whose loop device is set to auto-clear: unmounting detaches it.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants as C, existsSync, promises as fs } from 'node:fs';
import { posix } from 'node:path';
import { PluginError } from '../api/errors.js';
import { mountPointAt, readMountPoints } from '../fs-common/mount-points.js';
import { isErrno } from '../fs-common/safe-path.js';

export const SIZING_PARAMETER = 'sizing';
export const SIZINGS = ['none', 'image'] as const;
export type Sizing = (typeof SIZINGS)[number];

/** Directory, directly under a root, holding the images: never a volume, never scanned as one. */
export const IMAGE_DIR = '.pv-controller-images';

const MIB = 1024n * 1024n;
/** ext4's own metadata needs room: a smaller request gets an image of this size. */
export const MIN_IMAGE_BYTES = 16n * MIB;
const COMMAND_TIMEOUT_MS = 120_000;
const TOOLS = ['mkfs.ext4', 'e2fsck', 'losetup', 'mount', 'umount', 'resize2fs'] as const;
const TOOL_DIRS = ['/usr/sbin', '/sbin', '/usr/bin', '/bin', '/usr/local/sbin', '/usr/local/bin'];

/** The image size for a request: whole MiB, at least MIN_IMAGE_BYTES. */
export function imageBytesFor(requestBytes: bigint): bigint {
  const whole = ((requestBytes + MIB - 1n) / MIB) * MIB;
  return whole < MIN_IMAGE_BYTES ? MIN_IMAGE_BYTES : whole;
}

export type Command = (file: string, args: string[], signal?: AbortSignal) => Promise<string>;

/** Runs a system tool; a failure names the command and carries its stderr. */
export const runCommand: Command = (file, args, signal) =>
  new Promise((resolve, reject) => {
    execFile(file, args, { timeout: COMMAND_TIMEOUT_MS, ...(signal ? { signal } : {}) }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${file} ${args.join(' ')}: ${String(stderr).trim() || err.message}`, { cause: err }));
      else resolve(String(stdout));
    });
  });

/** Why this process cannot make sized volumes (not root, no loop devices, a tool missing), or undefined. */
export function imageSupportProblem(): string | undefined {
  if (process.platform !== 'linux') return 'sizing: image needs Linux loop devices';
  if (process.getuid?.() !== 0) return 'sizing: image needs the provisioner to run as root (it attaches loop devices and mounts filesystems)';
  if (!existsSync('/dev/loop-control')) return 'sizing: image needs loop devices, and /dev/loop-control is missing';
  const missing = TOOLS.filter((tool) => !TOOL_DIRS.some((dir) => existsSync(posix.join(dir, tool))));
  if (missing.length > 0) return `sizing: image needs ${missing.join(', ')} (packages e2fsprogs and util-linux)`;
  return undefined;
}

export function imagePathOf(root: string, backingName: string): string {
  return posix.join(root, IMAGE_DIR, `${backingName}.img`);
}

export class ImageVolumes {
  constructor(readonly run: Command = runCommand) {}

  /**
   * The image for `backingName` made by `fill` (given a temporary path beside the final name; it
   * must leave a complete filesystem there), unless the image exists already. Temporaries of
   * killed attempts go first; the final name appears only by a rename of a complete image.
   */
  async ensureImageFrom(root: string, backingName: string, fill: (temporary: string) => Promise<void>): Promise<boolean> {
    const image = imagePathOf(root, backingName);
    await ensureImageDir(root);
    if (await isRegularFile(image)) return false;
    await this.removeImage(root, backingName);
    const temporary = `${image}.tmp-${randomBytes(4).toString('hex')}`;
    try {
      await fill(temporary);
      await fs.rename(temporary, image);
    } catch (err) {
      await fs.rm(temporary, { force: true });
      throw err;
    }
    return true;
  }

  /** The formatted image of `bytes` for `backingName` (an existing one is kept, whatever its size). */
  async ensureImage(root: string, backingName: string, bytes: bigint, signal?: AbortSignal): Promise<void> {
    const image = imagePathOf(root, backingName);
    await ensureImageDir(root);
    if (await isRegularFile(image)) return;
    const temporary = `${image}.tmp-${randomBytes(4).toString('hex')}`;
    const handle = await fs.open(temporary, C.O_CREAT | C.O_EXCL | C.O_WRONLY | C.O_NOFOLLOW, 0o600);
    try {
      await handle.truncate(Number(bytes));
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await this.run('mkfs.ext4', ['-q', '-F', '-m', '0', '-E', 'lazy_itable_init=1,lazy_journal_init=1,nodiscard', temporary], signal);
      await fs.rename(temporary, image);
    } catch (err) {
      await fs.rm(temporary, { force: true });
      throw err;
    }
  }

  /** Mounts the image at `path` unless it already is; leaves the filesystem's root open to every uid (0777, as plain directories). */
  async ensureMounted(root: string, backingName: string, path: string, signal?: AbortSignal): Promise<void> {
    const image = imagePathOf(root, backingName);
    if (await this.mountedFrom(path, image)) {
      // Mounted already (a retry): a device a killed attempt attached beside the mount goes.
      await this.detachUnmounted(image);
      return;
    }
    if (await isMountPoint(path)) {
      throw new PluginError('Unsafe', `"${path}" is a mount point, but not of the image "${image}"; refusing to mount over it`, false);
    }
    await this.detachUnmounted(image);
    await this.run('mount', ['-o', 'loop,nosuid,nodev', image, path], signal);
    await fs.chmod(path, 0o777);
  }

  /** Unmounts `path` when the image is mounted there, then detaches any loop device the image still backs. */
  async release(root: string, backingName: string, path: string): Promise<void> {
    const image = imagePathOf(root, backingName);
    if (await this.mountedFrom(path, image)) {
      try {
        await this.run('umount', [path]);
      } catch (err) {
        const busy = /busy/i.test((err as Error).message);
        throw new PluginError(busy ? 'InUse' : 'Backend', `unmounting "${path}": ${(err as Error).message}`, true, { cause: err });
      }
    }
    await this.detachUnmounted(image);
  }

  /** Removes the image and any temporary image a killed format left for the same name. */
  async removeImage(root: string, backingName: string): Promise<void> {
    const dir = posix.join(root, IMAGE_DIR);
    const prefix = `${backingName}.img`;
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch (err) {
      if (isErrno(err, 'ENOENT')) return;
      throw err;
    }
    for (const name of names) {
      if (name === prefix || name.startsWith(`${prefix}.tmp-`)) await fs.rm(posix.join(dir, name), { force: true });
    }
  }

  /** The image's current size (0 when there is none). */
  async currentBytes(root: string, backingName: string): Promise<bigint> {
    try {
      return (await fs.stat(imagePathOf(root, backingName), { bigint: true })).size;
    } catch (err) {
      if (isErrno(err, 'ENOENT')) return 0n;
      throw err;
    }
  }

  /**
   * Grows a mounted image to `bytes` (never shrinks); returns the size it now has. Online
   * (`resize2fs` on the mounted device) needs CAP_SYS_RESOURCE; without it the filesystem is
   * grown offline, but only when unmounting it here released the image entirely: a loop device
   * still attached means another mount (a pod's) holds the filesystem, and resizing the file
   * under it would corrupt it, so that case is remounted and refused as in use.
   */
  async grow(root: string, backingName: string, path: string, bytes: bigint, signal?: AbortSignal): Promise<bigint> {
    const image = imagePathOf(root, backingName);
    const [device] = await this.devicesOf(image);
    if (device === undefined || !(await this.mountedFrom(path, image))) {
      throw new PluginError('Backend', `the image of "${backingName}" is not mounted at "${path}": cannot grow it`, true);
    }
    const current = await this.currentBytes(root, backingName);
    if (bytes > current) {
      await fs.truncate(image, Number(bytes));
      await this.run('losetup', ['-c', device], signal);
    }
    try {
      await this.run('resize2fs', [device], signal);
    } catch (err) {
      if (!/Permission denied to resize/i.test((err as Error).message)) throw err;
      await this.growOffline(root, backingName, path, device, signal);
    }
    return bytes > current ? bytes : current;
  }

  private async growOffline(root: string, backingName: string, path: string, device: string, signal?: AbortSignal): Promise<void> {
    const image = imagePathOf(root, backingName);
    await this.release(root, backingName, path);
    if ((await this.devicesOf(image)).length > 0) {
      await this.run('mount', ['-o', 'nosuid,nodev', device, path], signal);
      throw new PluginError(
        'InUse',
        `the filesystem of "${backingName}" is mounted elsewhere (a pod uses it) and this process lacks CAP_SYS_RESOURCE for an online resize: ` +
          'it grows once the volume is not in use',
        true,
      );
    }
    try {
      await this.run('e2fsck', ['-f', '-p', image], signal).catch((err: unknown) => {
        // e2fsck exits 1 when it fixed something: the filesystem is then consistent.
        if ((err as { cause?: { code?: number } }).cause?.code !== 1) throw err;
      });
      await this.run('resize2fs', [image], signal);
    } finally {
      await this.ensureMounted(root, backingName, path, signal);
    }
  }

  /** Whether `path` is the mount point of a loop device backed by `image`. */
  async mountedFrom(path: string, image: string): Promise<boolean> {
    if (!(await isMountPoint(path))) return false;
    const source = await mountSource(path);
    return source !== undefined && (await this.devicesOf(image)).includes(source);
  }

  /** Loop devices backed by `image`. */
  async devicesOf(image: string): Promise<string[]> {
    if (!(await isRegularFile(image))) return [];
    const out = await this.run('losetup', ['--noheadings', '--output', 'NAME', '--associated', image]);
    return out.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('/dev/'));
  }

  /** Detaches the loop devices of `image` that nothing mounts (what a crash between attach and mount leaves). */
  private async detachUnmounted(image: string): Promise<void> {
    const devices = await this.devicesOf(image);
    if (devices.length === 0) return;
    const mounted = new Set((await readMountPoints())?.map((m) => m.source) ?? []);
    for (const device of devices) if (!mounted.has(device)) await this.run('losetup', ['-d', device]);
  }
}

async function ensureImageDir(root: string): Promise<void> {
  const dir = posix.join(root, IMAGE_DIR);
  try {
    await fs.mkdir(dir, { mode: 0o700 });
  } catch (err) {
    if (!isErrno(err, 'EEXIST')) throw err;
  }
  const st = await fs.lstat(dir);
  if (!st.isDirectory()) throw new PluginError('Unsafe', `"${dir}" is not a directory (a symlink?); refusing to keep images there`, false);
}

async function isRegularFile(path: string): Promise<boolean> {
  try {
    const st = await fs.lstat(path);
    if (!st.isFile()) throw new PluginError('Unsafe', `"${path}" is not a regular file; refusing to use it as an image`, false);
    return true;
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return false;
    throw err;
  }
}

/** A directory is a mount point when it lies on another device than its parent (two stats, no mount-table scan). */
export async function isMountPoint(path: string): Promise<boolean> {
  try {
    const [self, parent] = await Promise.all([fs.lstat(path), fs.lstat(posix.dirname(path))]);
    return self.isDirectory() && self.dev !== parent.dev;
  } catch (err) {
    if (isErrno(err, 'ENOENT') || isErrno(err, 'ENOTDIR')) return false;
    throw err;
  }
}

/** The source of the mount at `path` (e.g. /dev/loop3), from this process's mount table. */
async function mountSource(path: string): Promise<string | undefined> {
  return (await mountPointAt(path))?.source;
}
