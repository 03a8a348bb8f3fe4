/**
 * Copying a directory tree whose shape a volume's contents decide (snapshots, restores and clones
 * of directory volumes), with the guarantees of the delete walk (tree-walk.ts):
 *
 * - one loop over a stack of levels, never a recursion; a level keeps its names and identities,
 *   and while it is one of the WINDOW deepest its two open directories and its listing. A level
 *   that left the window is reopened as `..` of the level below it and must be the very
 *   directory the walk came down from (OpenDir.parent), on the same mount; its listing restarts
 *   and skips every name the destination already has (all of them complete: a level is left only
 *   downwards, and a sub-directory is complete when the walk climbs out of it). Memory stays
 *   bounded by the depth, descriptors by the window, however deep the tree;
 * - nothing is followed: every directory is opened O_NOFOLLOW relative to its opened parent, every
 *   file is opened O_NOFOLLOW and checked with fstat; a symbolic link is copied as a link (its
 *   target bytes, never resolved); names are bytes (not UTF-8 ones included);
 * - no mount is crossed: a sub-directory or a file on another mount than the source's start
 *   (a bind mount, a tmpfs) refuses the whole copy (PluginError Unsafe, naming it): its data is
 *   not the volume's;
 * - sockets, FIFOs and device nodes are not copied (counted as skipped): a FIFO is never opened
 *   (a read would wait for a writer), and a device node restored into another volume would hand
 *   its pod the device;
 * - files with several links inside the tree stay linked in the copy (up to LINK_MEMORY of them;
 *   past that, each is copied on its own);
 * - owner, mode (setuid bits after the owner) and times are kept; a directory's times are set
 *   when the walk climbs out of it;
 * - each file's data goes through file-copy.ts (a reflink where the filesystem offers one, a
 *   sparse copy otherwise).
 *
 * It copies into a destination nobody else writes (a temporary in the snapshot area, or a new
 * volume's temporary): the caller renames the result into place once it is complete.
 */
import { constants as C, promises as fs, type BigIntStats, type Dir } from 'node:fs';
import { addCopyStats, copyOpenFile, emptyCopyStats, ReflinkState, type CopyStats } from './file-copy.js';
import { describeMount, mountIdOf, mountPointAt, NEVER_ACROSS_A_MOUNT } from './mount-points.js';
import { isErrno, lstatOrUndefined, OpenDir, type DirIdentity, type Place } from './no-follow.js';
import { PluginError } from '../api/errors.js';

const WINDOW = 16;
const LISTING_BATCH = 128;
/** Hard-linked files remembered at once, and the longest destination path remembered for one. */
const LINK_MEMORY = 20_000;
const LINK_PATH_BYTES = 1024;
const FILE_FLAGS = C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK | C.O_NOCTTY;
const BUFFER_NAMES = 'buffer' as BufferEncoding;

export interface TreeCopyOptions {
  signal?: AbortSignal;
  /** Try reflinks for file data (default true; the first refusal switches them off). */
  reflink?: boolean;
}

interface Level {
  src: OpenDir | undefined;
  dst: OpenDir | undefined;
  srcPlace: Place;
  dstPlace: Place;
  srcId: DirIdentity;
  dstId: DirIdentity;
  /** The source directory's own stat (its mode, owner and times go to the copy). */
  meta: BigIntStats;
  listing: Dir | undefined;
  /** Reopened after leaving the window: names the destination has are done. */
  resumed: boolean;
}

function leftMount(place: Place, detail: string): PluginError {
  return new PluginError('Unsafe', `refusing to copy "${place.describe()}": ${detail}; ${NEVER_ACROSS_A_MOUNT}`, false);
}

/**
 * Owner, then mode, then times. A symlink's own (l-calls); anything else through its name, which
 * may be /proc/self/fd/<fd> (an l-call there would act on that magic link, not the directory).
 */
async function keepMetadata(path: Buffer | string, st: BigIntStats, isLink: boolean): Promise<void> {
  const [uid, gid, atime, mtime] = [Number(st.uid), Number(st.gid), Number(st.atimeNs) / 1e9, Number(st.mtimeNs) / 1e9];
  if (isLink) {
    await fs.lchown(path, uid, gid);
    await fs.lutimes(path, atime, mtime);
    return;
  }
  await fs.chown(path, uid, gid);
  await fs.chmod(path, Number(st.mode) & 0o7777);
  await fs.utimes(path, atime, mtime);
}

class TreeCopy {
  private readonly stack: Level[];
  private readonly stats = emptyCopyStats();
  private readonly links = new Map<string, string>();
  private readonly reflink: ReflinkState;

  constructor(
    private readonly start: { src: OpenDir; dst: OpenDir; meta: BigIntStats },
    private readonly options: TreeCopyOptions,
  ) {
    const { src, dst, meta } = start;
    this.stack = [{ src, dst, srcPlace: src.place, dstPlace: dst.place, srcId: src.identity, dstId: dst.identity, meta, listing: undefined, resumed: false }];
    this.reflink = new ReflinkState(options.reflink ?? true);
  }

  async run(): Promise<CopyStats> {
    try {
      for (;;) {
        this.options.signal?.throwIfAborted();
        const level = this.stack[this.stack.length - 1];
        level.listing ??= await fs.opendir(level.src!.self(), { encoding: BUFFER_NAMES, bufferSize: LISTING_BATCH });
        const dirent = await level.listing.read();
        if (dirent) {
          await this.copyEntry(level, dirent.name as unknown as Buffer);
        } else if (this.stack.length > 1) {
          await this.ascend();
        } else {
          await keepMetadata(this.start.dst.self(), this.start.meta, false);
          return this.stats;
        }
      }
    } finally {
      await this.closeAll();
    }
  }

