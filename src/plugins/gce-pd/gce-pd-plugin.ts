/**
 * `kubernetes.io/gce-pd`: Compute Engine persistent disks over the REST API (plain fetch, auth
 * from google-auth-library). Disk names are unique per zone, so the backing name is the
 * idempotency key: an existing disk of that name is reused when its description carries this
 * cluster's tag, and a create that races an earlier (lost) one ends in 409 and is resolved the
 * same way.
 */
import { randomUUID } from 'node:crypto';
import { claimTags } from '../cloud-common/annotation-tags.js';
import { TAG_CLUSTER_OWNED } from '@pv-controller/kube/annotations.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { NilMetricsProvider } from '../../metrics/nil.js';
import type { MetricsProvider } from '../../metrics/provider.js';
import { type CloudPluginIdentity, CloudVolumePlugin, provisionedDisk, withFsType } from '../cloud-common/cloud-volume-plugin.js';
import { CloudHttpError } from '../cloud-common/http.js';
import type { CloudPluginOptions } from '../cloud-common/options.js';
import type { VolumeAttributes } from '../cloud-common/attributes.js';
import { gibCapacity, roundUpToGiB } from '../cloud-common/size.js';
import { backingVolumeOf, clusterTagKey, isOwnedByCluster, volumeTags } from '../cloud-common/tags.js';
import { diskTopology } from '../cloud-common/topology.js';
import type { DeleteRequest, ProvisionedVolume, ProvisionRequest } from '../api/core.js';
import type { BackingVolume } from '../api/capabilities/backing-volumes.js';
import type { ExpandedVolume, ExpandRequest } from '../api/capabilities/expand.js';
import type { ModifyRequest } from '../api/capabilities/modify.js';
import { PluginError } from '../api/errors.js';
import type { SnapshotRequest, SnapshotSource, VolumeSnapshotInfo } from '../api/capabilities/snapshot.js';
import { selectedNodeZone } from '../cloud-common/options.js';
import { assertSnapshotHandle, CloudSnapshotOps, restoreSizeGiB } from '../cloud-common/snapshots.js';
import { GceSnapshots, parseGceSnapshotHandle } from './gce-snapshots.js';
import {
  classifyGceError,
  ComputeClient,
  DEFAULT_COMPUTE_ENDPOINT,
  type GceAuth,
  type GceDisk,
  type GceLocation,
  type GceOperation,
  type GcePerformance,
} from './compute-client.js';
import { diskOfVolume, type DiskRef, GceDiskTargets } from './disk-targets.js';
import { defaultGceAuth, GceLocationResolver, type GceLocationOptions } from './gce-config.js';
import { descriptionForTags, labelKeyOf, labelsForTags, tagsOfDescription } from './labels.js';
import { diskIdOf, GceSweeper } from './gce-sweep.js';
import type { CloudSweeper } from '../cloud-common/sweep.js';
import { GCE_PD_PLUGIN_NAME, type GceParameters, parseGceParameters, regionOfZone } from './parameters.js';

/** GCE resource names: RFC 1035 labels of at most 63 characters. */
export const GCE_PD_MAX_NAME_LENGTH = 63;
const DISK_NAME = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;

export interface GcePdPluginOptions extends CloudPluginOptions, GceLocationOptions {
  /** Default: google-auth-library's GoogleAuth (GOOGLE_APPLICATION_CREDENTIALS, ADC). */
  authClient?: GceAuth;
  /** Compute API base, default https://compute.googleapis.com/compute/v1 (tests: the emulator). */
  endpoint?: string;
}

const GCE_PD: CloudPluginIdentity<GceParameters, GceDisk> = {
  name: GCE_PD_PLUGIN_NAME,
  component: 'gce-pd',
  noun: 'GCE disk',
  maxBackingNameLength: GCE_PD_MAX_NAME_LENGTH,
  classify: classifyGceError,
  parseParameters: parseGceParameters,
  disks: { describeCall: 'disks.get', stateOf: (disk) => disk.status, ready: ['READY'], failed: 'FAILED', goneIsRetryable: true },
  attributes: { iops: true, throughput: true },
  csiDriver: 'pd.csi.storage.gke.io',
};

export class GcePdPlugin extends CloudVolumePlugin<GceParameters, GceDisk> {
  private readonly compute: ComputeClient;
  private readonly where: GceLocationResolver;
  private readonly targets: GceDiskTargets;
  protected readonly snapshotOps: CloudSnapshotOps;
  /** disks.insert with a sourceDisk copies a disk in its zone. */
  readonly supportsClone = true;

