/**
 * Primitives for walking and deleting directory trees without following symlinks or crossing a
 * mount: an open directory named through /proc/self/fd (openat-like) that knows the mount of the
 * directory its walk started from, and fd-relative recursive removal. Used through safe-path.ts,
 * which documents the guarantees and the residual races (and record-temporaries.ts, for the
 * record directory).
 */
import { constants as C, promises as fs, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { posix } from 'node:path';
import { describeMount, mountIdOf, mountPointAt, mountWithId, NEVER_ACROSS_A_MOUNT } from './mount-points.js';
import { PluginError } from '../plugin.js';

const DIR_FLAGS = C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW;
const PROC_FD = '/proc/self/fd';

let procFdWorks: Promise<boolean> | undefined;

function procFdUsable(): Promise<boolean> {
  procFdWorks ??= fs.readdir(PROC_FD).then(
    () => true,
    () => false,
  );
  return procFdWorks;
}

/**
 * Which mount a directory lies on: its mount id (fdinfo of the open descriptor, so it is the
 * directory actually opened, not whatever its path names now) and st_dev. Without /proc the
 * mount id is unknown and st_dev alone decides (a bind mount of the same filesystem then passes).
 */
interface MountIdentity {
  mountId: number | undefined;
  dev: number;
}

async function identityOf(handle: FileHandle, viaProc: boolean): Promise<MountIdentity> {
  const { dev } = await handle.stat();
  return { mountId: viaProc ? await mountIdOf(handle.fd) : undefined, dev };
}

/**
 * An open directory and how to name an entry in it without re-walking its path. Every directory
 * opened below the first one (`open`) through `child` must lie on the same mount: one that does
 * not is closed again and refused, so a walk never leaves the mount it started on.
 */
export class OpenDir {
  private constructor(
    private readonly handle: FileHandle,
    /** Where it was opened (for messages and the no-/proc fallback; it may have moved since). */
    readonly path: string,
    private readonly viaProc: boolean,
    /** The mount of the directory the walk started from (the root). */
    private readonly start: { path: string; identity: MountIdentity },
  ) {}

  /** Opens the directory a walk starts from (a root): the mount every child must share. */
  static async open(realPath: string): Promise<OpenDir> {
    const handle = await fs.open(realPath, DIR_FLAGS);
    try {
      const viaProc = await procFdUsable();
      return new OpenDir(handle, realPath, viaProc, { path: realPath, identity: await identityOf(handle, viaProc) });
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  /** The directory itself, as a path the kernel resolves to exactly this open directory. */
  self(): string {
    return this.viaProc ? `${PROC_FD}/${this.handle.fd}` : this.path;
  }

  entry(name: string): string {
    return `${this.self()}/${name}`;
  }

  /** The entry's path as opened (for messages). */
  pathOf(name: string): string {
    return posix.join(this.path, name);
  }

  /** Opens the sub-directory `name` (never through a symlink); refuses one on another mount. */
  async child(name: string): Promise<OpenDir> {
    const handle = await fs.open(this.entry(name), DIR_FLAGS);
    try {
      const identity = await identityOf(handle, this.viaProc);
      await this.assertStartMount(this.pathOf(name), identity);
      return new OpenDir(handle, this.pathOf(name), this.viaProc, this.start);
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  /** Refuses an entry whose lstat shows another filesystem, before anything opens it. */
  assertSameDevice(name: string, st: Stats): Promise<void> {
    return this.assertStartMount(this.pathOf(name), { mountId: this.start.identity.mountId, dev: st.dev });
  }

  private async assertStartMount(path: string, identity: MountIdentity): Promise<void> {
    const start = this.start.identity;
    if (identity.dev === start.dev && identity.mountId === start.mountId) return;
    const mount = (identity.mountId === undefined ? undefined : await mountWithId(identity.mountId)) ?? (await mountPointAt(path));
    const which = mount ? describeMount(mount) : 'it is on another filesystem or mount';
    const message = `refusing to descend into "${path}": ${which}, not on the mount of "${this.start.path}"; ${NEVER_ACROSS_A_MOUNT}`;
    throw new PluginError('Unsafe', message, false);
  }

  stat(): Promise<Stats> {
    return this.handle.stat();
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

export async function lstatOrUndefined(path: string): Promise<Stats | undefined> {
  try {
    return await fs.lstat(path);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return undefined;
    throw err;
  }
}

const MAX_EMPTY_PASSES = 5;

/** Removes the entry `name` of `dir` (recursively if a directory), never following a symlink or crossing a mount. */
export async function removeEntry(dir: OpenDir, name: string, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  const st = await lstatOrUndefined(dir.entry(name));
  if (!st) return;
  if (!st.isDirectory()) {
    await fs.unlink(dir.entry(name)).catch(ignoreErrno('ENOENT')).catch(refuseMountPoint(dir, name));
    return;
  }
  await dir.assertSameDevice(name, st);
  let child: OpenDir;
  try {
    child = await dir.child(name);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return;
    if (isErrno(err, 'ELOOP') || isErrno(err, 'ENOTDIR')) {
      // Swapped for a symlink or file since the lstat: unlink that (never follows).
      await fs.unlink(dir.entry(name)).catch(ignoreErrno('ENOENT')).catch(refuseMountPoint(dir, name));
      return;
    }
    throw err;
  }
  try {
    await emptyOpenDir(child, signal);
  } finally {
    await child.close();
  }
  await fs.rmdir(dir.entry(name)).catch(ignoreErrno('ENOENT')).catch(refuseMountPoint(dir, name));
}

/**
 * EBUSY from unlink or rmdir: when the entry is a mount point (one made after we looked), say so
 * as a refusal; any other EBUSY (an NFS silly-renamed file in use) stays a retryable failure.
 */
function refuseMountPoint(dir: OpenDir, name: string): (err: unknown) => Promise<never> {
  return async (err: unknown) => {
    if (!isErrno(err, 'EBUSY')) throw err;
    const mount = await mountPointAt(dir.pathOf(name));
    if (!mount) throw err;
    throw new PluginError('Unsafe', `refusing to remove "${dir.pathOf(name)}": ${describeMount(mount)}; ${NEVER_ACROSS_A_MOUNT}`, false);
  };
}

export async function emptyOpenDir(dir: OpenDir, signal?: AbortSignal): Promise<void> {
  for (let pass = 0; pass < MAX_EMPTY_PASSES; pass++) {
    const names = await fs.readdir(dir.self());
    if (names.length === 0) return;
    for (const name of names) await removeEntry(dir, name, signal);
  }
  throw new PluginError('Transient', `directory "${dir.self()}" keeps gaining entries while being emptied`, true);
}

export function isErrno(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as NodeJS.ErrnoException).code === code;
}

export function ignoreErrno<T>(code: string, value?: T): (err: unknown) => T | undefined {
  return (err: unknown) => {
    if (isErrno(err, code)) return value;
    throw err;
  };
}
