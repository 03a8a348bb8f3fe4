/**
 * Which records a path could overlap, found by name instead of by listing every record: a delete
 * checks its path against the other volumes, and a listing made that check O(volumes) per delete
 * (a readdir and one pass over every record: ~1 ms per delete at 1,000 volumes, ~13 ms at 10,000).
 *
 * A record's subPath ends in its backing name (isVolumeRecord requires it), so the records whose
 * directory is `rel` or one of its ancestors are the records named after those components. The
 * records whose directory lies *below* `rel` are found through prefix markers: before a record
 * with a nested subPath (`a/b/<backingName>`) is written, an empty file `<backingName>` is created
 * in `<root>/.pv-controller/prefixes/<sha256 of each proper prefix>/` ("a", "a/b"), and it is
 * removed after the record. So any record that exists has its markers, and a lookup of `rel`'s
 * markers finds every record below it that a listing at that moment would have found. A marker
 * left by a crash names a record that is not there (or lies elsewhere) and is ignored.
 */
import { createHash } from 'node:crypto';
import { constants as C, promises as fs } from 'node:fs';
import { posix } from 'node:path';
import { isErrno, isSafeComponent } from './safe-path.js';

/** Inside the record directory; not a record name (no `.json` suffix). */
export const PREFIX_DIR = 'prefixes';

/** The proper prefixes of a subPath ("a/b/c" ⇒ "a", "a/b"); none for a top-level volume. */
export function properPrefixes(subPath: string): string[] {
  const parts = subPath.split('/');
  return parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('/'));
}

/** Whether a subPath is relative, of plain components, and ends in the backing name. */
export function isRecordSubPath(subPath: string, backingName: string): boolean {
  const parts = subPath.split('/');
  return parts.every(isSafeComponent) && parts[parts.length - 1] === backingName;
}

function markerDir(recordDir: string, prefix: string): string {
  return posix.join(recordDir, PREFIX_DIR, createHash('sha256').update(prefix).digest('hex'));
}

/** Makes the entries of `dir` durable (a created or removed name survives a power loss). */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await fs.open(dir, C.O_RDONLY | C.O_DIRECTORY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Creates `dir` if missing; a new one is made durable in its parent. */
async function mkdirExisting(dir: string): Promise<void> {
  try {
    await fs.mkdir(dir, { mode: 0o700 });
  } catch (err) {
    if (isErrno(err, 'EEXIST')) return;
    throw err;
  }
  await syncDirectory(posix.dirname(dir));
}

/**
 * Creates the markers of a nested record (idempotent); before the record is written. Each marker
 * is synced before the record is: a record that survives a power loss without its markers would
 * be invisible to the check that keeps a delete off the volumes below its path.
 */
export async function writePrefixMarkers(recordDir: string, backingName: string, subPath: string): Promise<void> {
  const prefixes = properPrefixes(subPath);
  if (prefixes.length === 0) return;
  await mkdirExisting(posix.join(recordDir, PREFIX_DIR));
  for (const prefix of prefixes) {
    const dir = markerDir(recordDir, prefix);
    await mkdirExisting(dir);
    const handle = await fs.open(posix.join(dir, backingName), C.O_WRONLY | C.O_CREAT | C.O_NOFOLLOW, 0o600);
    await handle.close();
    await syncDirectory(dir);
  }
}

/** Removes the markers of a nested record; after the record is gone. */
export async function removePrefixMarkers(recordDir: string, backingName: string, subPath: string): Promise<void> {
  for (const prefix of properPrefixes(subPath)) {
    await fs.unlink(posix.join(markerDir(recordDir, prefix), backingName)).catch((err: unknown) => {
      if (!isErrno(err, 'ENOENT') && !isErrno(err, 'ENOTDIR')) throw err;
    });
  }
}

/** Backing names of the records whose subPath may lie below `rel` (its markers); [] when none. */
export async function markedBelow(recordDir: string, rel: string): Promise<string[]> {
  try {
    return await fs.readdir(markerDir(recordDir, rel));
  } catch (err) {
    if (isErrno(err, 'ENOENT') || isErrno(err, 'ENOTDIR')) return [];
    throw err;
  }
}

/** Backing names whose record could place a volume at `rel` or at one of its ancestors. */
export function namesAtOrAbove(rel: string): string[] {
  return rel.split('/');
}