  constructor(options: GcePdPluginOptions = {}) {
    super(GCE_PD, options);
    const auth = options.authClient ?? defaultGceAuth();
    this.compute = new ComputeClient(options.endpoint ?? DEFAULT_COMPUTE_ENDPOINT, auth);
    this.where = new GceLocationResolver(options, auth);
    this.targets = new GceDiskTargets(this.compute, (what, op, signal) => this.call(what, op, signal));
    const snapshots = new GceSnapshots(this.compute, () => this.where.projectId(), this.options.wait);
    this.snapshotOps = new CloudSnapshotOps(snapshots, (what, op, signal) => this.call(what, op, signal), this.options.logger);
  }

  handles(pv: PersistentVolume): boolean {
    return pv.spec.gcePersistentDisk !== undefined || this.csiHandleOf(pv) !== undefined;
  }

  metricsFor(pv: PersistentVolume): MetricsProvider {
    return new NilMetricsProvider(`gce-pd disk "${pv.spec.gcePersistentDisk?.pdName ?? pv.metadata.name}"`);
  }

  provision(req: ProvisionRequest): Promise<ProvisionedVolume> {
    return this.provisionDisk(req, { sizeGb: roundUpToGiB(req.requestBytes) });
  }

  /** Restore: disks.insert with the snapshot as sourceSnapshot, at least as large as the snapshot. */
  async provisionFromSnapshot(req: ProvisionRequest, snapshot: SnapshotSource): Promise<ProvisionedVolume> {
    assertSnapshotHandle(this.ownsSnapshot(snapshot.snapshotId), snapshot.snapshotId, 'GCE snapshot');
    const project = await this.where.projectId();
    if (parseGceSnapshotHandle(snapshot.snapshotId)?.project !== project) {
      throw new PluginError('Unsafe', `GCE snapshot "${snapshot.snapshotId}" is not in project ${project}`, false);
    }
    return this.provisionDisk(req, { sizeGb: restoreSizeGiB(req.requestBytes, snapshot.restoreSize), sourceSnapshot: snapshot.snapshotId });
  }

  /** Clone: disks.insert with the source disk as sourceDisk, in the source's zone (or region), never smaller. */
  async provisionClone(req: ProvisionRequest, source: PersistentVolume): Promise<ProvisionedVolume> {
    const project = await this.where.projectId();
    const ref = this.diskRefOf(source);
    const disk = await this.currentDisk(project, ref, req.signal);
    const nodeZone = await selectedNodeZone(req, this.options);
    if (nodeZone !== undefined && !disk.zones.includes(nodeZone)) {
      throw new PluginError('InvalidParameter', `a clone of GCE disk ${ref.name} is made in its zone(s) ${disk.zones.join(', ')}, not in ${nodeZone} where the selected node is`, false);
    }
    const sizeGb = Math.max(roundUpToGiB(req.requestBytes), disk.sizeGb);
    const sourceDisk = `projects/${project}/${ref.location.scope}/${ref.location.name}/disks/${ref.name}`;
    return this.provisionDisk(req, { sizeGb, sourceDisk }, { ...ref.location, zones: disk.zones });
  }

  private async provisionDisk(req: ProvisionRequest, shape: DiskShape, at?: GceLocation & { zones: string[] }): Promise<ProvisionedVolume> {
    const parsed = this.parametersOf(req);
    const attributes = this.attributesOf(req.attributes);
    if (!DISK_NAME.test(req.backingName)) {
      throw new PluginError('Backend', `"${req.backingName}" is not a valid GCE disk name`, false);
    }
    const project = await this.where.projectId();
    const location = at ?? (await this.chooseLocation(req, parsed));
    if (at !== undefined && (at.scope === 'regions') !== (parsed.replicas > 1)) {
      throw new PluginError('InvalidParameter', `the class asks for ${parsed.replicas} replica(s) but the clone source is a ${at.scope === 'regions' ? 'regional' : 'zonal'} disk`, false);
    }
    const found = await this.call(
      'find or create GCE disk',
      (signal) => this.findOrCreate(req, { ...parsed, performance: performanceOf(attributes), ...shape }, project, location, signal),
      req.signal,
    );
    if ('operation' in found) await this.targets.waitForOperation(project, found.operation, req.signal, this.options.wait);
    const ready = await this.waitUntilReady(
      req.backingName,
      (s) => this.compute.getDisk(project, location, req.backingName, s),
      (failed) => this.targets.discardFailed(project, failed, req.signal, this.options.wait),
      req.signal,
    );
    const gcePersistentDisk = withFsType({ pdName: ready.name }, parsed.fsType);
    const handle = `projects/${project}/${ready.location.scope}/${ready.location.name}/disks/${ready.name}`;
    return provisionedDisk(this.sourceFor(req, { gcePersistentDisk }, handle, parsed.fsType), ready.sizeGb, diskTopology(ready.zones, regionOfZone(ready.zones[0] ?? '')));
  }

