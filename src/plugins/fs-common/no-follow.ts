/**
 * Primitives for walking and deleting directory trees without following symlinks or crossing a
 * mount: an open directory named through /proc/self/fd (openat-like) that knows the mount of the
 * directory its walk started from. The walk itself is tree-walk.ts; safe-path.ts documents the
 * guarantees and the residual races (record-temporaries.ts uses these for the record directory).
 *
 * Nothing here keeps a full path per directory: a directory is named by its descriptor, and where
 * it is (for messages and the mount-table lookup of a refusal) is a chain of single names, turned
 * into a path only when one is needed. Names are bytes: a file name that is not UTF-8 is named
 * exactly as the directory listing gave it.
 */
import { closeSync, constants as C, promises as fs, type Stats } from 'node:fs';
import { describeMount, mountIdOf, mountPointAt, mountWithId, NEVER_ACROSS_A_MOUNT } from './mount-points.js';
import { THREAD_POOL_IO, type WalkIo } from './walk-io.js';
import { PluginError } from '../api/errors.js';

const DIR_FLAGS = C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW;
const PROC_FD = '/proc/self/fd';
const SLASH = Buffer.from('/');
const DOT_DOT = Buffer.from('/..');
/** Longest path a message shows; longer ones keep their start and end. */
const MESSAGE_PATH_CHARS = 512;

let procFdWorks: Promise<boolean> | undefined;

function procFdUsable(): Promise<boolean> {
  procFdWorks ??= fs.readdir(PROC_FD).then(
    () => true,
    () => false,
  );
  return procFdWorks;
}

export type EntryName = string | Buffer;

function nameBytes(name: EntryName): Buffer {
  return typeof name === 'string' ? Buffer.from(name) : name;
}

/**
 * Where a directory is: its name under its parent's place. A chain of names, one small object per
 * level; the full path is built only on demand.
 */
export class Place {
  constructor(
    private readonly up: Place | undefined,
    /** Its name in its parent (for the start: its full path). */
    readonly name: Buffer,
  ) {}

  static root(path: string): Place {
    return new Place(undefined, Buffer.from(path));
  }

  below(name: EntryName): Place {
    return new Place(this, nameBytes(name));
  }

  /** The exact path (for the mount table); as long as the tree is deep. */
  path(): string {
    const names: Buffer[] = [this.name];
    for (let p = this.up; p; p = p.up) names.push(p.name);
    return Buffer.concat(names.reverse().flatMap((n, i) => (i === 0 ? [n] : [SLASH, n]))).toString();
  }

  /** The path for a message: a very deep one keeps its start and its end. */
  describe(): string {
    const full = this.path();
    if (full.length <= MESSAGE_PATH_CHARS) return full;
    const half = MESSAGE_PATH_CHARS / 2;
    return `${full.slice(0, half)}…(${full.length - MESSAGE_PATH_CHARS} characters)…${full.slice(-half)}`;
  }
}

/** Which directory a descriptor holds (st_dev, st_ino) and the mount it lies on. */
export interface DirIdentity {
  dev: bigint;
  ino: bigint;
  /** fdinfo's mnt_id; undefined without /proc (st_dev alone then decides the mount). */
  mountId: number | undefined;
}

async function identityOf(io: WalkIo, fd: number, viaProc: boolean): Promise<DirIdentity> {
  const st = await io.fstat(fd);
  return { dev: st.dev, ino: st.ino, mountId: viaProc ? mountIdOf(fd) : undefined };
}

