/**
 * Temporary record files a killed writer left behind. writeRecord creates
 * `<root>/.pv-controller/<backingName>.json.<8 hex>`, syncs it and hard-links it to the record's
 * name; killed in between, the temporary file stays and is no record (listRecords skips it). Here
 * they are listed (for `orphans`) and removed (on controller start, by `orphans --delete`): only
 * regular files with exactly that name, directly in the record directory, opened from the root
 * without following a symlink, and only once older than any write in progress can be.
 */
import { promises as fs } from 'node:fs';
import { posix } from 'node:path';
import { isTemporaryRecordName, RECORD_DIR } from './metadata-record.js';
import { ignoreErrno, isErrno, lstatOrUndefined, OpenDir } from './no-follow.js';
import { PluginError } from '../api/errors.js';

/**
 * How old a temporary record file must be before it can belong to no write in progress: a write
 * is an open, < 1 KB, an fsync and a link, milliseconds. Removing one that is still being written
 * is harmless anyway (its link finds it gone and the provision is retried); the margin spares it.
 */
export const STRAY_TEMPORARY_AGE_MS = 60_000;

export interface TemporaryRecordFile {
  path: string;
  modifiedAt: Date;
}

/**
 * Runs `body` on the record directory opened from the root without following a symlink (and on
 * the root's mount); [] when there is no record directory.
 */
async function inRecordDir<T>(root: string, body: (dir: OpenDir) => Promise<T[]>): Promise<T[]> {
  const rootDir = await OpenDir.open(root);
  try {
    const dir = await rootDir.child(RECORD_DIR).catch((err: unknown) => {
      if (isErrno(err, 'ENOENT')) return undefined;
      if (isErrno(err, 'ELOOP') || isErrno(err, 'ENOTDIR')) {
        throw new PluginError('Unsafe', `record directory "${posix.join(root, RECORD_DIR)}" is not a directory (symlink or file)`, false);
      }
      throw err;
    });
    if (!dir) return [];
    try {
      return await body(dir);
    } finally {
      await dir.close();
    }
  } finally {
    await rootDir.close();
  }
}

/** Regular files in the open record directory named like a temporary record (symlinks are not). */
async function temporaryFilesIn(dir: OpenDir): Promise<Array<TemporaryRecordFile & { name: string }>> {
  const found: Array<TemporaryRecordFile & { name: string }> = [];
  for (const name of await fs.readdir(dir.self())) {
    if (!isTemporaryRecordName(name)) continue;
    const st = await lstatOrUndefined(dir.entry(name));
    if (st?.isFile()) found.push({ name, path: dir.pathOf(name), modifiedAt: st.mtime });
  }
  return found;
}

/** The temporary record files a killed writer may have left in `<root>/.pv-controller`. */
export async function listTemporaryRecords(root: string): Promise<TemporaryRecordFile[]> {
  return inRecordDir(root, async (dir) => (await temporaryFilesIn(dir)).map(({ path, modifiedAt }) => ({ path, modifiedAt })));
}

/** Removes the temporary record files last modified before `before`; returns those removed. */
export async function removeTemporaryRecords(root: string, before: Date): Promise<TemporaryRecordFile[]> {
  return inRecordDir(root, async (dir) => {
    const removed: TemporaryRecordFile[] = [];
    for (const { name, path, modifiedAt } of await temporaryFilesIn(dir)) {
      if (modifiedAt >= before) continue;
      // unlink never follows the name; gone meanwhile (its writer finished) is fine.
      const unlinked = await fs.unlink(dir.entry(name)).then(() => true, ignoreErrno('ENOENT', false));
      if (unlinked) removed.push({ path, modifiedAt });
    }
    return removed;
  });
}
