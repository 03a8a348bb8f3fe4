/**
 * Where the file plugins keep snapshots: `<root>/.pv-controller-snapshots/`, directly under each
 * root, beside the record directory. No volume can ever be there: a backing name never starts
 * with a dot, a pathPattern may not render into any `.pv-controller*` name (isReservedTopLevel),
 * and containedVolumePath refuses a PV whose path does. The orphan scan lists only recorded
 * volumes and `<cluster>-dynamic-*` directories, and the stray-file sweep only the record
 * directory's temporaries, so neither ever sees a snapshot.
 *
 *   <area>/<snapshotName>/snapshot.json   what it is (SnapshotRecord), written before it is committed
 *   <area>/<snapshotName>/data/           a directory volume's tree, or
 *   <area>/<snapshotName>/image.img       a sized volume's image
 *   <area>/.tmp.<snapshotName>.<8 hex>/   a snapshot being cut, or being deleted
 *   <area>/.restore.<backingName>.<8 hex>/  a new volume being filled (restore, clone)
 *
 * A snapshot exists exactly when `<area>/<snapshotName>` does: it is made under a temporary
 * name and renamed into place complete (one rename), and deleted by renaming it back to a
 * temporary first. A killed attempt leaves only a temporary, which the next attempt for the same
 * name removes before it starts again. Every removal goes through safe-path (inside the root, no
 * symlink followed, no mount crossed); the area itself must be a real directory on the root's mount.
 */
import { randomBytes } from 'node:crypto';
import { constants as C, promises as fs } from 'node:fs';
import { posix } from 'node:path';
import { PluginError } from '../api/errors.js';
import { RECORD_DIR } from './metadata-record.js';
import { isErrno, OpenDir } from './no-follow.js';
import { removeTreeNoFollow, renameInParentNoFollow, unsafe } from './safe-path.js';
import { isSnapshotName } from './snapshot-handle.js';

export const SNAPSHOT_DIR = `${RECORD_DIR}-snapshots`;
export const SNAPSHOT_RECORD = 'snapshot.json';
export const SNAPSHOT_DATA = 'data';
export const SNAPSHOT_IMAGE = 'image.img';
export const CUT_PREFIX = '.tmp.';
export const FILL_PREFIX = '.restore.';

/** Whether a top-level name under a root is reserved for pv-controller (records, images, snapshots). */
export function isReservedTopLevel(name: string): boolean {
  return name === RECORD_DIR || name.startsWith(`${RECORD_DIR}-`);
}

export interface SnapshotRecord {
  version: 1;
  plugin: string;
  snapshotName: string;
  clusterName: string;
  /** A directory tree (`data/`) or a sized volume's image (`image.img`). */
  kind: 'directory' | 'image';
  /** The source volume's id (its path, or `server:path` for NFS). */
  sourceVolumeId: string;
  sourcePvName: string;
  /** What a restore needs at least: the source's capacity (a sized volume: its image size). */
  sizeBytes: string;
  createdAt: string;
  node?: string;
  for: { name: string; namespace: string; contentName: string };
  copiedBytes: string;
  reflinkedBytes: string;
}

export interface FoundSnapshot {
  root: string;
  record: SnapshotRecord;
  /** `<area>/<snapshotName>`. */
  path: string;
}

export function areaOf(root: string): string {
  return posix.join(root, SNAPSHOT_DIR);
}

function isSnapshotRecord(value: unknown, name: string): value is SnapshotRecord {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return (
    r.version === 1 &&
    r.snapshotName === name &&
    typeof r.clusterName === 'string' &&
    (r.kind === 'directory' || r.kind === 'image') &&
    typeof r.sourcePvName === 'string' &&
    typeof r.sizeBytes === 'string' &&
    /^\d+$/.test(r.sizeBytes) &&
    typeof r.createdAt === 'string'
  );
}

/** The area of `root`, opened without following a symlink and on the root's mount; created when asked. */
export function openArea(root: string, create: boolean): Promise<OpenDir | undefined> {
  return openReservedDir(root, SNAPSHOT_DIR, create, 'the snapshot area');
}

/** A reserved directory `dir` directly under `root` (0700), opened without following a symlink and on the root's mount. */
export async function openReservedDir(root: string, dir: string, create: boolean, what: string): Promise<OpenDir | undefined> {
  if (!isReservedTopLevel(dir)) throw unsafe(posix.join(root, dir), [root], `"${dir}" is not a name reserved for pv-controller`);
  const rootDir = await OpenDir.open(root);
  try {
    if (create) await fs.mkdir(rootDir.entry(dir), 0o700).catch((err: unknown) => { if (!isErrno(err, 'EEXIST')) throw err; });
    return await rootDir.child(dir);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return undefined;
    if (isErrno(err, 'ELOOP') || isErrno(err, 'ENOTDIR')) throw unsafe(posix.join(root, dir), [root], `${what} is not a directory (a symbolic link?)`);
    throw err;
  } finally {
    await rootDir.close();
  }
}

/** Runs `body` on the area of `root` (undefined when there is none and `create` is false). */
export async function inArea<T>(root: string, create: boolean, body: (area: OpenDir) => Promise<T>): Promise<T | undefined> {
  const area = await openArea(root, create);
  if (!area) return undefined;
  try {
    return await body(area);
  } finally {
    await area.close();
  }
}