  /** The zone of a zonal disk, or the region (and its two zones) of a regional one. */
  private async chooseLocation(req: ProvisionRequest, parsed: GceParameters): Promise<GceLocation & { zones: string[] }> {
    const zones = await this.zonesForDisk(req, parsed, parsed.replicas, async () => {
      const zone = await this.where.defaultZone();
      return zone ? [zone] : [];
    });
    if (parsed.replicas === 1) return { scope: 'zones', name: zones[0], zones };
    const regions = new Set(zones.map(regionOfZone));
    if (regions.size !== 1) {
      throw new PluginError('InvalidParameter', `zones: a regional-pd needs zones of one region, got ${zones.join(', ')}`, false);
    }
    return { scope: 'regions', name: [...regions][0], zones };
  }

  /** One attempt: reuse this cluster's disk of that name, else start inserting it. */
  private async findOrCreate(
    req: ProvisionRequest,
    parsed: GceParameters & { performance: GcePerformance } & DiskShape,
    project: string,
    location: GceLocation & { zones: string[] },
    signal: AbortSignal,
  ): Promise<{ disk: GceDisk } | { operation: GceOperation }> {
    const existing = await this.compute.getDisk(project, location, req.backingName, signal);
    const wanted = parsed.sourceSnapshot ?? parsed.sourceDisk;
    if (existing) return { disk: this.reuse(req, existing, wanted) };
    const tags = volumeTags(req, claimTags(this.options.annotationTags, req.claim.annotations, 'gce'));
    const newDisk = {
      name: req.backingName,
      sizeGb: parsed.sizeGb,
      type: parsed.type,
      description: descriptionForTags(tags),
      labels: labelsForTags(tags),
      replicaZones: location.scope === 'regions' ? location.zones : undefined,
      performance: parsed.performance,
      ...(parsed.sourceSnapshot === undefined ? {} : { sourceSnapshot: parsed.sourceSnapshot }),
      ...(parsed.sourceDisk === undefined ? {} : { sourceDisk: parsed.sourceDisk }),
    };
    try {
      const operation = await this.compute.insertDisk(project, location, newDisk, randomUUID(), signal);
      this.options.logger.info(
        { disk: req.backingName, location: location.name, sizeGb: newDisk.sizeGb, pv: req.pvName, operation: operation.name },
        'creating GCE disk',
      );
      return { operation };
    } catch (err) {
      // 409: an earlier insert (whose answer was lost) or a concurrent one got there first.
      if (!(err instanceof CloudHttpError && err.status === 409)) throw err;
      const raced = await this.compute.getDisk(project, location, req.backingName, signal);
      if (!raced) throw err;
      return { disk: this.reuse(req, raced, wanted) };
    }
  }

  private reuse(req: ProvisionRequest, disk: GceDisk, source: string | undefined): GceDisk {
    if (disk.source !== source) {
      throw new PluginError('Backend', `GCE disk ${disk.name} was made from ${disk.source ?? 'nothing'}, not ${source ?? 'empty'}`, false);
    }
    if (!isOwnedByCluster(tagsOfDescription(disk.description), req.clusterName)) {
      throw new PluginError(
        'Backend',
        `a GCE disk named ${disk.name} exists in ${disk.location.name} but was not created by cluster "${req.clusterName}"`,
        false,
      );
    }
    this.logReused({ disk: disk.name, location: disk.location.name, pv: req.pvName });
    return disk;
  }

  async delete(req: DeleteRequest): Promise<void> {
    const project = await this.where.projectId();
    const disks = await this.targets.forDelete(project, req, req.signal, this.csiHandleOf(req.pv));
    for (const disk of disks) {
      const outcome = await this.targets.deleteDisk(project, disk, req.signal, this.options.wait);
      this.logDeleted({ disk: disk.name, location: disk.location.name }, outcome);
    }
  }

