/**
 * Host-path volumes: a directory `<root>/<backingName>` on this machine (or on a filesystem all
 * nodes share), for single-node clusters, development and tests.
 *
 * - Directories are created 0777, like upstream host-path provisioners: kubelet applies no
 *   fsGroup to hostPath/local volumes, so anything stricter locks out pods that run as a
 *   non-root uid. Keep the roots themselves 0700/0711 so other host users cannot reach them.
 * - With several roots the choice is deterministic: an existing record for the backing name
 *   wins (so a retry after a crash, or after a root was added, finds the same directory), then
 *   the `root` parameter, then a hash of the backing name over the configured roots. Not "most
 *   free space": that changes between a crash and the retry and would create a second directory.
 * - delete/recycle act only on a path that safe-path proves is strictly inside a *currently*
 *   configured root, with no symlinked component, and that is not another PV's directory.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { posix } from 'node:path';
import type { Logger } from 'pino';
import { ANN_PROVISIONED_BY, LABEL_HOSTNAME } from '@pv-controller/kube/annotations.js';
import { formatBytes } from '@pv-controller/kube/quantity.js';
import type { PersistentVolume, PersistentVolumeSpec, VolumeNodeAffinity } from '@pv-controller/kube/types.js';
import type { MetricsProvider } from '../../metrics/provider.js';
import type { DeleteRequest, ProvisionedVolume, ProvisionRequest, VolumePlugin } from '../api/core.js';
import { PluginError, type ParameterProblem } from '../api/errors.js';
import type { BackingVolume } from '../api/capabilities/backing-volumes.js';
import type { ExpandedVolume, ExpandRequest } from '../api/capabilities/expand.js';
import type { StrayFile } from '../api/capabilities/stray-files.js';
import { emptyDirNoFollow } from '../fs-common/safe-path.js';
import { listRecords, readRecord, type VolumeRecord } from '../fs-common/metadata-record.js';
import { fitProblem, remainingBytes, rootCapacity, type RootCapacity } from './capacity.js';
import { imageBytesFor, imagePathOf, imageSupportProblem, ImageVolumes, SIZING_PARAMETER, SIZINGS } from './image-volume.js';
import { HostPathMetricsProvider } from './metrics.js';
import { normaliseRoot, pinnedTo, realpathOrSelf, sizingOf } from './host-path-helpers.js';
import {
  assertBackingName,
  assertDirectoryRequest,
  capacityOf,
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
} from '../fs-common/directory-volume.js';

export const HOST_PATH_PROVISIONER = 'kubernetes.io/host-path';
/**
 * The provisioner node agents serve (`pv-controller node-agent`): each for its own node only. Not
 * an in-tree name, so a central controller leaves these volumes to the agents (the external
 * deleter rule), and a valid CSIDriver name, so kube-scheduler consults the CSIStorageCapacity
 * objects the agents publish for it.
 */
export const NODE_HOST_PATH_PROVISIONER = 'host-path.pv-controller.io';
export const HOST_PATH_PARAMETER_ROOT = 'root';
/** Why a grown plain-directory claim is infeasible, and what its class should say instead. */
const ONLY_SIZED_GROW = 'only sizing: image volumes can be expanded (a StorageClass of plain directories should not set allowVolumeExpansion)';
const DIRECTORY_MODE = 0o777;

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
  /** Runs the system tools sized volumes need (tests substitute it). */
  images?: ImageVolumes;
  logger?: Logger;
}

export class HostPathPlugin implements VolumePlugin {
  readonly name: string;
  readonly maxBackingNameLength = MAX_DIRECTORY_BACKING_NAME;
  readonly supportsMountOptions = false;
  private readonly roots: string[];
  /** Configured roots plus their real paths at construction: what `handles` recognises in a PV. */
  private readonly rootAliases: string[];
  private readonly nodeName: string | undefined;
  private readonly logger: Logger | undefined;
  private readonly overcommitRatio: number;
  private readonly images: ImageVolumes;
  /** Sized provisions and grows one at a time: two concurrent capacity checks would both see room for one. */
  private sizedQueue: Promise<unknown> = Promise.resolve();

