/**
 * Host-path volumes: a directory `<root>/<backingName>` on this machine (or on a filesystem all
 * nodes share), for single-node clusters, development and tests.
 *
 * - Directories are created 0777, like upstream host-path provisioners: kubelet applies no
 *   fsGroup to hostPath/local volumes, so anything stricter locks out pods that run as a
 *   non-root uid. Keep the roots themselves 0700/0711 so other host users cannot reach them.
 * - With several roots: an existing record for the backing name wins (so a retry after a crash,
 *   or after a root was added, finds the same directory), then the `root` parameter, then the
 *   class's placement policy (placement.ts) among the roots that can hold the volume. The choice
 *   and the record that reserves the space are made under one lock (root-placer.ts), so the
 *   retry finds the record and never makes a second directory.
 * - delete/recycle act only on a path that safe-path proves is strictly inside a *currently*
 *   configured root, with no symlinked component, and that is not another PV's directory.
 */
import { posix } from 'node:path';
import type { Logger } from 'pino';
import { ANN_PROVISIONED_BY } from '@pv-controller/kube/annotations.js';
import { formatBytes } from '@pv-controller/kube/quantity.js';
import type { PersistentVolume, VolumeNodeAffinity } from '@pv-controller/kube/types.js';
import type { MetricsProvider } from '../../metrics/provider.js';
import type { DeleteRequest, ProvisionedVolume, ProvisionRequest, VolumePlugin } from '../api/core.js';
import { PluginError, type ParameterProblem } from '../api/errors.js';
import type { BackingVolume } from '../api/capabilities/backing-volumes.js';
import type { ExpandedVolume, ExpandRequest } from '../api/capabilities/expand.js';
import type { StrayFile } from '../api/capabilities/stray-files.js';
import { emptyDirNoFollow } from '../fs-common/safe-path.js';
import { readRecord, type VolumeRecord } from '../fs-common/metadata-record.js';
import { fitProblem, type RootCapacity } from './capacity.js';
import { imageBytesFor, imagePathOf, imageSupportProblem, ImageVolumes } from './image-volume.js';
import { HostPathMetricsProvider } from './metrics.js';
import { normaliseRoot, realpathOrSelf, sizingOf, volumePath, volumeSourceFor } from './host-path-helpers.js';
import { affinityOf, assertHeldHere, isPinnedHere, makePin, type NodePin } from './node-pin.js';
import { RootPlacer, type RootLimits } from './root-placer.js';
import { deleteModeFor, hostPathParameterProblems, subPathFor } from './parameters.js';
import { applyOwnership, DEFAULT_DIRECTORY_MODE as DIRECTORY_MODE, ownershipOf } from './ownership.js';
import { sizedBytes, type VolumeContents } from './volume-contents.js';
import { HostPathSnapshots } from './host-path-snapshots.js';
import { DEFAULT_FREEZE_TIMEOUT_MS } from './image-copy.js';
import { recoverSizedVolumes } from './sized-recovery.js';
import type { CopyObserver } from '../fs-common/directory-snapshots.js';
import type { DeleteSnapshotRequest, Snapshotter, SnapshotRequest, SnapshotSource, VolumeSnapshotInfo } from '../api/capabilities/snapshot.js';
import { createFilledDirectoryVolume } from '../fs-common/filled-volume.js';
import { recordProvesVolume } from '../fs-common/provenance.js';
import { listArchives, sweepArchives, type ArchivedVolume } from '../fs-common/archive.js';

export { volumePath } from './host-path-helpers.js';
import { assertBackingName, assertDirectoryRequest, capacityOf, containedVolumePath, createDirectoryVolume, deleteContainedVolume, findRecords } from '../fs-common/directory-volume.js';
import { listDirectoryVolumes, listStrayRecordFiles, makeRecord, MAX_DIRECTORY_BACKING_NAME, removeStrayRecordFiles, withPluginErrors } from '../fs-common/directory-volume.js';

export const HOST_PATH_PROVISIONER = 'kubernetes.io/host-path';
/**
 * The provisioner node agents serve (`pv-controller node-agent`): each for its own node only. Not
 * an in-tree name, so a central controller leaves these volumes to the agents (the external
 * deleter rule), and a valid CSIDriver name, so kube-scheduler consults the CSIStorageCapacity
 * objects the agents publish for it.
 */
export const NODE_HOST_PATH_PROVISIONER = 'host-path.pv-controller.io';
export { HOST_PATH_PARAMETER_ROOT } from './root-placer.js';
/** Why a grown plain-directory claim is infeasible, and what its class should say instead. */
const ONLY_SIZED_GROW = 'only sizing: image volumes can be expanded (a StorageClass of plain directories should not set allowVolumeExpansion)';

