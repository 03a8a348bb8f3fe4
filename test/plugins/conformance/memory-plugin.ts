/**
 * A plugin whose volumes are entries in a map: the conformance suite's own subject, correct by
 * default and broken on request, so the suite is shown to pass a plugin that keeps the contracts
 * and to fail one that claims a capability but breaks it.
 */
import { formatBytes } from '@pv-controller/kube/quantity.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { NilMetricsProvider } from '../../../src/metrics/nil.js';
import type { MetricsProvider } from '../../../src/metrics/provider.js';
import type { BackingVolume, BackingVolumeLister } from '../../../src/plugins/api/capabilities/backing-volumes.js';
import type { ExpandedVolume, Expander, ExpandRequest } from '../../../src/plugins/api/capabilities/expand.js';
import type { DeleteRequest, ProvisionedVolume, ProvisionRequest, VolumePlugin } from '../../../src/plugins/api/core.js';
import type { DeleteSnapshotRequest, Snapshotter, SnapshotRequest, SnapshotSource, VolumeSnapshotInfo } from '../../../src/plugins/api/capabilities/snapshot.js';
import { type ParameterProblem, PluginError } from '../../../src/plugins/api/errors.js';
import type { ConformanceSubject } from './subject.js';

const DRIVER = 'memory.conformance.example.com';

/** How a MemoryPlugin breaks a capability's contract. */
export interface MemoryPluginFlaws {
  /** expand answers without growing the volume. */
  expandDoesNotGrow?: boolean;
  /** listBackingVolumes lists every cluster's volumes as the one asked. */
  listsEveryCluster?: boolean;
  /** createSnapshot cuts a new snapshot on every call, whatever its name. */
  snapshotsTwice?: boolean;
  /** deleteSnapshot takes any handle, and a garbage one deletes every snapshot. */
  deletesAnyHandle?: boolean;
  /** a restore gives an empty volume. */
  restoresEmpty?: boolean;
}

interface MemoryVolume {
  bytes: bigint;
  clusterName: string;
  pvName: string;
  files: Map<string, string>;
}

interface MemorySnapshot {
  clusterName: string;
  sourceBackingName: string;
  bytes: bigint;
  files: Map<string, string>;
  createdAt: Date;
}

const SNAPSHOT_HANDLE = /^memory-snap:([a-z0-9][a-z0-9-]{0,200})$/;

export class MemoryPlugin implements VolumePlugin, Expander, BackingVolumeLister, Snapshotter {
  readonly name = 'conformance.example.com/memory';
  readonly maxBackingNameLength = 63;
  readonly supportsClone = true;
  readonly volumes = new Map<string, MemoryVolume>();
  readonly snapshots = new Map<string, MemorySnapshot>();

  constructor(private readonly flaws: MemoryPluginFlaws = {}) {}

  validateParameters(parameters: Record<string, string>): ParameterProblem[] {
    return Object.keys(parameters).map((parameter) => ({ parameter, message: `unknown parameter "${parameter}"` }));
  }

  handles(pv: PersistentVolume): boolean {
    return pv.spec.csi?.driver === DRIVER;
  }

  async provision(req: ProvisionRequest, files = new Map<string, string>()): Promise<ProvisionedVolume> {
    const volume = this.volumes.get(req.backingName) ?? { bytes: req.requestBytes, clusterName: req.clusterName, pvName: req.pvName, files };
    this.volumes.set(req.backingName, volume);
    return { source: { csi: { driver: DRIVER, volumeHandle: req.backingName } }, capacity: formatBytes(volume.bytes) };
  }

  async delete(req: DeleteRequest): Promise<void> {
    this.volumes.delete(req.backingName);
  }

  metricsFor(pv: PersistentVolume): MetricsProvider {
    return new NilMetricsProvider(`in-memory volume "${pv.metadata.name ?? ''}"`);
  }

  async expand(req: ExpandRequest): Promise<ExpandedVolume> {
    const volume = this.volumes.get(String(req.pv.spec.csi?.volumeHandle));
    if (!volume) throw new PluginError('Backend', `no volume for PV "${req.pv.metadata.name}"`, true);
    if (!this.flaws.expandDoesNotGrow && req.sizeBytes > volume.bytes) volume.bytes = req.sizeBytes;
    return { capacity: formatBytes(volume.bytes), nodeExpansionRequired: false };
  }