  constructor(options: HostPathPluginOptions) {
    if (options.roots.length === 0) throw new PluginError('InvalidParameter', 'host-path needs at least one root', false);
    this.roots = options.roots.map(normaliseRoot);
    this.rootAliases = [...new Set(this.roots.flatMap((root) => [root, realpathOrSelf(root)]))];
    this.nodeName = options.nodeName;
    this.name = options.provisionerName ?? HOST_PATH_PROVISIONER;
    this.logger = options.logger;
    this.overcommitRatio = options.overcommitRatio ?? 1;
    if (!(this.overcommitRatio > 0)) throw new PluginError('InvalidParameter', `over-commit ratio must be positive, got ${this.overcommitRatio}`, false);
    this.images = options.images ?? new ImageVolumes();
  }

  validateParameters(parameters: Record<string, string>): ParameterProblem[] {
    const problems: ParameterProblem[] = [];
    for (const [key, value] of Object.entries(parameters)) {
      if (key === SIZING_PARAMETER) {
        if (!(SIZINGS as readonly string[]).includes(value)) problems.push({ parameter: key, message: `must be one of ${SIZINGS.join(', ')}, got "${value}"` });
      } else if (key !== HOST_PATH_PARAMETER_ROOT) {
        problems.push({ parameter: key, message: `unknown parameter "${key}" for ${this.name}` });
      } else if (!this.isConfiguredRoot(value)) {
        problems.push({ parameter: key, message: `"${value}" is not a configured root (${this.roots.join(', ')})` });
      }
    }
    return problems;
  }

  handles(pv: PersistentVolume): boolean {
    if (this.isNodeAgent() && !pinnedTo(pv, this.nodeName ?? '')) return false;
    const provisioner = pv.metadata.annotations?.[ANN_PROVISIONED_BY];
    if (provisioner !== undefined) return provisioner === this.name;
    const path = volumePath(pv);
    return path !== undefined && this.rootAliases.some((root) => path.startsWith(`${root}/`));
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

  private async provisionVolume(req: ProvisionRequest): Promise<ProvisionedVolume> {
    req.signal?.throwIfAborted();
    this.checkRequest(req);
    const root = await this.rootFor(req);
    const record = makeRecord({
      plugin: this.name,
      backingName: req.backingName,
      clusterName: req.clusterName,
      subPath: req.backingName,
      pvName: req.pvName,
      claimName: req.claim.name,
      claimNamespace: req.claim.namespace,
    });
    if (sizingOf(req.parameters) === 'image') return this.provisionSized(req, root, record);
    const created = await createDirectoryVolume(root, record, DIRECTORY_MODE);
    const path = posix.join(root, created.subPath);
    this.logger?.debug({ pv: req.pvName, path }, 'host-path volume directory ready');
    return { source: this.sourceFor(path), capacity: formatBytes(req.requestBytes), ...this.affinity() };
  }

  /** `sizing: image`: see image-volume.ts for the steps and why each is safe to repeat. */
  private provisionSized(req: ProvisionRequest, root: string, plain: VolumeRecord): Promise<ProvisionedVolume> {
    const run = async (): Promise<ProvisionedVolume> => {
      const problem = imageSupportProblem();
      if (problem) throw new PluginError('NotSupported', `${problem}; use sizing: none (plain directories) or run it as root`, false);
      const path = posix.join(root, req.backingName);
      const existing = await readRecord(root, req.backingName);
      const bytes = existing?.sizeBytes !== undefined ? BigInt(existing.sizeBytes) : imageBytesFor(req.requestBytes);
      if (!existing) {
        const misfit = fitProblem(await rootCapacity(root, this.overcommitRatio), bytes);
        if (misfit) throw new PluginError('Backend', misfit, true);
      }
      if (!(await this.images.mountedFrom(path, imagePathOf(root, req.backingName)))) {
        await createDirectoryVolume(root, { ...plain, sizing: 'image', sizeBytes: bytes.toString() }, DIRECTORY_MODE);
        await this.images.ensureImage(root, req.backingName, bytes, req.signal);
      }
      await this.images.ensureMounted(root, req.backingName, path, req.signal);
      this.logger?.debug({ pv: req.pvName, path, bytes: bytes.toString() }, 'host-path sized volume mounted');
      return { source: this.sourceFor(path), capacity: formatBytes(bytes), ...this.affinity() };
    };
    return this.oneSizedAtATime(run);
  }

  /** Runs `run` after every sized provision or grow queued before it has finished. */
  private oneSizedAtATime<T>(run: () => Promise<T>): Promise<T> {
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
      const contained = await containedVolumePath(this.roots, path, req.backingName, req.pv.metadata.name);
      await this.releaseSized(contained.root, req.backingName, contained.path);
      await deleteContainedVolume(contained, req.backingName, 'delete', req.signal);
      this.logger?.debug({ pv: req.pv.metadata.name, path: contained.path }, 'host-path volume deleted');
      return;
    }
    assertBackingName(req.backingName);
    for (const { root, record } of await findRecords(this.roots, req.backingName)) {
      const path = posix.join(root, record.subPath);
      const contained = await containedVolumePath(this.roots, path, req.backingName, undefined);
      await this.releaseSized(contained.root, req.backingName, contained.path);
      await deleteContainedVolume(contained, req.backingName, 'delete', req.signal);
      this.logger?.info({ backingName: req.backingName, path }, 'host-path volume deleted (no PV)');
    }
  }