export interface HostPathPluginOptions {
  /** Absolute directories volumes may be created in and deleted from; never `/`. */
  roots: string[];
  /** When set, PVs are `local` volumes pinned to this node; otherwise `hostPath` volumes. */
  nodeName?: string;
  /**
   * The provisioner name this plugin serves (default kubernetes.io/host-path). A node agent serves
   * NODE_HOST_PATH_PROVISIONER and, with `nodeName`, only its own node's claims and volumes.
   */
  provisionerName?: string;
  /** Sized volumes a root may promise, as a multiple of its filesystem (default 1: none beyond it). */
  overcommitRatio?: number;
  /** Per root (by its configured path): the capacity its volumes may be given, its placement weight. */
  rootLimits?: Record<string, RootLimits>;
  /** With `nodeName`: the node's labels, and the label key its PVs are pinned by (default kubernetes.io/hostname; node-pin.ts). */
  nodeLabels?: Record<string, string>;
  nodeAffinityLabel?: string;
  /** Runs the system tools sized volumes need (tests substitute it). */
  images?: ImageVolumes;
  /** How long a sized volume's filesystem may stay frozen while a snapshot or clone copies it (default 60 s). */
  freezeTimeoutMs?: number;
  /** Told what every snapshot, restore and clone copied and reflinked (the bench reads it). */
  onCopy?: CopyObserver;
  logger?: Logger;
}

export class HostPathPlugin implements VolumePlugin, Snapshotter {
  readonly name: string;
  readonly supportsClone = true;
  readonly maxBackingNameLength = MAX_DIRECTORY_BACKING_NAME;
  readonly supportsMountOptions = false;
  readonly roots: string[];
  /** Configured roots plus their real paths at construction: what `handles` recognises in a PV. */
  private readonly rootAliases: string[];
  readonly nodeName: string | undefined;
  private readonly pin: NodePin | undefined;
  private readonly logger: Logger | undefined;
  private readonly overcommitRatio: number;
  private readonly placer: RootPlacer;
  readonly images: ImageVolumes;
  readonly freezeTimeoutMs: number;
  private readonly snapshots: HostPathSnapshots;
  /** Sized provisions and grows one at a time: two concurrent capacity checks would both see room for one. */
  private sizedQueue: Promise<unknown> = Promise.resolve();

  constructor(options: HostPathPluginOptions) {
    if (options.roots.length === 0) throw new PluginError('InvalidParameter', 'host-path needs at least one root', false);
    this.roots = options.roots.map(normaliseRoot);
    this.rootAliases = [...new Set(this.roots.flatMap((root) => [root, realpathOrSelf(root)]))];
    this.nodeName = options.nodeName;
    this.pin = makePin(options.nodeName, options.nodeLabels, options.nodeAffinityLabel);
    this.name = options.provisionerName ?? HOST_PATH_PROVISIONER;
    this.logger = options.logger;
    this.overcommitRatio = options.overcommitRatio ?? 1;
    if (!(this.overcommitRatio > 0)) throw new PluginError('InvalidParameter', `over-commit ratio must be positive, got ${this.overcommitRatio}`, false);
    this.placer = new RootPlacer(this.roots, options.rootLimits ?? {}, this.overcommitRatio);
    this.images = options.images ?? new ImageVolumes();
    this.freezeTimeoutMs = options.freezeTimeoutMs ?? DEFAULT_FREEZE_TIMEOUT_MS;
    this.snapshots = new HostPathSnapshots(this, this.logger, options.onCopy);
  }

  validateParameters(parameters: Record<string, string>): ParameterProblem[] {
    return hostPathParameterProblems(this.name, this.roots, parameters);
  }

  handles(pv: PersistentVolume): boolean {
    if (this.isNodeAgent() && !isPinnedHere(pv, this.pin)) return false;
    const provisioner = pv.metadata.annotations?.[ANN_PROVISIONED_BY];
    if (provisioner !== undefined) return provisioner === this.name;
    const path = volumePath(pv);
    return path !== undefined && this.rootAliases.some((root) => path.startsWith(`${root}/`));
  }

  declines(pv: PersistentVolume): string | undefined {
    const path = volumePath(pv);
    if (path === undefined || this.handles(pv) || pv.metadata.annotations?.[ANN_PROVISIONED_BY] !== undefined) return undefined;
    if (this.isNodeAgent() && !isPinnedHere(pv, this.pin)) return undefined;
    return `${pv.spec.hostPath ? 'hostPath' : 'local path'} "${path}" is outside every host-path root (${this.roots.join(', ')})`;
  }