  private async copyEntry(level: Level, name: Buffer): Promise<void> {
    const src = level.src!;
    const dst = level.dst!;
    if (level.resumed && (await lstatOrUndefined(dst.entry(name)))) return;
    const st = await fs.lstat(src.entry(name), { bigint: true }).catch((err: unknown) => {
      if (isErrno(err, 'ENOENT')) return undefined; // gone since it was listed
      throw err;
    });
    if (!st) return;
    if (st.isDirectory()) return this.descend(level, name, st);
    if (st.isSymbolicLink()) {
      await fs.symlink(await fs.readlink(src.entry(name), { encoding: 'buffer' }), dst.entry(name));
      await keepMetadata(dst.entry(name), st, true);
      this.stats.symlinks += 1;
      return;
    }
    if (st.isFile()) return this.copyFile(level, name, st);
    this.stats.skippedSpecial += 1;
  }

  private async descend(level: Level, name: Buffer, meta: BigIntStats): Promise<void> {
    await fs.mkdir(level.dst!.entry(name), 0o700);
    const src = await level.src!.child(name).catch((err: unknown) => {
      // Swapped for a symlink or a file since the lstat: copy nothing of it.
      if (isErrno(err, 'ELOOP') || isErrno(err, 'ENOTDIR') || isErrno(err, 'ENOENT')) return undefined;
      throw err;
    });
    if (!src) return;
    let dst: OpenDir;
    try {
      dst = await level.dst!.child(name);
      await fs.chown(dst.self(), Number(meta.uid), Number(meta.gid));
      await fs.chmod(dst.self(), Number(meta.mode) & 0o7777);
    } catch (err) {
      await src.close();
      throw err;
    }
    this.stats.directories += 1;
    this.stack.push({ src, dst, srcPlace: src.place, dstPlace: dst.place, srcId: src.identity, dstId: dst.identity, meta, listing: undefined, resumed: false });
    const leaving = this.stack.length - 1 - WINDOW;
    if (leaving >= 1) await this.release(this.stack[leaving]);
  }

  private async ascend(): Promise<void> {
    const done = this.stack.pop()!;
    const parent = this.stack[this.stack.length - 1];
    try {
      await done.listing?.close();
      done.listing = undefined;
      await fs.utimes(done.dst!.self(), Number(done.meta.atimeNs) / 1e9, Number(done.meta.mtimeNs) / 1e9);
      if (!parent.src) {
        parent.src = await done.src!.parent(parent.srcId, parent.srcPlace);
        parent.dst = await done.dst!.parent(parent.dstId, parent.dstPlace);
        parent.resumed = true;
      }
    } finally {
      await this.release(done);
    }
  }

  private async copyFile(level: Level, name: Buffer, st: BigIntStats): Promise<void> {
    const target = level.dst!.entry(name);
    const key = `${st.dev}:${st.ino}`;
    const linkedTo = st.nlink > 1n ? this.links.get(key) : undefined;
    if (linkedTo !== undefined) {
      await fs.link(linkedTo, target);
      this.stats.hardLinks += 1;
      return;
    }
    const source = await fs.open(level.src!.entry(name), FILE_FLAGS).catch((err: unknown) => {
      if (isErrno(err, 'ENOENT') || isErrno(err, 'ELOOP')) return undefined; // gone, or now a symlink: nothing to copy
      throw err;
    });
    if (!source) return;
    try {
      const opened = await source.stat({ bigint: true });
      if (!opened.isFile()) {
        this.stats.skippedSpecial += 1;
        return;
      }
      await this.assertSameMount(level.srcPlace.below(name), source.fd, opened);
      addCopyStats(this.stats, await copyOpenFile(source, opened, target, { reflink: this.reflink, ...(this.options.signal ? { signal: this.options.signal } : {}) }));
      await keepMetadata(target, opened, false);
    } finally {
      await source.close();
    }
    const path = level.dst!.pathOf(name);
    if (st.nlink > 1n && this.links.size < LINK_MEMORY && Buffer.byteLength(path) <= LINK_PATH_BYTES) this.links.set(key, path);
  }

  /** A file bind-mounted into the volume lies on another mount (or filesystem): refused. */
  private async assertSameMount(place: Place, fd: number, st: BigIntStats): Promise<void> {
    const start = this.start.src.identity;
    const mountId = start.mountId === undefined ? undefined : mountIdOf(fd);
    if (st.dev === start.dev && mountId === start.mountId) return;
    const mount = await mountPointAt(place.path());
    throw leftMount(place, mount ? describeMount(mount) : 'it is on another filesystem or mount');
  }

  private async release(level: Level): Promise<void> {
    const { listing, src, dst } = level;
    level.listing = undefined;
    level.src = undefined;
    level.dst = undefined;
    await listing?.close().catch(() => undefined);
    await src?.close();
    await dst?.close();
  }

  /** Everything the walk opened; never the start's directories, which the caller holds. */
  private async closeAll(): Promise<void> {
    const [first, ...below] = this.stack;
    for (const level of below.reverse()) await this.release(level);
    await first.listing?.close().catch(() => undefined);
    first.listing = undefined;
  }
}

/**
 * Copies the contents of the open directory `source` into the open, empty directory
 * `destination` (see the top of this file); `destination` gets `source`'s owner, mode and times.
 */
export async function copyTree(source: OpenDir, destination: OpenDir, options: TreeCopyOptions = {}): Promise<CopyStats> {
  const meta = await fs.stat(source.self(), { bigint: true });
  return new TreeCopy({ src: source, dst: destination, meta }, options).run();
}