  /** disks.resize to the new size and wait for its operation; a disk already that large is left alone. */
  async expand(req: ExpandRequest): Promise<ExpandedVolume> {
    const project = await this.where.projectId();
    const ref = this.diskRefOf(req.pv);
    const sizeGb = roundUpToGiB(req.sizeBytes);
    const disk = await this.currentDisk(project, ref, req.signal);
    if (disk.sizeGb < sizeGb) {
      const op = await this.call('disks.resize', (s) => this.compute.resizeDisk(project, ref.location, ref.name, sizeGb, s), req.signal);
      await this.targets.waitForOperation(project, op, req.signal, this.options.wait);
    }
    const now = disk.sizeGb < sizeGb ? await this.currentDisk(project, ref, req.signal) : disk;
    return { capacity: gibCapacity(now.sizeGb), nodeExpansionRequired: req.pv.spec.volumeMode !== 'Block' };
  }

  /** disks.update of the provisioned IOPS and throughput the class asks; nothing to do when the disk has them. */
  async modify(req: ModifyRequest): Promise<void> {
    const project = await this.where.projectId();
    const ref = this.diskRefOf(req.pv);
    const wanted = performanceOf(this.attributesOf(req.attributes));
    const disk = await this.currentDisk(project, ref, req.signal);
    const change: GcePerformance = {};
    if (wanted.provisionedIops !== undefined && wanted.provisionedIops !== disk.provisionedIops) change.provisionedIops = wanted.provisionedIops;
    if (wanted.provisionedThroughput !== undefined && wanted.provisionedThroughput !== disk.provisionedThroughput) {
      change.provisionedThroughput = wanted.provisionedThroughput;
    }
    if (Object.keys(change).length === 0) return;
    const op = await this.call('disks.update', (s) => this.compute.updateDisk(project, ref.location, ref.name, change, s), req.signal);
    await this.targets.waitForOperation(project, op, req.signal, this.options.wait);
  }

  protected sweepIdOf(pv: PersistentVolume): string {
    return diskIdOf(this.diskRefOf(pv));
  }

  private diskRefOf(pv: PersistentVolume): DiskRef {
    const ref = diskOfVolume(pv, this.csiHandleOf(pv));
    if (!ref) throw new PluginError('NotSupported', `PV ${pv.metadata.name} names no GCE disk with a zone (labels or node affinity)`, false);
    return ref;
  }

  private async currentDisk(project: string, ref: DiskRef, signal?: AbortSignal): Promise<GceDisk> {
    const disk = await this.call('disks.get', (s) => this.compute.getDisk(project, ref.location, ref.name, s), signal);
    if (!disk) throw new PluginError('Backend', `GCE disk ${ref.name} does not exist in ${ref.location.name}`, false);
    return disk;
  }

  /** `projects/<project>/global/snapshots/<name>`; a pre-provisioned content may name anything. */
  ownsSnapshot(snapshotId: string): boolean {
    return parseGceSnapshotHandle(snapshotId) !== undefined;
  }

  async createSnapshot(req: SnapshotRequest): Promise<VolumeSnapshotInfo> {
    const project = await this.where.projectId();
    const ref = this.diskRefOf(req.pv);
    return this.snapshotOps.create(req, `projects/${project}/${ref.location.scope}/${ref.location.name}/disks/${ref.name}`);
  }

  /** What `orphans --cloud` lists and deletes through (cloud-common/sweep.ts). */
  sweeper(): CloudSweeper {
    const call = <T>(what: string, op: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T> => this.call(what, op, signal);
    return new GceSweeper(this.compute, this.targets, () => this.where.projectId(), this.snapshotOps, call, this.options.wait, this.maxBackingNameLength);
  }

  async listBackingVolumes(clusterName: string): Promise<BackingVolume[]> {
    const project = await this.where.projectId();
    const filter = `labels.${labelKeyOf(clusterTagKey(clusterName))} = "${TAG_CLUSTER_OWNED}"`;
    const disks = await this.call('disks.aggregatedList', (s) => this.compute.aggregatedDisks(project, filter, s));
    return disks
      .filter((disk) => isOwnedByCluster(tagsOfDescription(disk.description), clusterName))
      .map((disk) =>
        backingVolumeOf(`${disk.location.scope}/${disk.location.name}/disks/${disk.name}`, disk.name, tagsOfDescription(disk.description)),
      );
  }
}

/** A new disk's size and what it is filled from (at most one source). */
interface DiskShape {
  sizeGb: number;
  sourceSnapshot?: string;
  sourceDisk?: string;
}

function performanceOf(attributes: VolumeAttributes): GcePerformance {
  const performance: GcePerformance = {};
  if (attributes.iops !== undefined) performance.provisionedIops = attributes.iops;
  if (attributes.throughput !== undefined) performance.provisionedThroughput = attributes.throughput;
  return performance;
}