  /** A node agent acts for its own node only: claims whose selected node is another agent's are not its to touch. */
  servesNode(selectedNode: string | undefined): boolean {
    return !this.isNodeAgent() || selectedNode === this.nodeName;
  }

  private isNodeAgent(): boolean {
    return this.name === NODE_HOST_PATH_PROVISIONER && this.nodeName !== undefined;
  }

  provision(req: ProvisionRequest): Promise<ProvisionedVolume> {
    return withPluginErrors(`provisioning "${req.backingName}"`, () => this.provisionVolume(req));
  }

  /**
   * Provisions a volume, empty or with `contents` (a restore or a clone, host-path-snapshots.ts):
   * a plain directory is filled in a temporary and renamed into place, a sized volume's image is
   * made from the source's before it is grown and mounted. Idempotent per backing name.
   */
  async provisionVolume(req: ProvisionRequest, contents?: VolumeContents): Promise<ProvisionedVolume> {
    req.signal?.throwIfAborted();
    this.checkRequest(req);
    const sized = sizingOf(req.parameters) === 'image';
    const affinity = affinityOf(this.pin, req.parameters);
    const ownership = ownershipOf(req.parameters);
    const record = makeRecord({
      plugin: this.name,
      backingName: req.backingName,
      clusterName: req.clusterName,
      subPath: subPathFor(req),
      pvName: req.pvName,
      claimName: req.claim.name,
      claimNamespace: req.claim.namespace,
      ...(sized ? {} : { reservedBytes: req.requestBytes }),
    });
    if (sized) return this.provisionSized(req, record, affinity, contents);
    const root = await this.oneSizedAtATime(() => this.placer.reserve(req, record, contents?.root));
    let created: VolumeRecord;
    if (contents) {
      const filled = await createFilledDirectoryVolume(root, record, ownership.mode, (into) => contents.fillDirectory(into), req.signal);
      if (filled.stats) contents.filled(filled.stats);
      created = filled.record;
    } else {
      created = await createDirectoryVolume(root, record, ownership.mode);
    }
    const path = posix.join(root, created.subPath);
    await applyOwnership(root, path, ownership);
    this.logger?.debug({ pv: req.pvName, path }, 'host-path volume directory ready');
    return { source: volumeSourceFor(this.nodeName, path), capacity: formatBytes(req.requestBytes), ...affinity };
  }

  /** `sizing: image`: see image-volume.ts for the steps and why each is safe to repeat. */
  private provisionSized(req: ProvisionRequest, plain: VolumeRecord, affinity: { nodeAffinity?: VolumeNodeAffinity }, contents?: VolumeContents): Promise<ProvisionedVolume> {
    const run = async (): Promise<ProvisionedVolume> => {
      const problem = imageSupportProblem();
      if (problem) throw new PluginError('NotSupported', `${problem}; use sizing: none (plain directories) or run it as root`, false);
      const recorded = await this.placer.existingRoot(req.backingName);
      const existing = recorded !== undefined ? await readRecord(recorded, req.backingName) : undefined;
      const bytes = existing?.sizeBytes !== undefined ? BigInt(existing.sizeBytes) : sizedBytes(req.requestBytes, contents?.minBytes);
      // A new volume's root is chosen with its size: placement.ts, under this queue (the reservation is the record below).
      const root = recorded ?? (await this.placer.choose(req.parameters, bytes, contents?.root));
      const path = posix.join(root, req.backingName);
      if (!(await this.images.mountedFrom(path, imagePathOf(root, req.backingName)))) {
        await createDirectoryVolume(root, { ...plain, sizing: 'image', sizeBytes: bytes.toString() }, DIRECTORY_MODE);
        if (contents) await this.images.ensureImageFrom(root, req.backingName, (temporary) => contents.fillImage(temporary, bytes));
        else await this.images.ensureImage(root, req.backingName, bytes, req.signal);
      }
      await this.images.ensureMounted(root, req.backingName, path, req.signal);
      await applyOwnership(root, path, ownershipOf(req.parameters));
      this.logger?.debug({ pv: req.pvName, path, bytes: bytes.toString() }, 'host-path sized volume mounted');
      return { source: volumeSourceFor(this.nodeName, path), capacity: formatBytes(bytes), ...affinity };
    };
    return this.oneSizedAtATime(run);
  }

