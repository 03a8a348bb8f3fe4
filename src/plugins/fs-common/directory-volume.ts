/**
 * What host-path and nfs-subdir share: a volume is a directory under a root, marked by a
 * metadata record (metadata-record.ts), created record-first and removed through safe-path.
 */
import { promises as fs } from 'node:fs';
import { posix } from 'node:path';
import { TAG_CREATED_FOR_PV_NAME, TAG_CREATED_FOR_PVC_NAME, TAG_CREATED_FOR_PVC_NAMESPACE } from '@pv-controller/kube/annotations.js';
import { quantityToBytes } from '@pv-controller/kube/quantity.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { DuMetricsProvider } from '../../metrics/du.js';
import { MetricsError, type MetricsProvider, type VolumeMetrics } from '../../metrics/provider.js';
import {
  canonicalRoots,
  isSafeComponent,
  mkdirNoFollow,
  removeTreeNoFollow,
  resolveInsideRoot,
  unsafe,
  type ContainedPath,
} from './safe-path.js';
import { isBackingNameOfCluster, pvNameOfBackingName } from '../naming.js';
import type { ProvisionRequest } from '../api/core.js';
import { PluginError, type ParameterProblem } from '../api/errors.js';
import type { BackingVolume } from '../api/capabilities/backing-volumes.js';
import type { StrayFile } from '../api/capabilities/stray-files.js';
import { FILL_PREFIX, isReservedTopLevel, removeTemporaries } from './snapshot-area.js';
import { listRecords, readRecord, recordsNear, RecordExists, removeRecord, writeRecord, type VolumeRecord } from './metadata-record.js';
import { archiveContained } from './archive.js';
import { listTemporaryRecords, removeTemporaryRecords, STRAY_TEMPORARY_AGE_MS } from './record-temporaries.js';

/** NAME_MAX (255) less room for an archive's ".archived-<timestamp>" suffix and the record's ".json.<rand>". */
export const MAX_DIRECTORY_BACKING_NAME = 230;

export type OnDelete = 'delete' | 'retain' | 'archive';

/**
 * Runs a plugin operation so that every failure is a PluginError: filesystem errors (EACCES,
 * EIO, ENOSPC, EMFILE on a very deep tree, ...) become retryable Backend errors naming the step.
 */
export async function withPluginErrors<T>(what: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (err) {
    if (err instanceof PluginError) throw err;
    if (err instanceof Error && err.name === 'AbortError') throw err;
    const message = err instanceof Error ? err.message : String(err);
    throw new PluginError('Backend', `${what}: ${message}`, true, { cause: err });
  }
}

/** A backing name must be one plain, visible file name (it becomes a directory and a record). */
export function assertBackingName(backingName: string): void {
  if (!isSafeComponent(backingName) || backingName.startsWith('.') || backingName.length > MAX_DIRECTORY_BACKING_NAME) {
    throw new PluginError('InvalidParameter', `backing name "${backingName}" is not a plain file name`, false);
  }
}

/**
 * What every directory plugin refuses before provisioning: an unsafe backing name, a raw block
 * volume, or any parameter problem (all listed). `plugin` names the volumes in the message.
 */
export function assertDirectoryRequest(req: ProvisionRequest, plugin: string, problems: readonly ParameterProblem[]): void {
  assertBackingName(req.backingName);
  if (req.volumeMode === 'Block') throw new PluginError('NotSupported', `${plugin} volumes cannot be raw block devices`, false);
  if (problems.length > 0) {
    throw new PluginError('InvalidParameter', problems.map((p) => `${p.parameter}: ${p.message}`).join('; '), false);
  }
}

export function makeRecord(fields: {
  plugin: string;
  backingName: string;
  clusterName: string;
  subPath: string;
  pvName: string;
  claimName: string;
  claimNamespace: string;
  onDelete?: OnDelete;
  /** A sized volume's size in bytes (host-path `sizing: image`). */
  imageBytes?: bigint;
  /** The size the claim asked for (host-path's placement counts it against a root's configured capacity). */
  reservedBytes?: bigint;
}): VolumeRecord {
  return {
    version: 1,
    plugin: fields.plugin,
    backingName: fields.backingName,
    clusterName: fields.clusterName,
    subPath: fields.subPath,
    tags: {
      [TAG_CREATED_FOR_PVC_NAME]: fields.claimName,
      [TAG_CREATED_FOR_PVC_NAMESPACE]: fields.claimNamespace,
      [TAG_CREATED_FOR_PV_NAME]: fields.pvName,
    },
    createdAt: new Date().toISOString(),
    ...(fields.onDelete ? { onDelete: fields.onDelete } : {}),
    ...(fields.imageBytes !== undefined ? { sizing: 'image' as const, sizeBytes: fields.imageBytes.toString() } : {}),
    ...(fields.reservedBytes !== undefined ? { reservedBytes: fields.reservedBytes.toString() } : {}),
  };
}

