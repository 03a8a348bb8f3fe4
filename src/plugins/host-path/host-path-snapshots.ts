/**
 * The snapshot capability of host-path (docs/local-storage.md, "Snapshots"):
 *
 * - a plain directory's snapshot is a copy of its tree, not crash-consistent while the volume is
 *   written to (fs-common/directory-snapshots.ts); a sized volume's is a copy of its image taken
 *   while its filesystem is frozen, crash-consistent (image-copy.ts);
 * - snapshots live in the root of their source, `<root>/.pv-controller-snapshots/<name>`; the
 *   handle is `host-path:snap:v1:<name>`, with `@<node>` for volumes pinned to a node, and a
 *   plugin of one node owns only its own node's handles: a restore of a node-local snapshot
 *   happens on its node, and is refused elsewhere naming both nodes;
 * - a restore or clone makes the new volume in the source's root when the class does not name
 *   one (so an image can be reflinked), from a copy of the snapshot's tree or image; a sized one
 *   is then grown to the claim's size and mounted like any sized volume. A snapshot of a sized
 *   volume restores into a sized class only, a plain one into a plain class only.
 */
import { posix } from 'node:path';
import type { Logger } from 'pino';
import { LABEL_HOSTNAME } from '@pv-controller/kube/annotations.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import type { ProvisionedVolume, ProvisionRequest } from '../api/core.js';
import { PluginError } from '../api/errors.js';
import type { SnapshotRequest, SnapshotSource, VolumeSnapshotInfo } from '../api/capabilities/snapshot.js';
import { canonicalRoots, capacityOf, containedVolumePath, withPluginErrors } from '../fs-common/directory-volume.js';
import { copyDirectory, copyVolumeTree, snapshotData, SnapshotStore, type CopyObserver, type FillResult } from '../fs-common/directory-snapshots.js';
import type { CopyStats } from '../fs-common/file-copy.js';
import { readRecord } from '../fs-common/metadata-record.js';
import { resolveInsideRoot, type ContainedPath } from '../fs-common/safe-path.js';
import { SNAPSHOT_IMAGE, type FoundSnapshot } from '../fs-common/snapshot-area.js';
import { SnapshotHandles } from '../fs-common/snapshot-handle.js';
import { sizingOf, volumePath } from './host-path-helpers.js';
import { copyImageFile, growImageFile, whileConsistent } from './image-copy.js';
import { imageBytesFor, imagePathOf, type ImageVolumes } from './image-volume.js';
import type { VolumeContents } from './volume-contents.js';

/** What the snapshots need of the plugin. */
export interface SnapshotHost {
  readonly name: string;
  readonly roots: readonly string[];
  readonly nodeName: string | undefined;
  readonly images: ImageVolumes;
  readonly freezeTimeoutMs: number;
  handles(pv: PersistentVolume): boolean;
  provisionVolume(req: ProvisionRequest, contents?: VolumeContents): Promise<ProvisionedVolume>;
  oneSizedAtATime<T>(run: () => Promise<T>): Promise<T>;
}

interface SourceVolume {
  contained: ContainedPath;
  backingName: string;
  sized: boolean;
  /** The source's capacity (a sized volume: at least its image's size). */
  sizeBytes: bigint;
  path: string;
}

function pinnedNode(pv: PersistentVolume): string | undefined {
  const terms = pv.spec.nodeAffinity?.required?.nodeSelectorTerms ?? [];
  const expression = terms[0]?.matchExpressions?.find((e) => e.key === LABEL_HOSTNAME && e.operator === 'In');
  return expression?.values?.[0];
}

function kindProblem(what: string, sourceSized: boolean, targetSized: boolean): PluginError | undefined {
  if (sourceSized === targetSized) return undefined;
  const source = sourceSized ? 'a sized volume (sizing: image)' : 'a plain directory (sizing: none)';
  const target = targetSized ? 'sizing: image' : 'sizing: none';
  return new PluginError('NotSupported', `${what} is ${source} and the claim's StorageClass has ${target}: restore or clone it with a class of the same sizing`, false);
}

export class HostPathSnapshots {
  readonly store: SnapshotStore;

  constructor(
    private readonly host: SnapshotHost,
    logger?: Logger,
    onCopy?: CopyObserver,
  ) {
    this.store = new SnapshotStore({
      plugin: host.name,
      handles: new SnapshotHandles('host-path', host.nodeName),
      roots: () => canonicalRoots([...host.roots]),
      ...(host.nodeName !== undefined ? { node: host.nodeName } : {}),
      ...(logger ? { logger } : {}),
      ...(onCopy ? { onCopy } : {}),
    });
  }

  create(req: SnapshotRequest): Promise<VolumeSnapshotInfo> {
    return withPluginErrors(`snapshot "${req.snapshotName}" of PV "${req.pv.metadata.name}"`, async () => {
      req.signal?.throwIfAborted();
      const done = await this.store.existing(req);
      if (done) return done;
      const source = await this.sourceOf(req.pv, 'snapshotting');
      const info = { root: source.contained.root, kind: source.sized ? ('image' as const) : ('directory' as const), sourceVolumeId: source.path, sizeBytes: source.sizeBytes };
      if (!source.sized) return this.store.cut(req, info, async (into) => ({ stats: await copyVolumeTree(source.contained, into, req.signal) }));
      return this.host.oneSizedAtATime(() => this.store.cut(req, info, (into) => this.copyImage(source, into.entry(SNAPSHOT_IMAGE), req.signal)));
    });
  }

