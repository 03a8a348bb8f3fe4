/**
 * What the cloud volume plugins share: the steps of the one flow each of them runs with its own
 * client, its own parameters and its own rule for finding a disk again.
 *
 * - provision: the class's parameters are read and refused before anything is created → the
 *   zones of the new disk (the selected node's, allowedTopologies, the class's, else the zones
 *   with nodes or the cloud's own) → one retried attempt that finds this cluster's disk of the
 *   backing name or creates it → the disk polled until it is ready (one that failed is deleted)
 *   → its PV source, capacity and zone topology;
 * - delete: the disks the request means (the one the PV names; without a PV, those of the
 *   backing name owned by the cluster the name was made for), each deleted; gone is success;
 * - listBackingVolumes: the disks that carry this cluster's tag, for the orphan report.
 *
 * Every backend call goes through `call`: retried by retry.ts under the cloud's own error
 * classification, so every failure reaches the caller as a PluginError saying whether trying
 * again may help.
 */
import type { PersistentVolume, PersistentVolumeSpec } from '@pv-controller/kube/types.js';
import type { MetricsProvider } from '../../metrics/provider.js';
import type { DeleteRequest, ProvisionedVolume, ProvisionRequest, VolumePlugin } from '../api/core.js';
import { type ParameterProblem, PluginError } from '../api/errors.js';
import type { BackingVolume } from '../api/capabilities/backing-volumes.js';
import type { DeleteSnapshotRequest, SnapshotRequest, SnapshotSource, Snapshotter, VolumeSnapshotInfo } from '../api/capabilities/snapshot.js';
import { type AttributeSupport, parseVolumeAttributes, type VolumeAttributes } from './attributes.js';
import type { CheckedParameters, ZoneParameters } from './parameters.js';
import { assertNoProblems, type CloudPluginOptions, type ResolvedCloudOptions, resolveCloudOptions, selectedNodeZone } from './options.js';
import { type ErrorVerdict, withRetry } from './retry.js';
import { gibCapacity } from './size.js';
import type { CloudSnapshotOps } from './snapshots.js';
import type { DiskTopology } from './topology.js';
import { waitFor } from './wait.js';
import { selectZonesForVolume } from './zones.js';
import { provesVolumeFor } from './proof.js';
import type { CloudSweeper } from './sweep.js';

/** What a cloud plugin declares about its cloud: names, limits, failures worth a retry, parameters, disk states. */
export interface CloudPluginIdentity<Parameters, Disk> {
  /** The provisioner name (`kubernetes.io/aws-ebs`). */
  name: string;
  /** The logger's component (`aws-ebs`). */
  component: string;
  /** What the cloud calls one disk, in messages and logs (`EBS volume`). */
  noun: string;
  maxBackingNameLength: number;
  /** Which failures of this cloud's calls may succeed when tried again. */
  classify: (err: unknown) => ErrorVerdict;
  /** The class's parameters as this cloud reads them, and every problem with them. */
  parseParameters: (parameters: Record<string, string>) => CheckedParameters<Parameters>;
  disks: DiskStates<Disk>;
  /** The VolumeAttributesClass parameters this cloud can apply, at birth and to a live disk (default: none). */
  attributes?: AttributeSupport;
  /** The CSI driver the in-tree plugin migrated to. */
  csiDriver?: string;
}

/** How a cloud's disk shows its progress while it is created. */
export interface DiskStates<Disk> {
  /** The call that reads one disk, for messages and logs (`DescribeVolumes`). */
  describeCall: string;
  stateOf(disk: Disk): string;
  /** The states that count as ready; messages name the first (`available`). */
  ready: readonly string[];
  /** The state of a disk the cloud failed to create. */
  failed: string;
  /** Whether a disk that vanished while it was polled may be provisioned by trying again. */
  goneIsRetryable: boolean;
}

export abstract class CloudVolumePlugin<Parameters, Disk> implements VolumePlugin, Snapshotter {
  readonly name: string;
  readonly maxBackingNameLength: number;
  readonly csiDriver?: string;
  protected readonly options: ResolvedCloudOptions;
  /** What the cloud calls one disk (`EBS volume`). */
  protected readonly noun: string;
  private readonly classify: (err: unknown) => ErrorVerdict;
  private readonly parseParameters: (parameters: Record<string, string>) => CheckedParameters<Parameters>;
  private readonly disks: DiskStates<Disk>;
  private readonly attributeSupport: AttributeSupport;

