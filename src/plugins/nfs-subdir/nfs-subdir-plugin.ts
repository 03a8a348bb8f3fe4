/**
 * NFS sub-directory volumes: each volume is a directory inside an NFS export that is mounted
 * into the controller at `mountPath`; the PV points pods at `<server>:<share>/<subPath>`.
 *
 * - Parameters: `server` and `share` pick a configured mount (optional when only one is
 *   configured), `pathPattern` places the volume under a claim-derived parent (fs-common/path-pattern.ts),
 *   `onDelete` is delete | retain | archive (archive = moved into the mount's archive area,
 *   fs-common/archive.ts; upstream's `archiveOnDelete: "true"` means the same).
 * - onDelete is recorded at provision time; at delete the more conservative of the recorded
 *   value and the class's current value wins (retain > archive > delete): data is never removed
 *   because a class was re-created with a different setting.
 * - A PV is mapped back to a mount by server and share prefix; its sub-path goes through
 *   safe-path, so a PV naming `../` or a symlink can never reach outside the mounted share.
 */
import { promises as fs } from 'node:fs';
import { posix } from 'node:path';
import type { Logger } from 'pino';
import { ANN_PROVISIONED_BY } from '@pv-controller/kube/annotations.js';
import { formatBytes } from '@pv-controller/kube/quantity.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { MetricsError, type MetricsProvider } from '../../metrics/provider.js';
import {
  assertBackingName,
  assertDirectoryRequest,
  canonicalRoots,
  capacityOf,
  ContainedDuMetricsProvider,
  containedVolumePath,
  createDirectoryVolume,
  deleteContainedVolume,
  findRecords,
  listDirectoryVolumes,
  listStrayRecordFiles,
  makeRecord,
  MAX_DIRECTORY_BACKING_NAME,
  removeStrayRecordFiles,
  withPluginErrors,
  type OnDelete,
} from '../fs-common/directory-volume.js';
import { readRecord } from '../fs-common/metadata-record.js';
import type { DeleteRequest, ProvisionedVolume, ProvisionRequest, VolumePlugin } from '../api/core.js';
import { PluginError, type ParameterProblem } from '../api/errors.js';
import type { BackingVolume } from '../api/capabilities/backing-volumes.js';
import type { StrayFile } from '../api/capabilities/stray-files.js';
import { emptyDirNoFollow, type ContainedPath } from '../fs-common/safe-path.js';
import { patternProblems, renderPattern } from '../fs-common/path-pattern.js';
import type { DeleteSnapshotRequest, Snapshotter, SnapshotRequest, SnapshotSource, VolumeSnapshotInfo } from '../api/capabilities/snapshot.js';
import { copyDirectory, copyVolumeTree, snapshotData, SnapshotStore, type CopyObserver } from '../fs-common/directory-snapshots.js';
import type { CopyStats } from '../fs-common/file-copy.js';
import { createFilledDirectoryVolume } from '../fs-common/filled-volume.js';
import type { OpenDir } from '../fs-common/no-follow.js';
import { SnapshotHandles } from '../fs-common/snapshot-handle.js';
import { recordProvesVolume } from '../fs-common/provenance.js';
import { listArchives, sweepArchives, type ArchivedVolume } from '../fs-common/archive.js';

export const NFS_SUBDIR_PROVISIONER = 'pv-controller.io/nfs-subdir';
const PARAMETERS = ['server', 'share', 'pathPattern', 'onDelete', 'archiveOnDelete'] as const;
const ON_DELETE: readonly OnDelete[] = ['delete', 'archive', 'retain'];
const DIRECTORY_MODE = 0o777;

export interface NfsMount {
  server: string;
  /** The exported path on the server, e.g. `/exports/k8s`. */
  share: string;
  /** Where that export is mounted in the controller's filesystem. */
  mountPath: string;
}

export interface NfsSubdirPluginOptions {
  mounts: NfsMount[];
  /** Told what every snapshot, restore and clone copied. */
  onCopy?: CopyObserver;
  logger?: Logger;
}

function normaliseAbsolute(what: string, value: string): string {
  if (typeof value !== 'string' || !value.startsWith('/')) {
    throw new PluginError('InvalidParameter', `nfs-subdir ${what} "${value}" must be an absolute path`, false);
  }
  return posix.normalize(value).replace(/(.)\/+$/, '$1');
}

function normaliseMount(mount: NfsMount): NfsMount {
  if (!mount.server) throw new PluginError('InvalidParameter', 'nfs-subdir mount needs a server', false);
  const mountPath = normaliseAbsolute('mountPath', mount.mountPath);
  if (mountPath === '/') throw new PluginError('InvalidParameter', 'nfs-subdir mountPath cannot be "/"', false);
  return { server: mount.server, share: normaliseAbsolute('share', mount.share), mountPath };
}