  restore(req: ProvisionRequest, snapshot: SnapshotSource): Promise<ProvisionedVolume> {
    return withPluginErrors(`restoring "${req.backingName}" from a snapshot`, async () => {
      req.signal?.throwIfAborted();
      const found = await this.store.locate(snapshot.snapshotId);
      const problem = kindProblem(`snapshot "${found.record.snapshotName}"`, found.record.kind === 'image', sizingOf(req.parameters) === 'image');
      if (problem) throw problem;
      return this.host.provisionVolume(req, this.contentsOfSnapshot(found, req));
    });
  }

  clone(req: ProvisionRequest, sourcePv: PersistentVolume): Promise<ProvisionedVolume> {
    return withPluginErrors(`cloning PV "${sourcePv.metadata.name}" into "${req.backingName}"`, async () => {
      req.signal?.throwIfAborted();
      const source = await this.sourceOf(sourcePv, 'cloning');
      const problem = kindProblem(`PV "${sourcePv.metadata.name}"`, source.sized, sizingOf(req.parameters) === 'image');
      if (problem) throw problem;
      const started = performance.now();
      const report = (stats: CopyStats, frozenSeconds?: number): void =>
        this.store.report({ operation: 'clone', name: req.backingName, kind: source.sized ? 'image' : 'directory', stats, seconds: (performance.now() - started) / 1000, ...(frozenSeconds !== undefined ? { frozenSeconds } : {}) });
      return this.host.provisionVolume(req, {
        root: source.contained.root,
        minBytes: imageBytesFor(source.sizeBytes),
        fillDirectory: (into) => copyDirectory(source.contained, into, req.signal),
        fillImage: async (temporary, bytes) => {
          const { stats, frozenSeconds } = await this.copyImage(source, temporary, req.signal);
          report(stats, frozenSeconds);
          await growImageFile(this.host.images, temporary, bytes, req.signal);
        },
        filled: (stats) => report(stats),
      });
    });
  }

  private contentsOfSnapshot(found: FoundSnapshot, req: ProvisionRequest): VolumeContents {
    const started = performance.now();
    const report = (stats: CopyStats): void =>
      this.store.report({ operation: 'restore', name: req.backingName, kind: found.record.kind, stats, seconds: (performance.now() - started) / 1000 });
    return {
      root: found.root,
      minBytes: imageBytesFor(BigInt(found.record.sizeBytes)),
      fillDirectory: (into) => copyDirectory(snapshotData(found), into, req.signal),
      fillImage: async (temporary, bytes) => {
        const image = await resolveInsideRoot([found.root], posix.join(found.path, SNAPSHOT_IMAGE));
        report(await copyImageFile(image.path, temporary, req.signal));
        await growImageFile(this.host.images, temporary, bytes, req.signal);
      },
      filled: report,
    };
  }

  /** A sized source's image copied to `destination` while its filesystem cannot change. */
  private async copyImage(source: SourceVolume, destination: string | Buffer, signal?: AbortSignal): Promise<FillResult> {
    const where = { root: source.contained.root, backingName: source.backingName, mountPoint: source.contained.path };
    const image = imagePathOf(where.root, where.backingName);
    const { result, frozenSeconds } = await whileConsistent(this.host.images, where, this.host.freezeTimeoutMs, (bound) => copyImageFile(image, destination, bound), signal);
    return { stats: result, frozenSeconds };
  }

  /** The volume a PV names, checked to be this plugin's and inside its roots. */
  private async sourceOf(pv: PersistentVolume, action: string): Promise<SourceVolume> {
    const name = pv.metadata.name ?? '';
    if (!this.host.handles(pv)) {
      const node = pinnedNode(pv);
      const where = node !== undefined && this.host.nodeName !== undefined && node !== this.host.nodeName
        ? `it lives on node "${node}", and this plugin serves node "${this.host.nodeName}": ${action} happens on its node`
        : `it is not a volume of ${this.host.name}`;
      throw new PluginError('NotSupported', `${action} PV "${name}": ${where}`, false);
    }
    const path = volumePath(pv);
    if (path === undefined) throw new PluginError('InvalidParameter', `PV "${name}" has no hostPath or local path`, false);
    const backingName = posix.basename(path);
    const contained = await containedVolumePath([...this.host.roots], path, backingName, name);
    const sized = (await readRecord(contained.root, backingName))?.sizing === 'image';
    const imageBytes = sized ? await this.host.images.currentBytes(contained.root, backingName) : 0n;
    const capacity = capacityOf(pv) ?? 0n;
    return { contained, backingName, sized, sizeBytes: imageBytes > capacity ? imageBytes : capacity, path };
  }
}
