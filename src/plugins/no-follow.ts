/**
 * Primitives for walking and deleting directory trees without following symlinks: an open
 * directory named through /proc/self/fd (openat-like), and fd-relative recursive removal.
 * Used only through safe-path.ts, which documents the guarantees and the residual races.
 */
import { constants as C, promises as fs, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { posix } from 'node:path';
import { PluginError } from './plugin.js';

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

/** An open directory and how to name an entry in it without re-walking its path. */
export class OpenDir {
  private constructor(
    private readonly handle: FileHandle,
    private readonly realPath: string,
    private readonly viaProc: boolean,
  ) {}

  static async open(realPath: string, at?: OpenDir, name?: string): Promise<OpenDir> {
    const where = at && name !== undefined ? at.entry(name) : realPath;
    const handle = await fs.open(where, DIR_FLAGS);
    return new OpenDir(handle, realPath, await procFdUsable());
  }

  /** The directory itself, as a path the kernel resolves to exactly this open directory. */
  self(): string {
    return this.viaProc ? `${PROC_FD}/${this.handle.fd}` : this.realPath;
  }

  entry(name: string): string {
    return `${this.self()}/${name}`;
  }

  child(name: string): Promise<OpenDir> {
    return OpenDir.open(posix.join(this.realPath, name), this, name);
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

/** Removes the entry `name` of `dir` (recursively if a directory), never following a symlink. */
export async function removeEntry(dir: OpenDir, name: string, device: number | undefined, signal?: AbortSignal) {
  signal?.throwIfAborted();
  const st = await lstatOrUndefined(dir.entry(name));
  if (!st) return;
  if (!st.isDirectory()) {
    await fs.unlink(dir.entry(name)).catch(ignoreErrno('ENOENT'));
    return;
  }
  if (device !== undefined && st.dev !== device) {
    throw new PluginError('Unsafe', `refusing to descend into "${dir.entry(name)}": it is on another filesystem (a mount point)`, false);
  }
  let child: OpenDir;
  try {
    child = await dir.child(name);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return;
    if (isErrno(err, 'ELOOP') || isErrno(err, 'ENOTDIR')) {
      // Swapped for a symlink or file since the lstat: unlink that (never follows).
      await fs.unlink(dir.entry(name)).catch(ignoreErrno('ENOENT'));
      return;
    }
    throw err;
  }
  try {
    await emptyOpenDir(child, st.dev, signal);
  } finally {
    await child.close();
  }
  await fs.rmdir(dir.entry(name)).catch(ignoreErrno('ENOENT'));
}

export async function emptyOpenDir(dir: OpenDir, device: number, signal?: AbortSignal): Promise<void> {
  for (let pass = 0; pass < MAX_EMPTY_PASSES; pass++) {
    const names = await fs.readdir(dir.self());
    if (names.length === 0) return;
    for (const name of names) await removeEntry(dir, name, device, signal);
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
