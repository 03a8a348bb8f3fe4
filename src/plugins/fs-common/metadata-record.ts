/**
 * The mark a directory-backed volume carries: `<root>/.pv-controller/<backingName>.json`, beside
 * the data (never inside the user's directory, which a pod can rewrite). It holds the same three
 * tags cloud volumes get, the cluster name and the creation time, so `orphans` can map
 * directories back to PVs. It is written atomically (temporary file, fsync, rename, fsync of the
 * directory) before the volume directory is created: a crash never leaves an unmarked directory.
 *
 * A record is written once and never replaced (hard link of a complete temporary file, which
 * fails when the name exists): so a record's file name identifies its content for as long as the
 * file exists, and `listRecords` can keep what it has read in memory and read only names it has
 * not seen (capacity accounting and `orphans` list every record). A delete's path check reads
 * only the records near its path, by name (recordsNear, record-lookup.ts).
 *
 * A writer killed between creating its temporary file and linking it leaves that file behind
 * (`<backingName>.json.<8 hex>`, never a record): record-temporaries.ts lists and removes those.
 */
import { constants as C, promises as fs } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import {
  TAG_CREATED_FOR_PV_NAME,
  TAG_CREATED_FOR_PVC_NAME,
  TAG_CREATED_FOR_PVC_NAMESPACE,
} from '@pv-controller/kube/annotations.js';
import { PluginError } from '../api/errors.js';
import { isErrno, isSafeComponent } from './safe-path.js';
import { isRecordSubPath, markedBelow, namesAtOrAbove, properPrefixes, removePrefixMarkers, syncDirectory, writePrefixMarkers } from './record-lookup.js';

/** Directory, directly under a root, that holds the records. Never a volume. */
export const RECORD_DIR = '.pv-controller';
const RECORD_SUFFIX = '.json';

export interface VolumeRecord {
  version: 1;
  /** Provisioner name of the plugin that made the volume. */
  plugin: string;
  backingName: string;
  clusterName: string;
  /** The volume's path relative to the root (`<backingName>` or `<rendered pattern>/<backingName>`). */
  subPath: string;
  tags: {
    [TAG_CREATED_FOR_PVC_NAME]: string;
    [TAG_CREATED_FOR_PVC_NAMESPACE]: string;
    [TAG_CREATED_FOR_PV_NAME]: string;
  };
  createdAt: string;
  /** NFS: what delete does (delete | retain | archive), as promised at provision time. */
  onDelete?: string;
  /**
   * host-path `sizing: image`: the volume is a filesystem image of `sizeBytes` (decimal string)
   * loop-mounted at the volume's directory; absent for a plain directory.
   */
  sizing?: 'image';
  sizeBytes?: string;
  /**
   * host-path: the size the claim asked for (decimal string), counted against the root's
   * configured capacity for a plain directory (placement.ts); absent in records made before it.
   */
  reservedBytes?: string;
}

function recordDir(root: string): string {
  return posix.join(root, RECORD_DIR);
}

function isPlainBackingName(name: string): boolean {
  return isSafeComponent(name) && !name.startsWith('.');
}

function recordPath(root: string, backingName: string): string {
  if (!isPlainBackingName(backingName)) {
    throw new PluginError('InvalidParameter', `backing name "${backingName}" is not a plain file name`, false);
  }
  return posix.join(recordDir(root), `${backingName}${RECORD_SUFFIX}`);
}

/** Makes sure `<root>/.pv-controller` is a real directory (not a symlink someone planted). */
async function ensureRecordDir(root: string): Promise<void> {
  const dir = recordDir(root);
  await fs.mkdir(dir, { mode: 0o700 }).catch((err: unknown) => {
    if (!isErrno(err, 'EEXIST')) throw err;
  });
  const st = await fs.lstat(dir);
  if (!st.isDirectory()) {
    throw new PluginError('Unsafe', `record directory "${dir}" is not a directory (symlink or file)`, false);
  }
}

function isVolumeRecord(value: unknown): value is VolumeRecord {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  const tags = r.tags as Record<string, unknown> | undefined;
  return (
    r.version === 1 &&
    typeof r.backingName === 'string' &&
    typeof r.clusterName === 'string' &&
    typeof r.subPath === 'string' &&
    isRecordSubPath(r.subPath, r.backingName) &&
    typeof r.plugin === 'string' &&
    typeof tags === 'object' &&
    tags !== null &&
    typeof tags[TAG_CREATED_FOR_PV_NAME] === 'string'
  );
}