async function readSnapshotRecord(area: OpenDir, name: string): Promise<SnapshotRecord | undefined> {
  const st = await fs.lstat(area.entry(name)).catch((err: unknown) => (isErrno(err, 'ENOENT') ? undefined : Promise.reject(err)));
  if (!st) return undefined;
  if (!st.isDirectory()) throw unsafe(area.pathOf(name), [], 'a snapshot must be a directory, and this is not one (a symbolic link?)');
  const dir = await area.child(name);
  try {
    const handle = await fs.open(dir.entry(SNAPSHOT_RECORD), C.O_RDONLY | C.O_NOFOLLOW).catch((err: unknown) => (isErrno(err, 'ENOENT') ? undefined : Promise.reject(err)));
    if (!handle) throw new PluginError('Backend', `snapshot "${area.pathOf(name)}" has no ${SNAPSHOT_RECORD}`, false);
    let parsed: unknown;
    try {
      parsed = JSON.parse(await handle.readFile('utf8'));
    } catch {
      parsed = undefined;
    } finally {
      await handle.close();
    }
    if (!isSnapshotRecord(parsed, name)) throw new PluginError('Backend', `"${area.pathOf(name)}/${SNAPSHOT_RECORD}" is not a valid snapshot record`, false);
    return parsed;
  } finally {
    await dir.close();
  }
}

/** The snapshot `name` in the first existing root that has it. */
export async function findSnapshot(roots: readonly string[], name: string): Promise<FoundSnapshot | undefined> {
  if (!isSnapshotName(name)) return undefined;
  for (const root of roots) {
    const record = await inArea(root, false, (area) => readSnapshotRecord(area, name));
    if (record) return { root, record, path: posix.join(areaOf(root), name) };
  }
  return undefined;
}

/** Every valid snapshot of `root` (names that are not snapshots, and unreadable records, are skipped). */
export async function listSnapshotRecords(root: string): Promise<SnapshotRecord[]> {
  return (
    (await inArea(root, false, async (area) => {
      const records: SnapshotRecord[] = [];
      for (const name of await fs.readdir(area.self())) {
        if (!isSnapshotName(name)) continue;
        const record = await readSnapshotRecord(area, name).catch((err: unknown) => (err instanceof PluginError ? undefined : Promise.reject(err)));
        if (record) records.push(record);
      }
      return records;
    })) ?? []
  );
}

function temporaryName(prefix: string, name: string): string {
  return `${prefix}${name}.${randomBytes(4).toString('hex')}`;
}

function isTemporaryOf(entry: string, prefix: string, name: string): boolean {
  return entry.startsWith(`${prefix}${name}.`) && /^[0-9a-f]{8}$/.test(entry.slice(prefix.length + name.length + 1));
}

/** Removes the temporaries a killed attempt for `name` left (`<prefix><name>.<8 hex>`). */
export async function removeTemporaries(root: string, prefix: string, name: string, signal?: AbortSignal): Promise<void> {
  const entries = (await inArea(root, false, (area) => fs.readdir(area.self()))) ?? [];
  for (const entry of entries) {
    if (isTemporaryOf(entry, prefix, name)) await removeTreeNoFollow(root, posix.join(areaOf(root), entry), signal);
  }
}

/** A fresh, empty temporary for `name` in the area of `root` (leftovers of earlier attempts removed first); its path. */
export async function freshTemporary(root: string, prefix: string, name: string, signal?: AbortSignal): Promise<string> {
  await removeTemporaries(root, prefix, name, signal);
  const leaf = temporaryName(prefix, name);
  await inArea(root, true, (area) => fs.mkdir(area.entry(leaf), 0o700));
  return posix.join(areaOf(root), leaf);
}

/** Writes the record into a temporary snapshot directory (durably). */
export async function writeSnapshotRecord(temporary: OpenDir, record: SnapshotRecord): Promise<void> {
  const handle = await fs.open(temporary.entry(SNAPSHOT_RECORD), C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(record, null, 2)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Renames a complete temporary to `<area>/<name>`; false when another attempt committed first. */
export async function commitSnapshot(root: string, temporary: string, name: string): Promise<boolean> {
  return (
    (await inArea(root, false, async (area) => {
      try {
        await fs.rename(area.entry(posix.basename(temporary)), area.entry(name));
        return true;
      } catch (err) {
        if (isErrno(err, 'ENOTEMPTY') || isErrno(err, 'EEXIST')) return false;
        throw err;
      }
    })) ?? false
  );
}

/**
 * Deletes the snapshot `name` of `root`, exactly it: renamed to a temporary (so it stops being
 * a snapshot at once), then that tree removed through safe-path. Gone already ⇒ nothing to do.
 */
export async function removeSnapshot(root: string, name: string, signal?: AbortSignal): Promise<boolean> {
  if (!isSnapshotName(name)) throw unsafe(name, [root], 'not a snapshot name');
  const st = await inArea(root, false, (area) => fs.lstat(area.entry(name)).catch((err: unknown) => (isErrno(err, 'ENOENT') ? undefined : Promise.reject(err))));
  let removed = false;
  if (st) {
    if (!st.isDirectory()) throw unsafe(posix.join(areaOf(root), name), [root], 'a snapshot must be a directory, and this is not one (a symbolic link?); nothing was deleted');
    const moved = await renameInParentNoFollow(root, posix.join(areaOf(root), name), temporaryName(CUT_PREFIX, name));
    if (moved) await removeTreeNoFollow(root, moved, signal);
    removed = true;
  }
  await removeTemporaries(root, CUT_PREFIX, name, signal);
  return removed;
}