/** The most conservative of the given onDelete values (retain > archive > delete). */
export function conservativeOnDelete(...values: Array<string | undefined>): OnDelete {
  if (values.includes('retain')) return 'retain';
  if (values.includes('archive')) return 'archive';
  return 'delete';
}

/** The class's onDelete values: `onDelete`, and upstream's `archiveOnDelete: "true"` as archive. */
function classOnDelete(parameters: Record<string, string>): Array<string | undefined> {
  return [parameters.onDelete, parameters.archiveOnDelete === 'true' ? 'archive' : undefined];
}

export class NfsSubdirPlugin implements VolumePlugin, Snapshotter {
  readonly name = NFS_SUBDIR_PROVISIONER;
  readonly supportsClone = true;
  private readonly snapshots: SnapshotStore;
  readonly maxBackingNameLength = MAX_DIRECTORY_BACKING_NAME;
  private readonly mounts: NfsMount[];
  private readonly logger: Logger | undefined;

  constructor(options: NfsSubdirPluginOptions) {
    if (options.mounts.length === 0) throw new PluginError('InvalidParameter', 'nfs-subdir needs at least one mount', false);
    this.mounts = options.mounts.map(normaliseMount);
    this.logger = options.logger;
    this.snapshots = new SnapshotStore({
      plugin: this.name,
      handles: new SnapshotHandles('nfs-subdir', undefined),
      roots: () => canonicalRoots(this.mounts.map((m) => m.mountPath)),
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.onCopy ? { onCopy: options.onCopy } : {}),
    });
  }

  validateParameters(parameters: Record<string, string>): ParameterProblem[] {
    const problems: ParameterProblem[] = [];
    for (const key of Object.keys(parameters)) {
      if (!(PARAMETERS as readonly string[]).includes(key)) {
        problems.push({ parameter: key, message: `unknown parameter "${key}" for ${this.name}` });
      }
    }
    problems.push(...this.mountProblems(parameters));
    if (parameters.pathPattern !== undefined) {
      for (const message of patternProblems(parameters.pathPattern)) problems.push({ parameter: 'pathPattern', message });
    }
    const onDelete = parameters.onDelete;
    if (onDelete !== undefined && !(ON_DELETE as readonly string[]).includes(onDelete)) {
      problems.push({ parameter: 'onDelete', message: `"${onDelete}" is not one of ${ON_DELETE.join(', ')}` });
    }
    const archiveOnDelete = parameters.archiveOnDelete;
    if (archiveOnDelete !== undefined && archiveOnDelete !== 'true' && archiveOnDelete !== 'false') {
      problems.push({ parameter: 'archiveOnDelete', message: `must be "true" or "false" (upstream nfs-subdir's spelling of onDelete: archive), got "${archiveOnDelete}"` });
    }
    return problems;
  }

  handles(pv: PersistentVolume): boolean {
    const provisioner = pv.metadata.annotations?.[ANN_PROVISIONED_BY];
    if (provisioner !== undefined) return provisioner === this.name;
    return this.locate(pv) !== undefined;
  }

  provision(req: ProvisionRequest): Promise<ProvisionedVolume> {
    return withPluginErrors(`provisioning "${req.backingName}"`, () => this.provisionVolume(req));
  }

  /** Provisions a volume, empty or filled by `fill` (a restore or a clone: filled in a temporary, renamed into place). */
  private async provisionVolume(req: ProvisionRequest, fill?: (into: OpenDir) => Promise<CopyStats>, report?: (stats: CopyStats) => void): Promise<ProvisionedVolume> {
    req.signal?.throwIfAborted();
    assertDirectoryRequest(req, 'nfs-subdir', this.validateParameters(req.parameters));
    const mount = this.mountFor(req.parameters)!;
    const root = await realRoot(mount);
    const pattern = req.parameters.pathPattern;
    const parent = pattern === undefined ? undefined : renderPattern(pattern, req.claim);
    const record = makeRecord({
      plugin: this.name,
      backingName: req.backingName,
      clusterName: req.clusterName,
      subPath: parent === undefined ? req.backingName : `${parent}/${req.backingName}`,
      pvName: req.pvName,
      claimName: req.claim.name,
      claimNamespace: req.claim.namespace,
      onDelete: conservativeOnDelete(...classOnDelete(req.parameters)),
    });
    let created = record;
    if (fill) {
      const filled = await createFilledDirectoryVolume(root, record, DIRECTORY_MODE, fill, req.signal);
      if (filled.stats) report?.(filled.stats);
      created = filled.record;
    } else {
      created = await createDirectoryVolume(root, record, DIRECTORY_MODE);
    }
    this.logger?.info({ pv: req.pvName, server: mount.server, subPath: created.subPath }, 'nfs-subdir volume ready');
    return {
      source: { nfs: { server: mount.server, path: posix.join(mount.share, created.subPath) } },
      capacity: formatBytes(req.requestBytes),
    };
  }

  delete(req: DeleteRequest): Promise<void> {
    return withPluginErrors(`deleting "${req.backingName}"`, () => this.deleteVolume(req));
  }

  private async deleteVolume(req: DeleteRequest): Promise<void> {
    req.signal?.throwIfAborted();
    if (req.pv) {
      const contained = await this.containedFor(req.pv, req.backingName);
      await this.deleteContained(contained, req);
      return;
    }
    assertBackingName(req.backingName);
    for (const mount of this.mounts) {
      for (const { root, record } of await findRecords([mount.mountPath], req.backingName)) {
        const contained = await containedVolumePath([mount.mountPath], `${root}/${record.subPath}`, req.backingName, undefined);
        await this.deleteContained(contained, req);
      }
    }
  }

  /**
   * The snapshot capability: a snapshot is a copy of the volume's tree in the mount's snapshot
   * area, not crash-consistent while the volume is written to (fs-common/directory-snapshots.ts).
   * Handles are `nfs-subdir:snap:v1:<name>`.
   */
  ownsSnapshot(snapshotId: string): boolean {
    return this.snapshots.ownsSnapshot(snapshotId);
  }

  createSnapshot(req: SnapshotRequest): Promise<VolumeSnapshotInfo> {
    return withPluginErrors(`snapshot "${req.snapshotName}" of PV "${req.pv.metadata.name}"`, async () => {
      req.signal?.throwIfAborted();
      const done = await this.snapshots.existing(req);
      if (done) return done;
      const contained = await this.containedFor(req.pv, undefined);
      const nfs = req.pv.spec.nfs!;
      const source = { root: contained.root, kind: 'directory' as const, sourceVolumeId: `${nfs.server}:${nfs.path}`, sizeBytes: capacityOf(req.pv) ?? 0n };
      return this.snapshots.cut(req, source, async (into) => ({ stats: await copyVolumeTree(contained, into, req.signal) }));
    });
  }

  deleteSnapshot(req: DeleteSnapshotRequest): Promise<void> {
    return this.snapshots.delete(req);
  }

  listSnapshots(clusterName: string): Promise<VolumeSnapshotInfo[]> {
    return this.snapshots.list(clusterName);
  }

  provisionFromSnapshot(req: ProvisionRequest, snapshot: SnapshotSource): Promise<ProvisionedVolume> {
    return withPluginErrors(`restoring "${req.backingName}" from a snapshot`, async () => {
      const found = await this.snapshots.locate(snapshot.snapshotId);
      const started = performance.now();
      const report = (stats: CopyStats): void => this.snapshots.report({ operation: 'restore', name: req.backingName, kind: 'directory', stats, seconds: (performance.now() - started) / 1000 });
      return this.provisionVolume(req, (into) => copyDirectory(snapshotData(found), into, req.signal), report);
    });
  }

  provisionClone(req: ProvisionRequest, source: PersistentVolume): Promise<ProvisionedVolume> {
    return withPluginErrors(`cloning PV "${source.metadata.name}" into "${req.backingName}"`, async () => {
      const contained = await this.containedFor(source, undefined);
      const started = performance.now();
      const report = (stats: CopyStats): void => this.snapshots.report({ operation: 'clone', name: req.backingName, kind: 'directory', stats, seconds: (performance.now() - started) / 1000 });
      return this.provisionVolume(req, (into) => copyDirectory(contained, into, req.signal), report);
    });
  }

  /** The provenance capability: the record this plugin wrote for exactly this PV's sub-directory (fs-common/provenance.ts). */
  provesProvisioned(pv: PersistentVolume): Promise<boolean> {
    const located = this.locate(pv);
    if (!located) return Promise.resolve(false);
    return recordProvesVolume([located.mount.mountPath], located.localPath, pv.metadata.name ?? '', this.name);
  }

  recycle(pv: PersistentVolume, signal?: AbortSignal): Promise<void> {
    return withPluginErrors(`recycling PV "${pv.metadata.name}"`, () => this.recycleVolume(pv, signal));
  }

  private async recycleVolume(pv: PersistentVolume, signal?: AbortSignal): Promise<void> {
    const contained = await this.containedFor(pv, undefined);
    await emptyDirNoFollow(contained.root, contained.path, signal);
    this.logger?.info({ pv: pv.metadata.name, path: contained.path }, 'nfs-subdir volume recycled');
  }

  metricsFor(pv: PersistentVolume): MetricsProvider {
    const located = this.locate(pv);
    if (!located) {
      const what = `PV "${pv.metadata.name}": its NFS export is not a configured mount`;
      return { getMetrics: () => Promise.reject(new MetricsError(`cannot measure ${what}`)) };
    }
    return new ContainedDuMetricsProvider(() => [located.mount.mountPath], located.localPath, capacityOf(pv));
  }

  listBackingVolumes(clusterName: string): Promise<BackingVolume[]> {
    return listDirectoryVolumes(
      this.mounts.map((m) => m.mountPath),
      clusterName,
      false,
    );
  }

  listStrayFiles(): Promise<StrayFile[]> {
    return withPluginErrors('listing stray files', () => listStrayRecordFiles(this.mounts.map((m) => m.mountPath)));
  }

  removeStrayFiles(): Promise<StrayFile[]> {
    return withPluginErrors('removing stray files', () => removeStrayRecordFiles(this.mounts.map((m) => m.mountPath)));
  }

  private async deleteContained(contained: ContainedPath, req: DeleteRequest): Promise<void> {
    const { backingName } = req;
    const record = await readRecord(contained.root, backingName).catch(() => undefined);
    const onDelete = conservativeOnDelete(record?.onDelete, ...classOnDelete(req.parameters ?? {}));
    await deleteContainedVolume(contained, backingName, onDelete, req.signal, req.archiveRetentionMs);
    this.logger?.info({ backingName, path: contained.path, onDelete }, 'nfs-subdir volume deleted');
  }

  /** The archives capability (fs-common/archive.ts), in every mount. */
  listArchives(): Promise<ArchivedVolume[]> {
    return listArchives(this.mounts.map((m) => m.mountPath));
  }

  sweepArchives(now: Date, signal?: AbortSignal): Promise<ArchivedVolume[]> {
    return withPluginErrors('sweeping archives', () => sweepArchives(this.mounts.map((m) => m.mountPath), now, signal));
  }

  /** Maps a PV back to a mount and checks its directory is safely inside it. */
  private async containedFor(pv: PersistentVolume, backingName: string | undefined): Promise<ContainedPath> {
    const located = this.locate(pv);
    if (!located) {
      const nfs = pv.spec.nfs;
      const where = nfs ? `${nfs.server}:${nfs.path}` : 'no nfs source';
      throw new PluginError('Unsafe', `refusing PV "${pv.metadata.name}" (${where}): not inside a configured NFS mount`, false);
    }
    const name = backingName ?? posix.basename(located.localPath);
    return containedVolumePath([located.mount.mountPath], located.localPath, name, pv.metadata.name);
  }

  /** The mount a PV's NFS source lies in and the local path it maps to (not yet checked on disk). */
  private locate(pv: PersistentVolume): { mount: NfsMount; localPath: string } | undefined {
    const nfs = pv.spec.nfs;
    if (!nfs || typeof nfs.path !== 'string') return undefined;
    for (const mount of this.mounts) {
      const prefix = mount.share === '/' ? '/' : `${mount.share}/`;
      if (nfs.server === mount.server && nfs.path.startsWith(prefix) && nfs.path.length > prefix.length) {
        // Joined as text, not normalised: safe-path must see (and refuse) any `..` the PV carries.
        return { mount, localPath: `${mount.mountPath}/${nfs.path.slice(prefix.length)}` };
      }
    }
    return undefined;
  }

  private mountProblems(parameters: Record<string, string>): ParameterProblem[] {
    const { server, share } = parameters;
    const candidates = this.candidates(parameters);
    if (candidates.length === 1) return [];
    if (candidates.length === 0) {
      const parameter = share !== undefined ? 'share' : 'server';
      const value = share !== undefined ? `${server ?? '*'}:${share}` : server;
      return [{ parameter, message: `"${value}" does not match a configured NFS mount` }];
    }
    const parameter = server === undefined ? 'server' : 'share';
    return [{ parameter, message: `required: ${candidates.length} configured NFS mounts match` }];
  }

  private candidates(parameters: Record<string, string>): NfsMount[] {
    const share = parameters.share === undefined ? undefined : posix.normalize(parameters.share).replace(/(.)\/+$/, '$1');
    return this.mounts.filter(
      (m) => (parameters.server === undefined || m.server === parameters.server) && (share === undefined || m.share === share),
    );
  }

  private mountFor(parameters: Record<string, string>): NfsMount | undefined {
    const candidates = this.candidates(parameters);
    return candidates.length === 1 ? candidates[0] : undefined;
  }
}

async function realRoot(mount: NfsMount): Promise<string> {
  try {
    return await fs.realpath(mount.mountPath);
  } catch (err) {
    throw new PluginError('Backend', `NFS mount "${mount.mountPath}" is not available: ${(err as Error).message}`, true, {
      cause: err,
    });
  }
}