/** The record of `backingName` under `root`, or undefined when there is none. */
export async function readRecord(root: string, backingName: string): Promise<VolumeRecord | undefined> {
  const path = recordPath(root, backingName);
  let text: string;
  try {
    const handle = await fs.open(path, C.O_RDONLY | C.O_NOFOLLOW);
    try {
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (err) {
    if (isErrno(err, 'ENOENT') || isErrno(err, 'ENOTDIR')) return undefined;
    if (isErrno(err, 'ELOOP')) throw new PluginError('Unsafe', `record "${path}" is a symbolic link`, false);
    throw err;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!isVolumeRecord(parsed) || parsed.backingName !== backingName) {
    throw new PluginError('Backend', `record "${path}" is not a valid volume record`, false);
  }
  return parsed;
}

/**
 * Writes the record atomically (readers see no record or the whole one, never half of one). A
 * record already there is not replaced: `RecordExists` is thrown and the caller reads that one.
 */
export async function writeRecord(root: string, record: VolumeRecord): Promise<void> {
  const path = recordPath(root, record.backingName);
  if (!isRecordSubPath(record.subPath, record.backingName)) {
    throw new PluginError('InvalidParameter', `sub-path "${record.subPath}" does not end in the backing name "${record.backingName}"`, false);
  }
  await ensureRecordDir(root);
  await writePrefixMarkers(recordDir(root), record.backingName, record.subPath);
  const tmp = `${path}.${randomBytes(4).toString('hex')}`; // what isTemporaryRecordName matches
  const handle = await fs.open(tmp, C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW, 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(record, null, 2)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fs.link(tmp, path);
  } catch (err) {
    if (isErrno(err, 'EEXIST')) throw new RecordExists(path);
    throw err;
  } finally {
    await fs.unlink(tmp).catch(() => undefined);
  }
  await syncDirectory(recordDir(root));
}

/** writeRecord found a record of that backing name already: records are never replaced. */
export class RecordExists extends PluginError {
  constructor(path: string) {
    super('Backend', `record "${path}" exists already; a record is never replaced`, true);
    this.name = 'RecordExists';
  }
}

export async function removeRecord(root: string, backingName: string): Promise<void> {
  // Its sub-path names its prefix markers, which go after it (see record-lookup.ts).
  const record = await readRecord(root, backingName).catch(() => undefined);
  try {
    await fs.unlink(recordPath(root, backingName));
  } catch (err) {
    if (isErrno(err, 'ENOENT') || isErrno(err, 'ENOTDIR')) return;
    throw err;
  }
  await syncDirectory(recordDir(root));
  if (record) await removePrefixMarkers(recordDir(root), backingName, record.subPath);
}

/**
 * Per root, the one pass (per process) that gives nested records written without prefix markers
 * their markers, so the lookups below find them too.
 */
const markedRoots = new Map<string, Promise<void>>();

function ensurePrefixMarkers(root: string): Promise<void> {
  let pass = markedRoots.get(root);
  if (!pass) {
    pass = (async () => {
      for (const record of await listRecords(root)) {
        if (properPrefixes(record.subPath).length > 0) await writePrefixMarkers(recordDir(root), record.backingName, record.subPath);
      }
    })();
    markedRoots.set(root, pass);
    pass.catch(() => markedRoots.delete(root));
  }
  return pass;
}

/**
 * Every record under `root` whose volume is at `rel`, at one of its ancestors, below it, or whose
 * backing name is `backingName`: what a path check for `rel` must see, read by name (O(depth of
 * `rel` + records below it)), never by listing. Skips what listRecords skips.
 */
export async function recordsNear(root: string, rel: string, backingName: string): Promise<VolumeRecord[]> {
  await ensurePrefixMarkers(root);
  const names = new Set([...namesAtOrAbove(rel), backingName, ...(await markedBelow(recordDir(root), rel))]);
  const records: VolumeRecord[] = [];
  for (const name of names) {
    if (!isPlainBackingName(name)) continue;
    const record = await readRecord(root, name).catch((err: unknown) => {
      if (err instanceof PluginError) return undefined;
      throw err;
    });
    if (record) records.push(record);
  }
  return records;
}

/**
 * Records already read (or being read), per root, by file name. Valid only because records are
 * write-once (see the file comment): every call still lists the directory, so a record removed by
 * anyone drops out and a new one is read; what is skipped is re-reading a name seen before. Reads
 * in flight are shared, so concurrent calls on a cold cache read each file once, not once each.
 */
const seenRecords = new Map<string, Map<string, Promise<VolumeRecord | undefined>>>();

/** Every valid record under `root`; files that are not records are skipped. */
export async function listRecords(root: string): Promise<VolumeRecord[]> {
  let names: string[];
  try {
    names = await fs.readdir(recordDir(root));
  } catch (err) {
    if (isErrno(err, 'ENOENT') || isErrno(err, 'ENOTDIR')) {
      seenRecords.delete(root);
      return [];
    }
    throw err;
  }
  const seen = seenRecords.get(root) ?? new Map<string, Promise<VolumeRecord | undefined>>();
  seenRecords.set(root, seen);
  const listed = new Set(names.filter((name) => name.endsWith(RECORD_SUFFIX)));
  for (const name of seen.keys()) if (!listed.has(name)) seen.delete(name);
  const records: VolumeRecord[] = [];
  // One file at a time (a directory of thousands must not exhaust descriptors); a file that is not
  // a valid record is skipped, any other failure (EMFILE, EIO) fails the call: a record silently
  // missed would let a path check pass that must not.
  for (const name of listed) {
    let read = seen.get(name);
    if (!read) {
      read = readRecord(root, name.slice(0, -RECORD_SUFFIX.length)).then(
        (record) => (record ? Object.freeze(record) : undefined),
        (err: unknown) => {
          if (err instanceof PluginError) return undefined;
          throw err;
        },
      );
      seen.set(name, read);
    }
    let record: VolumeRecord | undefined;
    try {
      record = await read;
    } catch (err) {
      if (seen.get(name) === read) seen.delete(name);
      throw err;
    }
    // Not a record (yet): ask again next time rather than remember a miss.
    if (!record && seen.get(name) === read) seen.delete(name);
    if (record) records.push(record);
  }
  return records;
}

/** The name writeRecord gives its temporary file, `<backingName>.json.<8 lowercase hex>`, and no other. */
export function isTemporaryRecordName(name: string): boolean {
  const match = /^(.+)\.json\.[0-9a-f]{8}$/.exec(name);
  return match !== null && isPlainBackingName(match[1]);
}

