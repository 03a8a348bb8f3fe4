/**
 * A new directory volume made with contents (restore from a snapshot, clone of a volume): the
 * record first, as every directory volume; then the contents are written into a temporary in the
 * root's snapshot area and renamed to the volume's path complete. So the volume directory exists
 * only once it holds all of its data: a retry after a crash at any step finds either the
 * finished volume (done) or a temporary, which it removes before filling a new one.
 */
import { promises as fs } from 'node:fs';
import { posix } from 'node:path';
import { TAG_CREATED_FOR_PV_NAME } from '@pv-controller/kube/annotations.js';
import { PluginError } from '../api/errors.js';
import type { CopyStats } from './file-copy.js';
import { readRecord, RecordExists, writeRecord, type VolumeRecord } from './metadata-record.js';
import { OpenDir } from './no-follow.js';
import { mkdirNoFollow, openDirNoFollow, resolveInsideRoot } from './safe-path.js';
import { areaOf, FILL_PREFIX, freshTemporary, removeTemporaries } from './snapshot-area.js';

export interface FilledVolume {
  record: VolumeRecord;
  /** Undefined when the volume was complete already (a repeated call). */
  stats: CopyStats | undefined;
}

async function recordFor(root: string, record: VolumeRecord): Promise<{ chosen: VolumeRecord; complete: boolean }> {
  for (let attempt = 0; ; attempt++) {
    const existing = await readRecord(root, record.backingName);
    if (existing && existing.tags[TAG_CREATED_FOR_PV_NAME] !== record.tags[TAG_CREATED_FOR_PV_NAME]) {
      throw new PluginError('Backend', `backing name "${record.backingName}" is already recorded for PV "${existing.tags[TAG_CREATED_FOR_PV_NAME]}"`, false);
    }
    const chosen = existing ?? record;
    const target = await resolveInsideRoot([root], posix.join(root, chosen.subPath));
    if (existing) return { chosen, complete: target.exists };
    if (target.exists) throw new PluginError('Backend', `"${target.path}" already exists and carries no pv-controller record; refusing to adopt it`, false);
    try {
      await writeRecord(root, record);
      return { chosen: record, complete: false };
    } catch (err) {
      if (!(err instanceof RecordExists) || attempt > 0) throw err;
    }
  }
}

/** Opens the directory the volume goes in: the root itself, or the parent a pathPattern gave it (made if missing). */
async function openParent(root: string, path: string): Promise<OpenDir> {
  const parent = posix.dirname(path);
  if (parent === root) return OpenDir.open(root);
  await mkdirNoFollow(root, parent, 0o755);
  const dir = await openDirNoFollow(root, parent);
  if (!dir) throw new PluginError('Transient', `"${parent}" vanished while a volume was being made in it`, true);
  return dir;
}

/**
 * Makes the volume `record` describes under `root`, filled by `fill` (given the open, empty
 * directory to fill); idempotent per backing name. `mode` is the volume directory's mode.
 */
export async function createFilledDirectoryVolume(
  root: string,
  record: VolumeRecord,
  mode: number,
  fill: (into: OpenDir) => Promise<CopyStats>,
  signal?: AbortSignal,
): Promise<FilledVolume> {
  const { chosen, complete } = await recordFor(root, record);
  if (complete) return { record: chosen, stats: undefined };
  const path = posix.join(root, chosen.subPath);
  const temporary = await freshTemporary(root, FILL_PREFIX, chosen.backingName, signal);
  const into = await openDirNoFollow(root, temporary);
  if (!into) throw new PluginError('Transient', `"${temporary}" vanished while it was being filled`, true);
  let stats: CopyStats;
  try {
    stats = await fill(into);
    await fs.chmod(into.self(), mode);
  } catch (err) {
    await into.close();
    // What the failed fill wrote goes now (a kill instead leaves it to the next attempt or the delete).
    await removeTemporaries(root, FILL_PREFIX, chosen.backingName).catch(() => undefined);
    throw err;
  } finally {
    await into.close();
  }
  const parent = await openParent(root, path);
  try {
    const area = await openDirNoFollow(root, areaOf(root));
    if (!area) throw new PluginError('Transient', `the snapshot area of "${root}" vanished while a volume was being filled`, true);
    try {
      await fs.rename(area.entry(posix.basename(temporary)), parent.entry(posix.basename(path)));
    } finally {
      await area.close();
    }
  } finally {
    await parent.close();
  }
  await removeTemporaries(root, FILL_PREFIX, chosen.backingName, signal);
  return { record: chosen, stats };
}
