/**
 * Deleting a directory tree whose shape a volume's contents decide: iterative, never following a
 * symlink, never crossing a mount (through no-follow.ts's OpenDir), with memory and descriptors
 * bounded whatever the depth, and time linear in the number of entries.
 *
 * - One loop, no recursion: a stack of the directories from the start down to the one being
 *   emptied. A level keeps its name (bytes), its identity (st_dev, st_ino) and, while it is one
 *   of the WINDOW deepest, its open descriptor and its listing; nothing else, no path.
 * - A listing is read as it goes (opendir, a batch at a time), never whole: a directory with
 *   millions of entries costs a batch of memory.
 * - A file, symlink or other non-directory is unlinked (unlink never follows); a directory is
 *   removed with rmdir when it is empty, else descended into. Going back up, a level still open
 *   carries on where its listing was; one that left the window is reopened as `..` of the level
 *   below it and must be the very directory the walk came down from (st_dev and st_ino), else the
 *   walk stops with a retryable error: the tree was moved under it. Its listing restarts and
 *   reads only what is left (on ext4 also the blocks its deleted entries emptied); with the
 *   window, that happens only to directories more than WINDOW levels above the deepest one.
 * - A directory that gains entries while it is emptied is emptied again, MAX_PASSES times at most.
 * - EBUSY from unlink or rmdir on a mount point made after safe-path looked at the mount table is
 *   a refusal naming the mount, as every other mount the walk meets.
 * - The calls are synchronous in slices on a local filesystem, through the thread pool on any
 *   other (walk-io.ts); the walk awaits each either way.
 */
import type { Dir } from 'node:fs';
import { describeMount, mountPointAt, NEVER_ACROSS_A_MOUNT } from './mount-points.js';
import { isErrno, OpenDir, type DirIdentity, type EntryName, type Place } from './no-follow.js';
import { walkIoFor, type WalkIo } from './walk-io.js';
import { PluginError } from '../api/errors.js';

/** Directories (below the start) held open at once: two descriptors each. */
const WINDOW = 16;
/** Entries a listing reads per batch. */
const LISTING_BATCH = 128;
const MAX_PASSES = 5;

interface ListedEntry {
  name: Buffer;
  /** False also where the filesystem does not say (d_type unknown): unlink then tells. */
  isDirectory: boolean;
}

/** A directory's listing, read a batch at a time; names as bytes. */
class Listing {
  private constructor(
    private readonly io: WalkIo,
    private readonly dir: Dir,
  ) {}

  static async of(io: WalkIo, dir: OpenDir): Promise<Listing> {
    return new Listing(io, await io.opendir(dir.self(), LISTING_BATCH));
  }

  async next(): Promise<ListedEntry | undefined> {
    const dirent = await this.io.read(this.dir);
    if (dirent === null) return undefined;
    return { name: dirent.name as unknown as Buffer, isDirectory: dirent.isDirectory() };
  }

  /** Synchronous: closing a directory stream never waits on storage. */
  close(): void {
    this.dir.closeSync();
  }
}

interface Level {
  place: Place;
  identity: DirIdentity;
  /** Open while the level is in the window (always for the start, which its caller holds). */
  dir: OpenDir | undefined;
  listing: Listing | undefined;
  /** How many times this directory was found not empty after its listing ended. */
  passes: number;
}

function keepsGaining(place: Place): PluginError {
  return new PluginError('Transient', `directory "${place.describe()}" keeps gaining entries while being emptied`, true);
}

/**
 * EBUSY from unlink or rmdir: when the entry is a mount point (one made after we looked), say so
 * as a refusal; any other EBUSY (an NFS silly-renamed file in use) stays a retryable failure.
 */
async function refuseMountPoint(dir: OpenDir, name: EntryName, err: unknown): Promise<never> {
  if (!isErrno(err, 'EBUSY')) throw err;
  const mount = await mountPointAt(dir.pathOf(name));
  if (!mount) throw err;
  const message = `refusing to remove "${dir.place.below(name).describe()}": ${describeMount(mount)}; ${NEVER_ACROSS_A_MOUNT}`;
  throw new PluginError('Unsafe', message, false);
}

/** Unlinks a non-directory; 'directory' when the entry is one (EISDIR; EPERM outside Linux, as POSIX allows). */
async function unlinkEntry(io: WalkIo, dir: OpenDir, name: EntryName): Promise<'gone' | 'directory'> {
  try {
    await io.unlink(dir.entry(name));
    return 'gone';
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return 'gone';
    if (isErrno(err, 'EISDIR') || (isErrno(err, 'EPERM') && process.platform !== 'linux')) return 'directory';
    return refuseMountPoint(dir, name, err);
  }
}

/** Removes an empty directory: true when it is gone, false when it is not empty. */
async function rmdirEntry(io: WalkIo, dir: OpenDir, name: EntryName): Promise<boolean> {
  try {
    await io.rmdir(dir.entry(name));
    return true;
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return true;
    if (isErrno(err, 'ENOTEMPTY') || isErrno(err, 'EEXIST')) return false;
    // Became a file or symlink since it was listed: unlink that (never follows).
    if (isErrno(err, 'ENOTDIR')) return (await unlinkEntry(io, dir, name)) === 'gone';
    return refuseMountPoint(dir, name, err);
  }
}