  protected constructor(identity: CloudPluginIdentity<Parameters, Disk>, options: CloudPluginOptions) {
    this.name = identity.name;
    this.maxBackingNameLength = identity.maxBackingNameLength;
    this.noun = identity.noun;
    this.classify = identity.classify;
    this.parseParameters = identity.parseParameters;
    this.disks = identity.disks;
    this.attributeSupport = identity.attributes ?? {};
    if (identity.csiDriver !== undefined) this.csiDriver = identity.csiDriver;
    this.options = resolveCloudOptions(options, identity.component);
  }

  abstract handles(pv: PersistentVolume): boolean;
  abstract metricsFor(pv: PersistentVolume): MetricsProvider;
  abstract provision(req: ProvisionRequest): Promise<ProvisionedVolume>;
  abstract delete(req: DeleteRequest): Promise<void>;
  abstract listBackingVolumes(clusterName: string): Promise<BackingVolume[]>;

  /** Every cloud snapshots (snapshots.ts, docs/cloud-snapshots.md): each its own handles, source, restore and clone. */
  abstract readonly supportsClone: boolean;
  abstract ownsSnapshot(snapshotId: string): boolean;
  abstract createSnapshot(req: SnapshotRequest): Promise<VolumeSnapshotInfo>;
  abstract provisionFromSnapshot(req: ProvisionRequest, snapshot: SnapshotSource): Promise<ProvisionedVolume>;
  abstract provisionClone(req: ProvisionRequest, source: PersistentVolume): Promise<ProvisionedVolume>;
  /** What `orphans --cloud` lists and deletes through (cloud-common/sweep.ts). */
  abstract sweeper(): CloudSweeper;
  /** The id, in the sweeper's form, of the volume a PV of this plugin names; throws when it names none. */
  protected abstract sweepIdOf(pv: PersistentVolume): string;

  /**
   * The provenance capability (a Released volume's time to live deletes only what this proves):
   * the disk the PV names, read from the cloud now, carries our tags for this PV's name and
   * cluster `clusterName` (cloud-common/proof.ts).
   */
  async provesProvisioned(pv: PersistentVolume, clusterName: string): Promise<boolean> {
    if (!this.handles(pv)) return false;
    let id: string;
    try {
      id = this.sweepIdOf(pv);
    } catch {
      return false;
    }
    return provesVolumeFor(this.sweeper(), id, pv, clusterName);
  }
  /** The cloud's snapshot calls, behind the shared find-or-cut flow and delete guard. */
  protected abstract readonly snapshotOps: CloudSnapshotOps;

  /** Deletes a snapshot the handle names, only as snapshots.ts allows (this cluster's tag, or a pre-provisioned handle). */
  deleteSnapshot(req: DeleteSnapshotRequest): Promise<void> {
    return this.snapshotOps.delete(req);
  }

  /** The snapshots carrying this cluster's tag. */
  listSnapshots(clusterName: string): Promise<VolumeSnapshotInfo[]> {
    return this.snapshotOps.list(clusterName);
  }

  validateParameters(parameters: Record<string, string>): ParameterProblem[] {
    return this.parseParameters(parameters).problems;
  }

  validateAttributes(attributes: Record<string, string>): ParameterProblem[] {
    return parseVolumeAttributes(attributes, this.attributeSupport, this.name).problems;
  }

  /** VolumeAttributesClass parameters as this cloud reads them; PluginError 'InvalidParameter' listing every problem. */
  protected attributesOf(attributes: Record<string, string> | undefined): VolumeAttributes {
    const { parsed, problems } = parseVolumeAttributes(attributes ?? {}, this.attributeSupport, this.name);
    assertNoProblems(problems, 'VolumeAttributesClass');
    return parsed;
  }

  /**
   * The PV source of a new disk: the in-tree one, or, for a claim with a VolumeAttributesClass,
   * the `csi` source of the driver the plugin migrated to (the only kind of PV kube-apiserver lets
   * name a class), with the same handle csi-translation-lib would give it.
   */
  protected sourceFor(req: ProvisionRequest, inTree: Partial<PersistentVolumeSpec>, handle: string, fsType?: string): Partial<PersistentVolumeSpec> {
    if (req.attributes === undefined || this.csiDriver === undefined) return inTree;
    return { csi: withFsType({ driver: this.csiDriver, volumeHandle: handle }, fsType) };
  }

