/**
 * Copying one regular file's contents for snapshots, restores and clones: a reflink (FICLONE,
 * `fs.copyFile` with COPYFILE_FICLONE_FORCE) where the filesystem shares extents (XFS with
 * reflink, btrfs), else a sparse-aware copy: read in chunks up to the size the file had when it
 * was opened, and every all-zero block left as a hole (so a sparse image stays sparse, and an
 * image's unwritten part costs no space in its copy).
 *
 * The source is always an open descriptor (opened O_NOFOLLOW by the caller, then checked), named
 * through /proc/self/fd/<fd> for the reflink: the clone is of the exact file that was opened, a
 * name swapped for a symlink meanwhile is never followed. The destination is created exclusively
 * (O_EXCL: never an existing file, never through a symlink).
 */
import { constants as C, promises as fs, type BigIntStats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

/** What copying cost: bytes written as data, bytes shared through a reflink, bytes left as holes. */
export interface CopyStats {
  copiedBytes: bigint;
  reflinkedBytes: bigint;
  /** Zero blocks not written (holes in the copy). */
  sparseBytes: bigint;
  files: number;
  directories: number;
  symlinks: number;
  /** Hard links kept as links to a file already copied. */
  hardLinks: number;
  /** Sockets, FIFOs and device nodes: not copied (see tree-copy.ts). */
  skippedSpecial: number;
}

export function emptyCopyStats(): CopyStats {
  return { copiedBytes: 0n, reflinkedBytes: 0n, sparseBytes: 0n, files: 0, directories: 0, symlinks: 0, hardLinks: 0, skippedSpecial: 0 };
}

export function addCopyStats(into: CopyStats, more: CopyStats): void {
  into.copiedBytes += more.copiedBytes;
  into.reflinkedBytes += more.reflinkedBytes;
  into.sparseBytes += more.sparseBytes;
  into.files += more.files;
  into.directories += more.directories;
  into.symlinks += more.symlinks;
  into.hardLinks += more.hardLinks;
  into.skippedSpecial += more.skippedSpecial;
}

const CHUNK = 1024 * 1024;
/** The granularity at which zeros become holes (a filesystem block is at most this). */
const BLOCK = 64 * 1024;
const ZEROS = Buffer.alloc(BLOCK);
/** What FICLONE answers where the filesystem (or the pair of them) cannot share extents. */
const NO_REFLINK = new Set(['ENOTSUP', 'EOPNOTSUPP', 'EXDEV', 'EINVAL', 'ENOSYS', 'ENOTTY']);

/** Whether reflinks are still worth trying in one copy (the first refusal switches them off). */
export class ReflinkState {
  constructor(public enabled = true) {}
}

export interface FileCopyOptions {
  reflink: ReflinkState;
  signal?: AbortSignal;
  /** File mode of the new file (default 0600; the caller sets the real mode afterwards). */
  mode?: number;
}

/**
 * Copies the open file `source` (whose fstat is `st`) to the new file `destination`; returns the
 * bytes copied, reflinked and left as holes. The new file has the source's size.
 */
export async function copyOpenFile(source: FileHandle, st: BigIntStats, destination: string | Buffer, options: FileCopyOptions): Promise<CopyStats> {
  const stats = emptyCopyStats();
  stats.files = 1;
  if (options.reflink.enabled && st.size > 0n) {
    try {
      await fs.copyFile(`/proc/self/fd/${source.fd}`, destination, C.COPYFILE_EXCL | C.COPYFILE_FICLONE_FORCE);
      stats.reflinkedBytes = st.size;
      return stats;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (!NO_REFLINK.has(code) && code !== 'ENOENT') throw err;
      options.reflink.enabled = false;
      await fs.rm(destination, { force: true });
    }
  }
  const target = await fs.open(destination, C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, options.mode ?? 0o600);
  try {
    await copyContents(source, target, st.size, stats, options.signal);
    await target.truncate(Number(st.size));
  } finally {
    await target.close();
  }
  return stats;
}

/** The data of `source` up to `size` into `target`, all-zero blocks skipped (left as holes). */
async function copyContents(source: FileHandle, target: FileHandle, size: bigint, stats: CopyStats, signal?: AbortSignal): Promise<void> {
  const buffer = Buffer.allocUnsafe(CHUNK);
  const end = Number(size);
  for (let position = 0; position < end; ) {
    signal?.throwIfAborted();
    const { bytesRead } = await source.read(buffer, 0, Math.min(CHUNK, end - position), position);
    if (bytesRead === 0) break;
    await writeNonZero(target, buffer.subarray(0, bytesRead), position, stats);
    position += bytesRead;
  }
}

/** Writes the runs of non-zero blocks of `chunk` (at file offset `at`); zero blocks are skipped. */
async function writeNonZero(target: FileHandle, chunk: Buffer, at: number, stats: CopyStats): Promise<void> {
  let runStart = -1;
  const flush = async (end: number): Promise<void> => {
    if (runStart < 0) return;
    const run = chunk.subarray(runStart, end);
    await writeAll(target, run, at + runStart);
    stats.copiedBytes += BigInt(run.length);
    runStart = -1;
  };
  for (let offset = 0; offset < chunk.length; offset += BLOCK) {
    const block = chunk.subarray(offset, Math.min(offset + BLOCK, chunk.length));
    if (!block.equals(ZEROS.subarray(0, block.length))) {
      if (runStart < 0) runStart = offset;
      continue;
    }
    await flush(offset);
    stats.sparseBytes += BigInt(block.length);
  }
  await flush(chunk.length);
}

async function writeAll(target: FileHandle, data: Buffer, position: number): Promise<void> {
  for (let done = 0; done < data.length; ) {
    const { bytesWritten } = await target.write(data, done, data.length - done, position + done);
    done += bytesWritten;
  }
}