/**
 * Opens the sub-directory to empty; undefined when it is gone, or was swapped for a symlink or
 * file (unlinked then; swapped back meanwhile, it is left for its parent's next pass).
 */
async function openToEmpty(io: WalkIo, dir: OpenDir, name: EntryName): Promise<OpenDir | undefined> {
  try {
    return await dir.child(name, io);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return undefined;
    if (!isErrno(err, 'ELOOP') && !isErrno(err, 'ENOTDIR')) throw err;
    await unlinkEntry(io, dir, name);
    return undefined;
  }
}

/** The walk below one start directory (see the top of this file). */
class TreeWalk {
  private readonly stack: Level[];

  constructor(
    start: OpenDir,
    private readonly io: WalkIo,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.stack = [{ place: start.place, identity: start.identity, dir: start, listing: undefined, passes: 0 }];
  }

  /** One pass over the start's listing, emptying every directory met; true when it had entries. */
  async run(): Promise<boolean> {
    let startHadEntries = false;
    try {
      for (;;) {
        await this.io.pause();
        this.signal?.throwIfAborted();
        const level = this.stack[this.stack.length - 1];
        const entry = await this.nextEntry(level);
        if (entry) {
          startHadEntries ||= this.stack.length === 1;
          await this.remove(level.dir!, entry);
        } else if (this.stack.length > 1) {
          await this.ascend();
        } else {
          return startHadEntries;
        }
      }
    } finally {
      await this.closeAll();
    }
  }

  private async nextEntry(level: Level): Promise<ListedEntry | undefined> {
    level.listing ??= await Listing.of(this.io, level.dir!);
    return level.listing.next();
  }

  private async remove(dir: OpenDir, entry: ListedEntry): Promise<void> {
    if (!entry.isDirectory && (await unlinkEntry(this.io, dir, entry.name)) === 'gone') return;
    if (await rmdirEntry(this.io, dir, entry.name)) return;
    await this.descend(dir, entry.name, 0);
  }

  private async descend(dir: OpenDir, name: Buffer, passes: number): Promise<void> {
    const child = await openToEmpty(this.io, dir, name);
    if (!child) return;
    this.stack.push({ place: child.place, identity: child.identity, dir: child, listing: undefined, passes });
    // Out of the window: the shallowest level still open below the start.
    const leaving = this.stack.length - 1 - WINDOW;
    if (leaving >= 1) await this.release(this.stack[leaving]);
  }

  /** The deepest level's listing ended: back to its parent, then its now empty directory goes. */
  private async ascend(): Promise<void> {
    const done = this.stack.pop()!;
    const parent = this.stack[this.stack.length - 1];
    done.listing?.close();
    done.listing = undefined;
    try {
      parent.dir ??= await done.dir!.parent(parent.identity, parent.place, this.io);
    } finally {
      await done.dir!.close();
      done.dir = undefined;
    }
    const name = done.place.name;
    if (await rmdirEntry(this.io, parent.dir, name)) return;
    // It gained entries after its listing ended: once more, a bounded number of times.
    if (done.passes + 1 >= MAX_PASSES) throw keepsGaining(done.place);
    await this.descend(parent.dir, name, done.passes + 1);
  }

  private async release(level: Level): Promise<void> {
    const { listing, dir } = level;
    level.listing = undefined;
    level.dir = undefined;
    listing?.close();
    await dir?.close();
  }

  /** Everything the walk opened; never the start's descriptor, which its caller holds. */
  private async closeAll(): Promise<void> {
    const [start, ...below] = this.stack;
    for (const level of below.reverse()) await this.release(level);
    start.listing?.close();
    start.listing = undefined;
  }
}

/**
 * Empties the open directory `dir` (its contents, not itself), never following a symlink or
 * crossing a mount. `io` is chosen by the filesystem unless given (tests give both kinds).
 */
export async function emptyOpenDir(dir: OpenDir, signal?: AbortSignal, io?: WalkIo): Promise<void> {
  await emptyWith(io ?? (await walkIoFor(dir.self())), dir, signal);
}

async function emptyWith(io: WalkIo, dir: OpenDir, signal: AbortSignal | undefined): Promise<void> {
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    if (!(await new TreeWalk(dir, io, signal).run())) return;
  }
  throw keepsGaining(dir.place);
}

/** Removes the entry `name` of `dir` (its whole tree if a directory), never following a symlink or crossing a mount. */
export async function removeEntry(dir: OpenDir, name: EntryName, signal?: AbortSignal, chosen?: WalkIo): Promise<void> {
  signal?.throwIfAborted();
  const io = chosen ?? (await walkIoFor(dir.self()));
  if ((await unlinkEntry(io, dir, name)) === 'gone') return;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    if (await rmdirEntry(io, dir, name)) return;
    const child = await openToEmpty(io, dir, name);
    if (!child) continue;
    try {
      await emptyWith(io, child, signal);
    } finally {
      await child.close();
    }
  }
  throw keepsGaining(dir.place.below(name));
}