  /** Runs `run` after every sized provision or grow queued before it has finished. */
  oneSizedAtATime<T>(run: () => Promise<T>): Promise<T> {
    const done = this.sizedQueue.then(run, run);
    this.sizedQueue = done.catch(() => undefined);
    return done;
  }

  /** Unmounts and removes a sized volume's image (no-op for a plain directory); the directory and record go after. */
  private async releaseSized(root: string, backingName: string, path: string): Promise<void> {
    // A mount point without a sized record is not ours: the generic delete refuses to cross it.
    if ((await readRecord(root, backingName))?.sizing !== 'image') return;
    await this.images.release(root, backingName, path);
    await this.images.removeImage(root, backingName);
  }

  delete(req: DeleteRequest): Promise<void> {
    return withPluginErrors(`deleting "${req.backingName}"`, () => this.deleteVolume(req));
  }

  private async deleteVolume(req: DeleteRequest): Promise<void> {
    req.signal?.throwIfAborted();
    if (req.pv) {
      const path = volumePath(req.pv);
      if (path === undefined) {
        throw new PluginError('InvalidParameter', `PV "${req.pv.metadata.name}" has no hostPath or local path`, false);
      }
      await assertHeldHere(this.roots, req.pv, req.backingName, this.pin);
      const contained = await containedVolumePath(this.roots, path, req.backingName, req.pv.metadata.name);
      await this.releaseSized(contained.root, req.backingName, contained.path);
      await deleteContainedVolume(contained, req.backingName, await deleteModeFor(contained.root, req), req.signal, req.archiveRetentionMs);
      this.logger?.debug({ pv: req.pv.metadata.name, path: contained.path }, 'host-path volume deleted');
      return;
    }
    assertBackingName(req.backingName);
    for (const { root, record } of await findRecords(this.roots, req.backingName)) {
      const path = posix.join(root, record.subPath);
      const contained = await containedVolumePath(this.roots, path, req.backingName, undefined);
      await this.releaseSized(contained.root, req.backingName, contained.path);
      await deleteContainedVolume(contained, req.backingName, await deleteModeFor(root, req), req.signal, req.archiveRetentionMs);
      this.logger?.info({ backingName: req.backingName, path }, 'host-path volume deleted (no PV)');
    }
  }

  /** The provenance capability: the record this plugin wrote for exactly this PV's directory (fs-common/provenance.ts). */
  provesProvisioned(pv: PersistentVolume): Promise<boolean> {
    return this.handles(pv) ? recordProvesVolume(this.roots, volumePath(pv) ?? '', pv.metadata.name ?? '', this.name) : Promise.resolve(false);
  }

  /** The archives capability (fs-common/archive.ts). */
  listArchives(): Promise<ArchivedVolume[]> {
    return listArchives(this.roots);
  }

  sweepArchives(now: Date, signal?: AbortSignal): Promise<ArchivedVolume[]> {
    return withPluginErrors('sweeping archives', () => sweepArchives(this.roots, now, signal));
  }

  recycle(pv: PersistentVolume, signal?: AbortSignal): Promise<void> {
    return withPluginErrors(`recycling PV "${pv.metadata.name}"`, () => this.recycleVolume(pv, signal));
  }

  private async recycleVolume(pv: PersistentVolume, signal?: AbortSignal): Promise<void> {
    const path = volumePath(pv);
    if (path === undefined) throw new PluginError('InvalidParameter', `PV "${pv.metadata.name}" has no hostPath or local path`, false);
    const backingName = posix.basename(path);
    await assertHeldHere(this.roots, pv, backingName, this.pin);
    const contained = await containedVolumePath(this.roots, path, backingName, pv.metadata.name);
    if ((await readRecord(contained.root, backingName))?.sizing === 'image') {
      throw new PluginError('NotSupported', `PV "${pv.metadata.name}" is a sized volume (sizing: image): Recycle is not supported for it, use Delete`, false);
    }
    await emptyDirNoFollow(contained.root, contained.path, signal);
    this.logger?.info({ pv: pv.metadata.name, path: contained.path }, 'host-path volume recycled');
  }

  metricsFor(pv: PersistentVolume): MetricsProvider {
    return new HostPathMetricsProvider(() => this.roots, volumePath(pv), capacityOf(pv));
  }

  /** The snapshot capability (host-path-snapshots.ts; docs/local-storage.md, "Snapshots"). */
  ownsSnapshot(snapshotId: string): boolean {
    return this.snapshots.store.ownsSnapshot(snapshotId);
  }

