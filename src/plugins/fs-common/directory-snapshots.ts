/**
 * Snapshots of directory volumes (plain host-path directories, nfs-subdir), shared by both
 * plugins: a snapshot is a copy of the volume's tree (tree-copy.ts) in the root's snapshot area
 * (snapshot-area.ts); a restore or clone copies a tree into a new volume (filled-volume.ts).
 *
 * Not crash-consistent while the volume is written to: files are copied one after another, so a
 * workload writing meanwhile can leave the copy with some files from before a change and some
 * from after it, or a file that was half written. Take it with the workload stopped (or
 * quiesced by the application) when that matters; sized host-path volumes are frozen instead.
 */
import { promises as fs } from 'node:fs';
import { posix } from 'node:path';
import type { Logger } from 'pino';
import type { DeleteSnapshotRequest, SnapshotRequest, VolumeSnapshotInfo } from '../api/capabilities/snapshot.js';
import { PluginError } from '../api/errors.js';
import type { CopyStats } from './file-copy.js';
import type { OpenDir } from './no-follow.js';
import { openDirNoFollow, type ContainedPath } from './safe-path.js';
import {
  areaOf,
  commitSnapshot,
  CUT_PREFIX,
  findSnapshot,
  freshTemporary,
  listSnapshotRecords,
  removeSnapshot,
  removeTemporaries,
  SNAPSHOT_DATA,
  writeSnapshotRecord,
  type FoundSnapshot,
  type SnapshotRecord,
} from './snapshot-area.js';
import { assertSnapshotName, type SnapshotHandles } from './snapshot-handle.js';
import { withPluginErrors } from './directory-volume.js';
import { copyTree } from './tree-copy.js';

/** What one snapshot, restore or clone copied: reported to the plugin's observer and logged. */
export interface CopyReport {
  operation: 'snapshot' | 'restore' | 'clone';
  name: string;
  kind: 'directory' | 'image';
  stats: CopyStats;
  seconds: number;
  /** Sized volumes: how long the filesystem was frozen (0 when it was not mounted). */
  frozenSeconds?: number;
}

export type CopyObserver = (report: CopyReport) => void;

export interface SnapshotStoreOptions {
  plugin: string;
  handles: SnapshotHandles;
  /** The canonical roots that exist now. */
  roots: () => Promise<string[]>;
  node?: string;
  logger?: Logger;
  onCopy?: CopyObserver;
}

/** What a fill copied, and (a sized volume) how long its filesystem was frozen. */
export interface FillResult {
  stats: CopyStats;
  frozenSeconds?: number;
}

/** Fills a temporary snapshot directory (given open). */
export type SnapshotFill = (temporary: OpenDir) => Promise<FillResult>;

export interface SnapshotSourceInfo {
  root: string;
  kind: 'directory' | 'image';
  sourceVolumeId: string;
  sizeBytes: bigint;
}

/** The snapshot store of a file plugin: cut, find, list and delete snapshots in its roots' areas. */
export class SnapshotStore {
  constructor(readonly options: SnapshotStoreOptions) {}

  ownsSnapshot(snapshotId: string): boolean {
    return this.options.handles.owns(snapshotId);
  }

  info(record: SnapshotRecord): VolumeSnapshotInfo {
    return {
      snapshotName: record.snapshotName,
      snapshotId: this.options.handles.format(record.snapshotName),
      sourceVolumeId: record.sourceVolumeId,
      sizeBytes: BigInt(record.sizeBytes),
      createdAt: new Date(record.createdAt),
      readyToUse: true,
    };
  }

  /** The existing snapshot of this name, when it is of this source; a name taken by another volume is refused. */
  async existing(req: SnapshotRequest): Promise<VolumeSnapshotInfo | undefined> {
    assertSnapshotName(req.snapshotName);
    const found = await findSnapshot(await this.options.roots(), req.snapshotName);
    if (!found) return undefined;
    if (found.record.sourcePvName !== req.pv.metadata.name) {
      throw new PluginError('InvalidParameter', `snapshot "${req.snapshotName}" exists already, of PV "${found.record.sourcePvName}", not "${req.pv.metadata.name}"`, false);
    }
    return this.info(found.record);
  }

