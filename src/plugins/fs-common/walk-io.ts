/**
 * The system calls of a tree walk (tree-walk.ts), in one of two ways chosen per walk by the
 * filesystem it starts on:
 * - local filesystems (ext4, xfs, btrfs, tmpfs, ...): synchronous calls on this thread, the walk
 *   yielding to the event loop after at most SLICE_MS of them. A call there waits at most for its
 *   disk, and a walk of 30,000 directories is ~300,000 calls: through the thread pool each one
 *   pays a hand-over to another thread and back, which on a busy machine cost ~1 ms a call;
 * - anything else (NFS, FUSE, SMB, Ceph, ...): every call through the thread pool, so a server
 *   that stops answering stalls the walk, never the process.
 * The walk is written once: it awaits every call, and awaiting a plain value costs no hand-over.
 */
import * as fs from 'node:fs';
import type { BigIntStats, Dir, Dirent } from 'node:fs';
import { promisify } from 'node:util';

type Awaitable<T> = T | Promise<T>;

export interface WalkIo {
  open(path: Buffer, flags: number): Awaitable<number>;
  fstat(fd: number): Awaitable<BigIntStats>;
  unlink(path: Buffer): Awaitable<void>;
  rmdir(path: Buffer): Awaitable<void>;
  opendir(path: Buffer, bufferSize: number): Awaitable<Dir>;
  read(dir: Dir): Awaitable<Dirent | null>;
  /** Lets the event loop run when this walk has held it long enough (synchronous calls only). */
  pause(): Awaitable<void>;
}

/** A walk's time on the event loop between two yields, when its calls are synchronous. */
const SLICE_MS = 5;

// opendir accepts 'buffer' (names come back as Buffers); its types only list string encodings.
const BUFFER_NAMES = 'buffer' as BufferEncoding;

const openRaw = promisify((path: Buffer, flags: number, cb: (err: NodeJS.ErrnoException | null, fd: number) => void) => fs.open(path, flags, cb));
const fstatBigint = promisify((fd: number, cb: (err: NodeJS.ErrnoException | null, st: BigIntStats) => void) =>
  fs.fstat(fd, { bigint: true }, cb),
);

/** Raw descriptors, not FileHandles: the walk closes them itself (closeSync: a directory never flushes). */
export const THREAD_POOL_IO: WalkIo = {
  open: (path, flags) => openRaw(path, flags),
  fstat: (fd) => fstatBigint(fd),
  unlink: (path) => fs.promises.unlink(path),
  rmdir: (path) => fs.promises.rmdir(path),
  opendir: (path, bufferSize) => fs.promises.opendir(path, { encoding: BUFFER_NAMES, bufferSize }),
  read: (dir) => dir.read(),
  pause: () => undefined,
};

export function synchronousIo(): WalkIo {
  let sliceStart = performance.now();
  return {
    open: (path, flags) => fs.openSync(path, flags),
    fstat: (fd) => fs.fstatSync(fd, { bigint: true }),
    unlink: (path) => fs.unlinkSync(path),
    rmdir: (path) => fs.rmdirSync(path),
    opendir: (path, bufferSize) => fs.opendirSync(path, { encoding: BUFFER_NAMES, bufferSize }),
    read: (dir) => dir.readSync(),
    pause: () => {
      if (performance.now() - sliceStart < SLICE_MS) return undefined;
      return new Promise<void>((resolve) =>
        setImmediate(() => {
          sliceStart = performance.now();
          resolve();
        }),
      );
    },
  };
}

/** statfs f_type of the filesystems whose calls never wait on a network. */
const LOCAL_FILESYSTEMS = new Set([
  0xef53, // ext2/3/4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x01021994, // tmpfs
  0x858458f6, // ramfs
  0xf2f52010, // f2fs
  0x2fc12fc1, // zfs
  0x794c7630, // overlayfs
]);

/** The calls for a walk that starts at `self` (a path naming the start directory exactly). */
export async function walkIoFor(self: Buffer): Promise<WalkIo> {
  const { type } = await fs.promises.statfs(self);
  return LOCAL_FILESYSTEMS.has(type) ? synchronousIo() : THREAD_POOL_IO;
}
