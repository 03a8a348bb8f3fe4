/**
 * Archive on delete for the file plugins (class parameter `onDelete: archive`; nfs-subdir also
 * takes upstream's `archiveOnDelete: "true"`): instead of being deleted, a volume's directory is
 * moved into `<root>/.pv-controller-archive/` (0700), a name reserved like the record directory
 * (isReservedTopLevel: no backing name, no pathPattern and no PV path can be there, and pods only
 * ever mount their own volume's directory, so nothing but this code writes in it). It is moved
 * with the delete's checks: contained in the root, no symlink followed, no mount crossed
 * (safe-path's moveIntoNoFollow; rename(2) never copies).
 *
 * The archive's name carries its fate, so it survives restarts without any other state:
 *   `<backingName>.expires-<YYYYMMDDTHHMMSSZ>`   deleted by the sweeper once that time has passed
 *     (the class's `pv-controller.io/archive-retention` after the delete);
 *   `<backingName>.archived-<YYYYMMDDTHHMMSSZ>`  kept until an administrator removes it.
 * The sweeper removes only entries of the area whose name parses as the first form and that are
 * real directories; anything else there is left alone and reported by `listArchives`.
 */
import { promises as fs } from 'node:fs';
import { posix } from 'node:path';
import { RECORD_DIR } from './metadata-record.js';
import { lstatOrUndefined, type OpenDir } from './no-follow.js';
import { canonicalRoots, moveIntoNoFollow, removeTreeNoFollow, type ContainedPath } from './safe-path.js';
import { openReservedDir } from './snapshot-area.js';

export const ARCHIVE_DIR = `${RECORD_DIR}-archive`;
const NAME = /^(.+)\.(expires|archived)-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

export interface ArchivedVolume {
  /** The archive's path. */
  path: string;
  backingName: string;
  /** When the sweeper deletes it; undefined: kept until removed by hand. */
  expiresAt?: Date;
  /** When it was archived (names without retention). */
  archivedAt?: Date;
}

function stamp(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '');
}

/** The archive name of `backingName` archived at `now`, deleted `retentionMs` later (undefined: kept). */
export function archiveName(backingName: string, now: Date, retentionMs: number | undefined): string {
  if (retentionMs === undefined) return `${backingName}.archived-${stamp(now)}`;
  return `${backingName}.expires-${stamp(new Date(Math.ceil((now.getTime() + retentionMs) / 1000) * 1000))}`;
}

/** What an archive name says, or undefined when it is not one this code makes. */
export function parseArchiveName(name: string, area: string): ArchivedVolume | undefined {
  const m = NAME.exec(name);
  if (!m) return undefined;
  const at = new Date(`${m[3]}-${m[4]}-${m[5]}T${m[6]}:${m[7]}:${m[8]}Z`);
  if (Number.isNaN(at.getTime()) || stamp(at) !== name.slice(name.length - 16)) return undefined;
  const path = posix.join(area, name);
  return m[2] === 'expires' ? { path, backingName: m[1], expiresAt: at } : { path, backingName: m[1], archivedAt: at };
}

/** Moves a contained volume directory into its root's archive area. Gone already ⇒ nothing to do. */
export async function archiveContained(contained: ContainedPath, backingName: string, now: Date, retentionMs: number | undefined): Promise<string | undefined> {
  const area = await openReservedDir(contained.root, ARCHIVE_DIR, true, 'the archive area');
  try {
    return await moveIntoNoFollow(contained.root, contained.path, area!, archiveName(backingName, now, retentionMs));
  } finally {
    await area?.close();
  }
}

async function inArchive<T>(root: string, body: (area: OpenDir) => Promise<T>): Promise<T | undefined> {
  const area = await openReservedDir(root, ARCHIVE_DIR, false, 'the archive area');
  if (!area) return undefined;
  try {
    return await body(area);
  } finally {
    await area.close();
  }
}

/** Every archive in the existing roots (entries of the area that are not archive names are skipped). */
export async function listArchives(roots: string[]): Promise<ArchivedVolume[]> {
  const found: ArchivedVolume[] = [];
  for (const root of await canonicalRoots(roots)) {
    const names = (await inArchive(root, (area) => fs.readdir(area.self()))) ?? [];
    for (const name of names) {
      const archive = parseArchiveName(name, posix.join(root, ARCHIVE_DIR));
      if (archive) found.push(archive);
    }
  }
  return found;
}

/** Deletes the archives whose time has come (real directories only, through safe-path); returns those deleted. */
export async function sweepArchives(roots: string[], now: Date, signal?: AbortSignal): Promise<ArchivedVolume[]> {
  const swept: ArchivedVolume[] = [];
  for (const root of await canonicalRoots(roots)) {
    const area = posix.join(root, ARCHIVE_DIR);
    const names = (await inArchive(root, (dir) => fs.readdir(dir.self()))) ?? [];
    for (const name of names) {
      const archive = parseArchiveName(name, area);
      if (!archive?.expiresAt || archive.expiresAt.getTime() > now.getTime()) continue;
      const st = await lstatOrUndefined(archive.path);
      if (!st?.isDirectory()) continue;
      await removeTreeNoFollow(root, archive.path, signal);
      swept.push(archive);
    }
  }
  return swept;
}