  ownsSnapshot(snapshotId: string): boolean {
    return typeof snapshotId === 'string' && SNAPSHOT_HANDLE.test(snapshotId);
  }

  private snapshotName(snapshotId: string): string {
    const name = SNAPSHOT_HANDLE.exec(snapshotId)?.[1];
    if (name === undefined) throw new PluginError('InvalidParameter', `not a memory snapshot handle: ${JSON.stringify(snapshotId)}`, false);
    return name;
  }

  private info(name: string, snapshot: MemorySnapshot): VolumeSnapshotInfo {
    return { snapshotName: name, snapshotId: `memory-snap:${name}`, sourceVolumeId: snapshot.sourceBackingName, sizeBytes: snapshot.bytes, createdAt: snapshot.createdAt, readyToUse: true };
  }

  async createSnapshot(req: SnapshotRequest): Promise<VolumeSnapshotInfo> {
    const sourceName = String(req.pv.spec.csi?.volumeHandle);
    const source = this.volumes.get(sourceName);
    if (!source) throw new PluginError('Backend', `no volume for PV "${req.pv.metadata.name}"`, false);
    const name = this.flaws.snapshotsTwice ? `${req.snapshotName}-${this.snapshots.size}` : req.snapshotName;
    const snapshot = this.snapshots.get(name) ?? { clusterName: req.clusterName, sourceBackingName: sourceName, bytes: source.bytes, files: new Map(source.files), createdAt: new Date() };
    this.snapshots.set(name, snapshot);
    return this.info(name, snapshot);
  }

  async deleteSnapshot(req: DeleteSnapshotRequest): Promise<void> {
    if (this.flaws.deletesAnyHandle && !this.ownsSnapshot(req.snapshotId)) {
      this.snapshots.clear();
      return;
    }
    this.snapshots.delete(this.snapshotName(req.snapshotId));
  }

  async listSnapshots(clusterName: string): Promise<VolumeSnapshotInfo[]> {
    return [...this.snapshots].filter(([, s]) => s.clusterName === clusterName).map(([name, s]) => this.info(name, s));
  }

  async provisionFromSnapshot(req: ProvisionRequest, source: SnapshotSource): Promise<ProvisionedVolume> {
    const snapshot = this.snapshots.get(this.snapshotName(source.snapshotId));
    if (!snapshot) throw new PluginError('Backend', `no snapshot ${source.snapshotId}`, false);
    return this.provision(req, this.flaws.restoresEmpty ? new Map() : new Map(snapshot.files));
  }

  async provisionClone(req: ProvisionRequest, source: PersistentVolume): Promise<ProvisionedVolume> {
    const volume = this.volumes.get(String(source.spec.csi?.volumeHandle));
    if (!volume) throw new PluginError('Backend', `no volume for PV "${source.metadata.name}"`, false);
    return this.provision(req, new Map(volume.files));
  }

  async listBackingVolumes(clusterName: string): Promise<BackingVolume[]> {
    const listed = [...this.volumes].filter(([, v]) => this.flaws.listsEveryCluster === true || v.clusterName === clusterName);
    return listed.map(([backingName, v]) => ({ backingName, id: backingName, pvName: v.pvName }));
  }
}

/** A conformance subject of a fresh plugin (a MemoryPlugin unless `build` makes another over the same flaws). */
export function memorySubject(
  flaws: MemoryPluginFlaws = {},
  build: (flaws: MemoryPluginFlaws) => MemoryPlugin = (f) => new MemoryPlugin(f),
): () => Promise<ConformanceSubject> {
  return async () => {
    const plugin = build(flaws);
    const volumeOf = (pv: PersistentVolume): MemoryVolume => {
      const volume = plugin.volumes.get(String(pv.spec.csi?.volumeHandle));
      if (!volume) throw new Error(`no in-memory volume for PV "${pv.metadata.name}"`);
      return volume;
    };
    return {
      plugin,
      cleanup: async () => undefined,
      backingExists: async (name) => plugin.volumes.has(name),
      writeFile: async (pv, name, content) => void volumeOf(pv).files.set(name, content),
      readFile: async (pv, name) => volumeOf(pv).files.get(name),
    };
  };
}