  /**
   * Cuts the snapshot: `fill` writes its data into a fresh temporary of the source's root, then
   * the record is written and the whole renamed into place. Idempotent per snapshot name.
   */
  async cut(req: SnapshotRequest, source: SnapshotSourceInfo, fill: SnapshotFill): Promise<VolumeSnapshotInfo> {
    const done = await this.existing(req);
    if (done) return done;
    const started = performance.now();
    const temporary = await freshTemporary(source.root, CUT_PREFIX, req.snapshotName, req.signal);
    const dir = await openDirNoFollow(source.root, temporary);
    if (!dir) throw new PluginError('Transient', `"${temporary}" vanished while the snapshot was being cut`, true);
    let record: SnapshotRecord;
    try {
      const { stats, frozenSeconds } = await fill(dir).catch(async (err: unknown) => {
        await dir.close();
        // What the failed copy wrote goes now (a kill instead leaves it to the next attempt or the delete).
        await removeTemporaries(source.root, CUT_PREFIX, req.snapshotName).catch(() => undefined);
        throw err;
      });
      record = {
        version: 1,
        plugin: this.options.plugin,
        snapshotName: req.snapshotName,
        clusterName: req.clusterName,
        kind: source.kind,
        sourceVolumeId: source.sourceVolumeId,
        sourcePvName: req.pv.metadata.name ?? '',
        sizeBytes: source.sizeBytes.toString(),
        createdAt: new Date().toISOString(),
        ...(this.options.node !== undefined ? { node: this.options.node } : {}),
        for: { ...req.snapshot },
        copiedBytes: stats.copiedBytes.toString(),
        reflinkedBytes: stats.reflinkedBytes.toString(),
      };
      await writeSnapshotRecord(dir, record);
      const seconds = (performance.now() - started) / 1000;
      this.report({ operation: 'snapshot', name: req.snapshotName, kind: source.kind, stats, seconds, ...(frozenSeconds !== undefined ? { frozenSeconds } : {}) });
    } finally {
      await dir.close();
    }
    if (!(await commitSnapshot(source.root, temporary, req.snapshotName))) {
      await removeTemporaries(source.root, CUT_PREFIX, req.snapshotName, req.signal);
      const other = await this.existing(req);
      if (other) return other;
      throw new PluginError('Transient', `snapshot "${req.snapshotName}" could not be committed; try again`, true);
    }
    return this.info(record);
  }

  /** Deletes the snapshot a handle names (exactly it, in every root that has it); gone is success. */
  delete(req: DeleteSnapshotRequest): Promise<void> {
    return withPluginErrors('deleting a snapshot', async () => {
      const name = this.options.handles.nameOf(req.snapshotId, 'deleting a snapshot');
      for (const root of await this.options.roots()) {
        if (await removeSnapshot(root, name, req.signal)) this.options.logger?.info({ snapshot: name, root }, 'snapshot deleted');
      }
    });
  }

  list(clusterName: string): Promise<VolumeSnapshotInfo[]> {
    return withPluginErrors('listing snapshots', async () => {
      const found: VolumeSnapshotInfo[] = [];
      for (const root of await this.options.roots()) {
        for (const record of await listSnapshotRecords(root)) if (record.clusterName === clusterName) found.push(this.info(record));
      }
      return found;
    });
  }

  /** The snapshot a handle names, for a restore; refused when the handle is not this plugin's, or the snapshot is gone. */
  async locate(snapshotId: string): Promise<FoundSnapshot> {
    const name = this.options.handles.nameOf(snapshotId, 'restoring from a snapshot');
    const found = await findSnapshot(await this.options.roots(), name);
    if (!found) throw new PluginError('Backend', `snapshot "${name}" (handle ${snapshotId}) does not exist in ${this.options.plugin}'s snapshot areas`, false);
    return found;
  }

  report(report: CopyReport): void {
    const { stats } = report;
    this.options.logger?.info(
      {
        operation: report.operation,
        name: report.name,
        kind: report.kind,
        copiedBytes: stats.copiedBytes.toString(),
        reflinkedBytes: stats.reflinkedBytes.toString(),
        files: stats.files,
        skippedSpecial: stats.skippedSpecial,
        seconds: report.seconds,
        ...(report.frozenSeconds !== undefined ? { frozenSeconds: report.frozenSeconds } : {}),
      },
      `${report.operation} copied`,
    );
    this.options.onCopy?.(report);
  }
}

/** Copies the tree of a directory volume (a contained path) into `into/data`. */
export async function copyVolumeTree(source: ContainedPath, into: OpenDir, signal?: AbortSignal): Promise<CopyStats> {
  await fs.mkdir(into.entry(SNAPSHOT_DATA), 0o700);
  const data = await into.child(SNAPSHOT_DATA);
  try {
    return await copyDirectory(source, data, signal);
  } finally {
    await data.close();
  }
}

/** Copies the tree of `source` (a directory strictly inside its root) into the open directory `into`. */
export async function copyDirectory(source: ContainedPath, into: OpenDir, signal?: AbortSignal): Promise<CopyStats> {
  const dir = await openDirNoFollow(source.root, source.path);
  if (!dir) throw new PluginError('Backend', `volume directory "${source.path}" does not exist`, false);
  try {
    return await copyTree(dir, into, signal ? { signal } : {});
  } finally {
    await dir.close();
  }
}

/** The data directory of a directory snapshot, as a contained path for copyDirectory. */
export function snapshotData(found: FoundSnapshot): ContainedPath {
  return { root: found.root, path: posix.join(areaOf(found.root), found.record.snapshotName, SNAPSHOT_DATA), exists: true };
}