/**
 * Creates the volume directory idempotently: the record is written first, then the directory.
 * An existing record for the same PV means "same volume" (its subPath wins); a record for another
 * PV, or a directory that exists without a record, is refused: it is not ours to hand out.
 */
export async function createDirectoryVolume(root: string, record: VolumeRecord, mode: number): Promise<VolumeRecord> {
  try {
    return await createRecordedDirectory(root, record, mode);
  } catch (err) {
    // Another create of the same backing name wrote its record between our read and our write:
    // decide again on the record that is there now.
    if (!(err instanceof RecordExists)) throw err;
    return createRecordedDirectory(root, record, mode);
  }
}

async function createRecordedDirectory(root: string, record: VolumeRecord, mode: number): Promise<VolumeRecord> {
  const existing = await readRecord(root, record.backingName);
  const pvName = record.tags[TAG_CREATED_FOR_PV_NAME];
  if (existing && existing.tags[TAG_CREATED_FOR_PV_NAME] !== pvName) {
    throw new PluginError(
      'Backend',
      `backing name "${record.backingName}" is already recorded for PV "${existing.tags[TAG_CREATED_FOR_PV_NAME]}"`,
      false,
    );
  }
  const chosen = existing ?? record;
  const path = posix.join(root, chosen.subPath);
  const target = await resolveInsideRoot([root], path);
  if (!existing) {
    if (target.exists) {
      throw new PluginError('Backend', `"${path}" already exists and carries no pv-controller record; refusing to adopt it`, false);
    }
    await writeRecord(root, record);
  }
  await mkdirNoFollow(root, path, mode);
  return chosen;
}

/**
 * Checks a path may be acted on for this PV: contained in a root (safe-path), not the record
 * directory, and not overlapping any *other* recorded volume: not another PV's directory, not a
 * parent holding one (an NFS namespace directory), not a directory inside one.
 */
export async function containedVolumePath(
  roots: string[],
  path: string,
  backingName: string,
  pvName: string | undefined,
): Promise<ContainedPath> {
  const contained = await resolveInsideRoot(roots, path);
  const rel = posix.relative(contained.root, contained.path);
  const top = rel.split('/')[0];
  if (isReservedTopLevel(top)) throw unsafe(path, roots, `"${top}" is reserved for pv-controller's records, images and snapshots, never a volume`);
  for (const record of await recordsNear(contained.root, rel, backingName)) {
    const problem = overlapProblem(record, rel, backingName, pvName);
    if (problem) throw unsafe(path, roots, problem);
  }
  return contained;
}

/** Why acting on `rel` for (backingName, pvName) would touch the volume `record` wrongly, if it would. */
function overlapProblem(record: VolumeRecord, rel: string, backingName: string, pvName: string | undefined): string | undefined {
  const owner = record.tags[TAG_CREATED_FOR_PV_NAME];
  const ownsRecord = pvName === undefined ? record.backingName === backingName : owner === pvName;
  if (record.subPath === rel) return ownsRecord ? undefined : `the directory belongs to PV "${owner}", not "${pvName}"`;
  if (record.subPath.startsWith(`${rel}/`)) return `the directory contains the volume of PV "${owner}"`;
  if (rel.startsWith(`${record.subPath}/`) && !ownsRecord) return `the directory is inside the volume of PV "${owner}"`;
  if (pvName !== undefined && record.backingName === backingName) {
    return `the record of "${backingName}" places it at "${record.subPath}", not here`;
  }
  return undefined;
}

/**
 * Applies onDelete to a contained volume path (archive: moved into the root's archive area, kept
 * `archiveRetentionMs` when given, archive.ts), then drops its record. Gone already ⇒ success.
 */
export async function deleteContainedVolume(
  contained: ContainedPath,
  backingName: string,
  onDelete: OnDelete,
  signal?: AbortSignal,
  archiveRetentionMs?: number,
): Promise<void> {
  if (onDelete === 'archive') await archiveContained(contained, backingName, new Date(), archiveRetentionMs);
  else if (onDelete === 'delete') await removeTreeNoFollow(contained.root, contained.path, signal);
  // A restore or clone killed while it filled the volume left its temporary in the snapshot area.
  // A refusal there (the area a symlink, a mount in the temporary) deletes nothing of it and must
  // not stop the volume's own delete: the temporary is left for an operator.
  await removeTemporaries(contained.root, FILL_PREFIX, backingName, signal).catch((err: unknown) => {
    if (!(err instanceof PluginError)) throw err;
  });
  await removeRecord(contained.root, backingName);
}