  createSnapshot(req: SnapshotRequest): Promise<VolumeSnapshotInfo> {
    return this.snapshots.create(req);
  }

  deleteSnapshot(req: DeleteSnapshotRequest): Promise<void> {
    return this.snapshots.store.delete(req);
  }

  listSnapshots(clusterName: string): Promise<VolumeSnapshotInfo[]> {
    return this.snapshots.store.list(clusterName);
  }

  provisionFromSnapshot(req: ProvisionRequest, snapshot: SnapshotSource): Promise<ProvisionedVolume> {
    return this.snapshots.restore(req, snapshot);
  }

  provisionClone(req: ProvisionRequest, source: PersistentVolume): Promise<ProvisionedVolume> {
    return this.snapshots.clone(req, source);
  }

  /** Sized volumes mounted again, stray loop devices detached, frozen filesystems thawed (sized-recovery.ts). */
  recover(): Promise<void> {
    return recoverSizedVolumes(this.roots, this.images, this.logger);
  }

  /**
   * The expand capability: a sized volume grows (image and filesystem, while mounted); a plain
   * directory has no size to grow and is refused for good (the claim is then Infeasible).
   */
  neverGrows(parameters: Record<string, string>): string | undefined {
    return sizingOf(parameters) === 'image' ? undefined : 'its volumes are plain directories, which have no size to grow (parameters.sizing: image makes volumes that can)';
  }

  async expand(req: ExpandRequest): Promise<ExpandedVolume> {
    const bytes = await this.growSized(req.pv, req.sizeBytes, req.signal);
    return { capacity: formatBytes(bytes), nodeExpansionRequired: false };
  }

  /**
   * Grows a sized volume's image and filesystem online to at least `bytes`; returns its new size.
   * Queued with the sized provisions, whose capacity check must see the grown size.
   */
  growSized(pv: PersistentVolume, bytes: bigint, signal?: AbortSignal): Promise<bigint> {
    return withPluginErrors(`growing PV "${pv.metadata.name}"`, () => this.oneSizedAtATime(async () => {
      const path = volumePath(pv);
      if (path === undefined) throw new PluginError('InvalidParameter', `PV "${pv.metadata.name}" has no hostPath or local path`, false);
      const backingName = posix.basename(path);
      await assertHeldHere(this.roots, pv, backingName, this.pin);
      const contained = await containedVolumePath(this.roots, path, backingName, pv.metadata.name);
      if ((await readRecord(contained.root, backingName))?.sizing !== 'image') {
        throw new PluginError('NotSupported', `PV "${pv.metadata.name}" is a plain directory (sizing: none), which has no size to grow; ${ONLY_SIZED_GROW}`, false);
      }
      const grown = imageBytesFor(bytes);
      const current = await this.images.currentBytes(contained.root, backingName);
      const misfit = grown > current ? fitProblem(await this.placer.capacityOf(contained.root), grown - current) : undefined;
      if (misfit) throw new PluginError('Backend', misfit, true);
      return this.images.grow(contained.root, backingName, contained.path, grown, signal);
    }));
  }

  /**
   * What a class can still get on this node (root-placer.ts): the largest room among the roots it
   * may use — sized classes, what a root can promise; plain, its free space within its capacity.
   */
  storageCapacity(parameters: Record<string, string>): Promise<{ capacityBytes: bigint; maximumVolumeBytes: bigint }> {
    return this.placer.classCapacity(parameters);
  }

  /** Each root's capacity numbers (for CSIStorageCapacity and `ProvisioningFailed` messages). */
  capacity(): Promise<RootCapacity[]> {
    return this.placer.capacities();
  }

  listBackingVolumes(clusterName: string): Promise<BackingVolume[]> {
    return listDirectoryVolumes(this.roots, clusterName, true);
  }

  listStrayFiles(): Promise<StrayFile[]> {
    return withPluginErrors('listing stray files', () => listStrayRecordFiles(this.roots));
  }

  removeStrayFiles(): Promise<StrayFile[]> {
    return withPluginErrors('removing stray files', () => removeStrayRecordFiles(this.roots));
  }

  checkRequest(req: ProvisionRequest): void {
    assertDirectoryRequest(req, 'host-path', this.validateParameters(req.parameters));
    if (this.nodeName !== undefined && req.selectedNode !== undefined && req.selectedNode !== this.nodeName) {
      throw new PluginError(
        'NotSupported',
        `this host-path provisioner serves node "${this.nodeName}", not the selected node "${req.selectedNode}"`,
        false,
      );
    }
  }
}
