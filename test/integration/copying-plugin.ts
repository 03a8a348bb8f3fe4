/**
 * The restore and clone integration tests' test double: the real host-path plugin (plain
 * directories) with the snapshot capability bolted on — a clone copies the source volume's files,
 * a restore copies a directory `snapshots/<snapshot id>` the test wrote — so data moves end to end
 * before the file plugins' own Snapshotter exists. What to copy is read from the request's
 * contentSource, as a plugin repeating a create would; a provision can be held after the copy.
 */
import { cp, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import type { ProvisionedVolume, ProvisionRequest } from '../../src/plugins/api/core.js';
import type { SnapshotSource, Snapshotter, VolumeSnapshotInfo } from '../../src/plugins/api/capabilities/snapshot.js';
import { PluginError } from '../../src/plugins/api/errors.js';
import { HostPathPlugin } from '../../src/plugins/host-path/index.js';
import { HoldablePlugin } from './provisioning-helpers.js';

export class CopyingHostPathPlugin extends HoldablePlugin implements Snapshotter {
  readonly supportsClone = true;
  readonly calls: { kind: 'provision' | 'restore' | 'clone'; req: ProvisionRequest }[] = [];

  /** Volumes under `root`; restores copy from `snapshotRoot/<snapshot id>`. */
  constructor(
    root: string,
    private readonly snapshotRoot: string,
  ) {
    super(new HostPathPlugin({ roots: [root] }));
  }

  /** Where a snapshot's files go, for the test to fill before restoring. */
  async snapshotDir(snapshotId: string): Promise<string> {
    const dir = join(this.snapshotRoot, snapshotId);
    await mkdir(dir, { recursive: true });
    return dir;
  }

  override provision(req: ProvisionRequest): Promise<ProvisionedVolume> {
    this.calls.push({ kind: req.contentSource === undefined ? 'provision' : req.contentSource.kind === 'volume' ? 'clone' : 'restore', req });
    return super.provision(req);
  }
  provisionFromSnapshot(req: ProvisionRequest, snapshot: SnapshotSource): Promise<ProvisionedVolume> {
    return this.provision({ ...req, contentSource: { kind: 'snapshot', ...snapshot } });
  }
  provisionClone(req: ProvisionRequest, source: PersistentVolume): Promise<ProvisionedVolume> {
    return this.provision({ ...req, contentSource: { kind: 'volume', source } });
  }

  protected override async filled(req: ProvisionRequest, made: ProvisionedVolume): Promise<void> {
    const source = req.contentSource;
    const path = made.source.hostPath?.path;
    if (!source || !path) return;
    const from = source.kind === 'snapshot' ? join(this.snapshotRoot, source.snapshotId) : source.source.spec.hostPath?.path;
    if (!from) throw new PluginError('InvalidParameter', 'the source is not a host-path volume', false);
    await cp(from, path, { recursive: true, force: true });
  }

  ownsSnapshot(): boolean {
    return true;
  }
  createSnapshot(): Promise<VolumeSnapshotInfo> {
    return Promise.reject(new PluginError('NotSupported', 'this test double only restores', false));
  }
  async deleteSnapshot(): Promise<void> {}
  async listSnapshots(): Promise<VolumeSnapshotInfo[]> {
    return [];
  }
}