export { canonicalRoots } from './safe-path.js';

/** The records of `backingName` in every existing root: where a deletion without a PV looks. */
export async function findRecords(
  roots: string[],
  backingName: string,
): Promise<Array<{ root: string; record: VolumeRecord }>> {
  const found: Array<{ root: string; record: VolumeRecord }> = [];
  for (const root of await canonicalRoots(roots)) {
    const record = await readRecord(root, backingName);
    if (record) found.push({ root, record });
  }
  return found;
}

/** Recorded volumes of a cluster, plus (optionally) unrecorded top-level `<cluster>-dynamic-*` directories. */
export async function listDirectoryVolumes(
  roots: string[],
  clusterName: string,
  scanDirectoryNames: boolean,
): Promise<BackingVolume[]> {
  const volumes: BackingVolume[] = [];
  const recorded = new Set<string>();
  const existingRoots = await canonicalRoots(roots);
  for (const root of existingRoots) {
    for (const record of await listRecords(root)) {
      recorded.add(posix.join(root, record.subPath));
      if (record.clusterName === clusterName) volumes.push(recordedVolume(root, record));
    }
  }
  if (!scanDirectoryNames) return volumes;
  for (const root of existingRoots) {
    for (const entry of await fs.readdir(root, { withFileTypes: true })) {
      const id = posix.join(root, entry.name);
      if (!entry.isDirectory() || recorded.has(id) || !isBackingNameOfCluster(entry.name, clusterName)) continue;
      volumes.push({ backingName: entry.name, id, pvName: pvNameOfBackingName(entry.name) });
    }
  }
  return volumes;
}

/** Temporary record files killed writers left in every existing root (see record-temporaries.ts). */
export async function listStrayRecordFiles(roots: string[]): Promise<StrayFile[]> {
  const cutoff = Date.now() - STRAY_TEMPORARY_AGE_MS;
  const found: StrayFile[] = [];
  for (const root of await canonicalRoots(roots)) {
    for (const file of await listTemporaryRecords(root)) found.push({ ...file, removable: file.modifiedAt.getTime() < cutoff });
  }
  return found;
}

/** Removes the temporary record files older than any write in progress in every existing root. */
export async function removeStrayRecordFiles(roots: string[]): Promise<StrayFile[]> {
  const before = new Date(Date.now() - STRAY_TEMPORARY_AGE_MS);
  const removed: StrayFile[] = [];
  for (const root of await canonicalRoots(roots)) {
    for (const file of await removeTemporaryRecords(root, before)) removed.push({ ...file, removable: true });
  }
  return removed;
}

function recordedVolume(root: string, record: VolumeRecord): BackingVolume {
  return {
    backingName: record.backingName,
    id: posix.join(root, record.subPath),
    pvName: record.tags[TAG_CREATED_FOR_PV_NAME],
    claimNamespace: record.tags[TAG_CREATED_FOR_PVC_NAMESPACE],
    claimName: record.tags[TAG_CREATED_FOR_PVC_NAME],
  };
}

export function capacityOf(pv: PersistentVolume): bigint | undefined {
  const storage = pv.spec.capacity?.storage;
  if (storage === undefined) return undefined;
  try {
    return quantityToBytes(storage);
  } catch {
    return undefined;
  }
}

/** The volume directory at `path`, resolved inside one of `roots`, or a MetricsError saying why not. */
export async function containedForMeasuring(roots: string[], path: string | undefined): Promise<ContainedPath> {
  if (path === undefined) throw new MetricsError('no path defined for disk usage metrics');
  try {
    return await resolveInsideRoot(roots, path);
  } catch (err) {
    throw new MetricsError(`cannot measure "${path}": ${(err as Error).message}`, { cause: err });
  }
}

/** du of a PV's directory, re-checked for containment at every measurement. */
export class ContainedDuMetricsProvider implements MetricsProvider {
  constructor(
    private readonly roots: () => string[],
    private readonly path: string | undefined,
    private readonly capacityBytes: bigint | undefined,
  ) {}

  async getMetrics(signal?: AbortSignal): Promise<VolumeMetrics> {
    const contained = await containedForMeasuring(this.roots(), this.path);
    const options = this.capacityBytes === undefined ? {} : { capacityBytes: this.capacityBytes };
    return new DuMetricsProvider(contained.path, options).getMetrics(signal);
  }
}