  recycle(pv: PersistentVolume, signal?: AbortSignal): Promise<void> {
    return withPluginErrors(`recycling PV "${pv.metadata.name}"`, () => this.recycleVolume(pv, signal));
  }

  private async recycleVolume(pv: PersistentVolume, signal?: AbortSignal): Promise<void> {
    const path = volumePath(pv);
    if (path === undefined) throw new PluginError('InvalidParameter', `PV "${pv.metadata.name}" has no hostPath or local path`, false);
    const backingName = posix.basename(path);
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

  /**
   * Every sized volume of every root mounted again where a reboot unmounted it, each stray loop
   * device detached; a volume whose image is missing is left to its delete (logged). One
   * volume's failure does not stop the others.
   */
  async recover(): Promise<void> {
    if (imageSupportProblem()) return;
    for (const root of this.roots) {
      for (const record of await listRecords(root).catch(() => [])) {
        if (record.sizing !== 'image') continue;
        const path = posix.join(root, record.subPath);
        try {
          if (!(await this.images.currentBytes(root, record.backingName))) {
            this.logger?.warn({ backingName: record.backingName }, 'sized volume has no image yet; its provisioning or delete finishes it');
            continue;
          }
          await this.images.ensureMounted(root, record.backingName, path);
        } catch (err) {
          this.logger?.warn({ backingName: record.backingName, err: (err as Error).message }, 'cannot mount sized volume again');
        }
      }
    }
  }

  /**
   * The expand capability: a sized volume grows (image and filesystem, while mounted); a plain
   * directory has no size to grow and is refused for good (the claim is then Infeasible).
   */
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
      const contained = await containedVolumePath(this.roots, path, backingName, pv.metadata.name);
      if ((await readRecord(contained.root, backingName))?.sizing !== 'image') {
        throw new PluginError('NotSupported', `PV "${pv.metadata.name}" is a plain directory (sizing: none), which has no size to grow; ${ONLY_SIZED_GROW}`, false);
      }
      const grown = imageBytesFor(bytes);
      const current = await this.images.currentBytes(contained.root, backingName);
      const misfit = grown > current ? fitProblem(await rootCapacity(contained.root, this.overcommitRatio), grown - current) : undefined;
      if (misfit) throw new PluginError('Backend', misfit, true);
      return this.images.grow(contained.root, backingName, contained.path, grown, signal);
    }));
  }

  /**
   * Sized classes: what the roots can still promise (capacity accounting); plain classes: the
   * roots' free space. A `root` parameter narrows it to that root.
   */
  async storageCapacity(parameters: Record<string, string>): Promise<{ capacityBytes: bigint; maximumVolumeBytes: bigint }> {
    const chosen = parameters[HOST_PATH_PARAMETER_ROOT];
    const roots = chosen !== undefined && this.isConfiguredRoot(chosen) ? [posix.normalize(chosen).replace(/(.)\/+$/, '$1')] : this.roots;
    const sized = sizingOf(parameters) === 'image';
    let capacityBytes = 0n;
    let maximumVolumeBytes = 0n;
    for (const root of roots) {
      const c = await rootCapacity(root, this.overcommitRatio).catch(() => undefined);
      if (!c) continue;
      const room = sized ? remainingBytes(c) : c.freeBytes;
      capacityBytes += room;
      if (room > maximumVolumeBytes) maximumVolumeBytes = room;
    }
    return { capacityBytes, maximumVolumeBytes };
  }

  /** Each root's capacity numbers (for CSIStorageCapacity and `ProvisioningFailed` messages). */
  capacity(): Promise<RootCapacity[]> {
    return Promise.all(this.roots.map((root) => rootCapacity(root, this.overcommitRatio)));
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

  private isConfiguredRoot(value: string): boolean {
    return value.startsWith('/') && this.roots.includes(posix.normalize(value).replace(/(.)\/+$/, '$1'));
  }

  private checkRequest(req: ProvisionRequest): void {
    assertDirectoryRequest(req, 'host-path', this.validateParameters(req.parameters));
    if (this.nodeName !== undefined && req.selectedNode !== undefined && req.selectedNode !== this.nodeName) {
      throw new PluginError(
        'NotSupported',
        `this host-path provisioner serves node "${this.nodeName}", not the selected node "${req.selectedNode}"`,
        false,
      );
    }
  }

  /** The canonical root for a request: existing record, then parameter, then hash. */
  private async rootFor(req: ProvisionRequest): Promise<string> {
    const [existing] = await findRecords(this.roots, req.backingName);
    if (existing) return existing.root;
    const chosen = req.parameters[HOST_PATH_PARAMETER_ROOT] ?? this.hashedRoot(req.backingName);
    try {
      return await fs.realpath(chosen);
    } catch (err) {
      throw new PluginError('Backend', `host-path root "${chosen}" is not available: ${(err as Error).message}`, true, {
        cause: err,
      });
    }
  }

  private hashedRoot(backingName: string): string {
    const sorted = [...this.roots].sort();
    const digest = createHash('sha256').update(backingName).digest();
    return sorted[digest.readUInt32BE(0) % sorted.length];
  }

  private sourceFor(path: string): Partial<PersistentVolumeSpec> {
    if (this.nodeName !== undefined) return { local: { path } };
    return { hostPath: { path, type: 'DirectoryOrCreate' } };
  }

  private affinity(): { nodeAffinity?: VolumeNodeAffinity } {
    if (this.nodeName === undefined) return {};
    const term = { matchExpressions: [{ key: LABEL_HOSTNAME, operator: 'In' as const, values: [this.nodeName] }] };
    return { nodeAffinity: { required: { nodeSelectorTerms: [term] } } };
  }
}

/** The directory a host-path PV names: `spec.hostPath.path` or `spec.local.path`. */
export function volumePath(pv: PersistentVolume): string | undefined {
  return pv.spec.hostPath?.path ?? pv.spec.local?.path;
}