async function openChecked<T>(io: WalkIo, path: Buffer, use: (fd: number) => Promise<T>): Promise<T> {
  const fd = await io.open(path, DIR_FLAGS);
  try {
    return await use(fd);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/**
 * An open directory and how to name an entry in it without re-walking its path. Every directory
 * opened below the first one (`open`) through `child` or `parent` must lie on the same mount: one
 * that does not is closed again and refused, so a walk never leaves the mount it started on.
 */
export class OpenDir {
  private readonly selfPath: Buffer;
  private closed = false;

  private constructor(
    private readonly fd: number,
    /** Where it was opened (for messages; it may have moved since). */
    readonly place: Place,
    /** Its own identity, read when it was opened. */
    readonly identity: DirIdentity,
    private readonly viaProc: boolean,
    /** Without /proc: the full path it is named by (the fallback safe-path documents). */
    fullPath: Buffer,
    /** The mount of the directory the walk started from (the root). */
    private readonly start: { place: Place; identity: DirIdentity },
  ) {
    this.selfPath = viaProc ? Buffer.from(`${PROC_FD}/${fd}`) : fullPath;
  }

  /** Opens the directory a walk starts from (a root): the mount every child must share. */
  static async open(realPath: string): Promise<OpenDir> {
    const viaProc = await procFdUsable();
    return openChecked(THREAD_POOL_IO, Buffer.from(realPath), async (fd) => {
      const identity = await identityOf(THREAD_POOL_IO, fd, viaProc);
      const place = Place.root(realPath);
      return new OpenDir(fd, place, identity, viaProc, Buffer.from(realPath), { place, identity });
    });
  }

  /** The directory itself, as a path the kernel resolves to exactly this open directory. */
  self(): Buffer {
    return this.selfPath;
  }

  entry(name: EntryName): Buffer {
    return Buffer.concat([this.selfPath, SLASH, nameBytes(name)]);
  }

  /** The entry's full path as opened (for listings and mount lookups; messages use `place.below(name).describe()`). */
  pathOf(name: EntryName): string {
    return this.place.below(name).path();
  }

  /** Opens the sub-directory `name` (never through a symlink); refuses one on another mount. */
  child(name: EntryName, io: WalkIo = THREAD_POOL_IO): Promise<OpenDir> {
    return this.openBeside(io, this.entry(name), this.place.below(name));
  }

  /**
   * Opens this directory's parent, which must be `expected` (the directory the walk came down
   * from): one that is not (this directory was moved meanwhile) is refused, retryably.
   */
  async parent(expected: DirIdentity, place: Place, io: WalkIo = THREAD_POOL_IO): Promise<OpenDir> {
    const path = Buffer.concat([this.selfPath, DOT_DOT]);
    const dir = await this.openBeside(io, path, place);
    if (dir.identity.dev === expected.dev && dir.identity.ino === expected.ino) return dir;
    await dir.close();
    const message = `"${this.place.describe()}" was moved out of "${place.describe()}" while it was being emptied; the walk stops here`;
    throw new PluginError('Transient', message, true);
  }

  /** Opens `path` (this directory's child or parent, named through it) on the start's mount. */
  private openBeside(io: WalkIo, path: Buffer, place: Place): Promise<OpenDir> {
    return openChecked(io, path, async (fd) => {
      const identity = await identityOf(io, fd, this.viaProc);
      await this.assertStartMount(place, identity);
      return new OpenDir(fd, place, identity, this.viaProc, path, this.start);
    });
  }

  private async assertStartMount(place: Place, identity: DirIdentity): Promise<void> {
    const start = this.start.identity;
    if (identity.dev === start.dev && identity.mountId === start.mountId) return;
    const mount = (identity.mountId === undefined ? undefined : await mountWithId(identity.mountId)) ?? (await mountPointAt(place.path()));
    const which = mount ? describeMount(mount) : 'it is on another filesystem or mount';
    const message = `refusing to descend into "${place.describe()}": ${which}, not on the mount of "${this.start.place.describe()}"; ${NEVER_ACROSS_A_MOUNT}`;
    throw new PluginError('Unsafe', message, false);
  }

  /** Closes the descriptor (once; later calls do nothing). Async for its callers' sake. */
  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      closeSync(this.fd);
    }
    return Promise.resolve();
  }
}

export async function lstatOrUndefined(path: EntryName): Promise<Stats | undefined> {
  try {
    return await fs.lstat(path);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return undefined;
    throw err;
  }
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