  /** The volume handle of a PV's `csi` source of this plugin's driver. */
  protected csiHandleOf(pv: PersistentVolume | undefined): string | undefined {
    const csi = pv?.spec.csi;
    return csi && this.csiDriver !== undefined && csi.driver === this.csiDriver && typeof csi.volumeHandle === 'string' ? csi.volumeHandle : undefined;
  }

  /** The request's parameters; PluginError 'InvalidParameter' listing every problem. */
  protected parametersOf(req: ProvisionRequest): Parameters {
    const { parsed, problems } = this.parseParameters(req.parameters);
    assertNoProblems(problems);
    return parsed;
  }

  /** One backend call, retried under the cloud's classification of its failures. */
  protected call<T>(what: string, op: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const { retry: policy, logger, random } = this.options;
    return withRetry(op, { what, policy, classify: this.classify, signal, logger, random });
  }

  /**
   * The zones of a new disk of `replicas` zones (zones.ts); when nothing constrains them, among
   * the zones with nodes or, when none is known, `cloudZones`.
   */
  protected async zonesForDisk(
    req: ProvisionRequest,
    parameters: ZoneParameters,
    replicas: number,
    cloudZones: () => Promise<string[]>,
  ): Promise<string[]> {
    return selectZonesForVolume({
      claimName: req.claim.name,
      zoneParameter: parameters.zone,
      zonesParameter: parameters.zones,
      nodeZone: await selectedNodeZone(req, this.options),
      allowedTopologies: req.allowedTopologies,
      fallbackZones: async () => {
        const withNodes = await this.zonesWithNodes(req.signal);
        return withNodes.length > 0 ? withNodes : cloudZones();
      },
      replicas,
    });
  }

  /** Zones where the cluster has nodes; [] when the controller cannot say. */
  protected async zonesWithNodes(signal?: AbortSignal): Promise<string[]> {
    return (await this.options.topology?.zonesWithNodes?.(signal)) ?? [];
  }

  /**
   * Polls the new disk `id` until it is ready. One the cloud failed to create is handed to
   * `discardFailed`, which deletes it and throws; one that vanished is refused.
   */
  protected waitUntilReady(
    id: string,
    describe: (signal: AbortSignal) => Promise<Disk | undefined>,
    discardFailed: (disk: Disk) => Promise<never>,
    signal?: AbortSignal,
  ): Promise<Disk> {
    const { describeCall, stateOf, ready, failed, goneIsRetryable } = this.disks;
    const name = `${this.noun} ${id}`;
    return waitFor(
      async () => {
        const disk = await this.call(describeCall, describe, signal);
        if (disk === undefined) throw new PluginError('Backend', `${name} disappeared before it became ${ready[0]}`, goneIsRetryable);
        if (stateOf(disk) === failed) await discardFailed(disk);
        return ready.includes(stateOf(disk)) ? disk : undefined;
      },
      { ...this.options.wait, what: `${name} to become ${ready[0]}`, signal },
    );
  }

  protected logCreated(req: ProvisionRequest, disk: { volumeId: string; zone?: string; sizeGiB: number }): void {
    this.options.logger.info({ ...disk, backingName: req.backingName, pv: req.pvName }, `created ${this.noun}`);
  }

  protected logReused(fields: Record<string, unknown>): void {
    this.options.logger.info(fields, `reusing the ${this.noun} created earlier for this PV`);
  }

  protected logDeleted(fields: Record<string, unknown>, outcome: 'deleted' | 'absent'): void {
    this.options.logger.info({ ...fields, outcome }, outcome === 'deleted' ? `deleted ${this.noun}` : `${this.noun} already gone`);
  }
}

/** A ready disk as the provisioner takes it: its PV source, capacity and, when known, zone topology. */
export function provisionedDisk(source: Partial<PersistentVolumeSpec>, sizeGiB: number, topology?: DiskTopology): ProvisionedVolume {
  const volume: ProvisionedVolume = { source, capacity: gibCapacity(sizeGiB) };
  if (topology) {
    volume.labels = topology.labels;
    volume.nodeAffinity = topology.nodeAffinity;
  }
  return volume;
}

/** A PV volume source's fields, with the class's `fsType` when it gave one. */
export function withFsType<T extends object>(fields: T, fsType: string | undefined): T & { fsType?: string } {
  return fsType === undefined ? fields : { ...fields, fsType };
}
