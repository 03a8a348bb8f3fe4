/**
 * `kubernetes.io/cinder`: OpenStack Cinder v3 volumes through a small fetch client (Keystone v3
 * auth from OS_* / clouds.yaml). Cinder names are not unique and creates carry no idempotency
 * token, so every create attempt first looks the volume up by its name and this cluster's
 * metadata: a retry after a lost answer finds the volume instead of making a second one.
 */
import { TAG_AWS_NAME, TAG_CLUSTER_OWNED } from '@pv-controller/kube/annotations.js';
import { claimTags } from '../cloud-common/annotation-tags.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { NilMetricsProvider } from '../../metrics/nil.js';
import type { MetricsProvider } from '../../metrics/provider.js';
import { type CloudPluginIdentity, CloudVolumePlugin, provisionedDisk, withFsType } from '../cloud-common/cloud-volume-plugin.js';
import { type CloudPluginOptions, selectedNodeZone } from '../cloud-common/options.js';
import { GIB, gibCapacity, roundUpToGiB } from '../cloud-common/size.js';
import { backingVolumeOf, clusterTagKey, isOwnedByCluster, isOwnedForBackingName, volumeTags } from '../cloud-common/tags.js';
import { diskTopology } from '../cloud-common/topology.js';
import { waitFor } from '../cloud-common/wait.js';
import { selectZonesForVolume } from '../cloud-common/zones.js';
import type { DeleteRequest, ProvisionedVolume, ProvisionRequest } from '../api/core.js';
import type { BackingVolume } from '../api/capabilities/backing-volumes.js';
import type { ExpandedVolume, ExpandRequest } from '../api/capabilities/expand.js';
import type { ModifyRequest } from '../api/capabilities/modify.js';
import { PluginError } from '../api/errors.js';
import type { SnapshotRequest, SnapshotSource, VolumeSnapshotInfo } from '../api/capabilities/snapshot.js';
import { assertSnapshotHandle, CloudSnapshotOps, restoreSizeGiB } from '../cloud-common/snapshots.js';
import { CinderSnapshots, isCinderSnapshotId } from './cinder-snapshots.js';
import { CinderClient, type CinderVolume, classifyCinderError } from './cinder-client.js';
import { CinderSweeper } from './cinder-sweep.js';
import type { CloudSweeper } from '../cloud-common/sweep.js';
import { KeystoneClient } from './keystone.js';
import { loadOpenStackConfig, type OpenStackAuthConfig } from './os-config.js';
import { CINDER_PLUGIN_NAME, type CinderParameters, parseCinderParameters } from './parameters.js';

/** Cinder volume names may have 255 characters. */
export const CINDER_MAX_NAME_LENGTH = 255;
const UNUSABLE_STATUSES = ['deleting', 'error', 'error_deleting'];

export interface CinderPluginOptions extends CloudPluginOptions {
  /** Credentials; default: clouds.yaml (OS_CLOUD) or the OS_* variables, read at first use. */
  auth?: OpenStackAuthConfig;
  /** Environment to read OS_* from (default process.env). */
  env?: Record<string, string | undefined>;
  cloudsYamlPath?: string;
}

const CINDER: CloudPluginIdentity<CinderParameters, CinderVolume> = {
  name: CINDER_PLUGIN_NAME,
  component: 'cinder',
  noun: 'Cinder volume',
  maxBackingNameLength: CINDER_MAX_NAME_LENGTH,
  classify: classifyCinderError,
  parseParameters: parseCinderParameters,
  disks: { describeCall: 'GET volume', stateOf: (v) => v.status, ready: ['available', 'in-use'], failed: 'error', goneIsRetryable: true },
  attributes: { types: 'any' },
  csiDriver: 'cinder.csi.openstack.org',
};

/** What a volume shows while Cinder changes it, and when that went wrong. */
const CHANGING_STATUSES = ['extending', 'retyping'];
const CHANGE_FAILED_STATUSES = ['error_extending', 'error'];

/** A new volume's size and what it is filled from (at most one source). */
interface VolumeShape {
  sizeGiB: number;
  snapshotId?: string;
  sourceVolumeId?: string;
}

export class CinderPlugin extends CloudVolumePlugin<CinderParameters, CinderVolume> {
  private readonly cinder: CinderClient;
  private readonly config: () => Promise<OpenStackAuthConfig>;
  private readonly snapshots: CinderSnapshots;
  protected readonly snapshotOps: CloudSnapshotOps;
  /** A volume created with source_volid copies another. */
  readonly supportsClone = true;

  constructor(options: CinderPluginOptions = {}) {
    super(CINDER, options);
    let loaded: Promise<OpenStackAuthConfig> | undefined;
    this.config = () => {
      loaded ??= options.auth ? Promise.resolve(options.auth) : loadOpenStackConfig(options.env, options.cloudsYamlPath);
      return loaded.catch((err: unknown) => {
        loaded = undefined;
        throw err;
      });
    };
    this.cinder = new CinderClient(new KeystoneClient(this.config));
    this.snapshots = new CinderSnapshots(this.cinder, this.options.wait);
    this.snapshotOps = new CloudSnapshotOps(this.snapshots, (what, op, signal) => this.call(what, op, signal), this.options.logger);
  }

  handles(pv: PersistentVolume): boolean {
    return pv.spec.cinder !== undefined || this.csiHandleOf(pv) !== undefined;
  }

  metricsFor(pv: PersistentVolume): MetricsProvider {
    return new NilMetricsProvider(`cinder volume "${pv.spec.cinder?.volumeID ?? this.csiHandleOf(pv) ?? pv.metadata.name}"`);
  }

  provision(req: ProvisionRequest): Promise<ProvisionedVolume> {
    return this.provisionVolume(req, { sizeGiB: roundUpToGiB(req.requestBytes) });
  }

  /** Restore: a volume created with the snapshot's id, in its volume's zone, never smaller than the snapshot. */
  async provisionFromSnapshot(req: ProvisionRequest, snapshot: SnapshotSource): Promise<ProvisionedVolume> {
    assertSnapshotHandle(this.ownsSnapshot(snapshot.snapshotId), snapshot.snapshotId, 'Cinder snapshot');
    const found = await this.call('GET snapshot', (s) => this.snapshots.describe(snapshot.snapshotId, s), req.signal);
    if (found === undefined) throw new PluginError('Backend', `Cinder snapshot ${snapshot.snapshotId} does not exist`, false);
    const source = await this.call('GET volume', (s) => this.cinder.get(found.sourceVolumeId, s), req.signal);
    const sizeGiB = restoreSizeGiB(req.requestBytes, snapshot.restoreSize ?? BigInt(found.sizeGiB) * GIB);
    return this.provisionVolume(req, { sizeGiB, snapshotId: snapshot.snapshotId }, source?.availabilityZone);
  }

  /** Clone: a volume created with the source as source_volid, in its zone, never smaller. */
  async provisionClone(req: ProvisionRequest, sourcePv: PersistentVolume): Promise<ProvisionedVolume> {
    const id = this.volumeIdOf(sourcePv);
    const source = await this.call('GET volume', (s) => this.cinder.get(id, s), req.signal);
    if (source === undefined) throw new PluginError('Backend', `Cinder volume ${id} to clone does not exist`, false);
    const sizeGiB = Math.max(roundUpToGiB(req.requestBytes), source.sizeGiB);
    return this.provisionVolume(req, { sizeGiB, sourceVolumeId: id }, source.availabilityZone);
  }

  /** Without a source zone: the zone the class, the node or the cluster's nodes ask; with one, that zone (a selected node elsewhere is refused). */
  private async provisionVolume(req: ProvisionRequest, shape: VolumeShape, sourceZone?: string): Promise<ProvisionedVolume> {
    const parsed = { ...this.parametersOf(req), ...shape };
    const volumeType = this.attributesOf(req.attributes).type;
    if (volumeType !== undefined) parsed.volumeType = volumeType;
    const zone = sourceZone === undefined ? await this.chooseZone(req, parsed) : await this.inSourceZone(req, sourceZone);
    const found = await this.call('find or create Cinder volume', (s) => this.findOrCreate(req, parsed, zone, s), req.signal);
    const ready = await this.waitUntilReady(
      found.id,
      (s) => this.cinder.get(found.id, s),
      (failed) => this.discardFailed(failed, req.signal),
      req.signal,
    );
    const { regionName } = await this.config();
    const cinder = withFsType({ volumeID: ready.id }, parsed.fsType);
    const topology = ready.availabilityZone ? diskTopology([ready.availabilityZone], regionName) : undefined;
    return provisionedDisk(this.sourceFor(req, { cinder }, ready.id, parsed.fsType), ready.sizeGiB, topology);
  }

  private async inSourceZone(req: ProvisionRequest, sourceZone: string): Promise<string> {
    const nodeZone = await selectedNodeZone(req, this.options);
    if (nodeZone !== undefined && nodeZone !== sourceZone) {
      throw new PluginError('InvalidParameter', `a volume made from a Cinder snapshot or volume of zone ${sourceZone} is made there, not in ${nodeZone} where the selected node is`, false);
    }
    return sourceZone;
  }

  /** The availability zone, or undefined to let Cinder use its default (nothing constrains it). */
  private async chooseZone(req: ProvisionRequest, parsed: CinderParameters): Promise<string | undefined> {
    const nodeZone = await selectedNodeZone(req, this.options);
    const constrained = parsed.availability !== undefined || nodeZone !== undefined || (req.allowedTopologies?.length ?? 0) > 0;
    const withNodes = constrained ? [] : await this.zonesWithNodes(req.signal);
    if (!constrained && withNodes.length === 0) return undefined;
    const [zone] = await selectZonesForVolume({
      claimName: req.claim.name,
      zoneParameter: parsed.availability,
      zoneParameterName: 'availability',
      nodeZone,
      allowedTopologies: req.allowedTopologies,
      fallbackZones: () => Promise.resolve(withNodes),
      replicas: 1,
    });
    return zone;
  }

  /** One attempt: this cluster's volume with the backing name, else a new one. */
  private async findOrCreate(req: ProvisionRequest, parsed: CinderParameters & VolumeShape, zone: string | undefined, signal: AbortSignal): Promise<CinderVolume> {
    const ours = (await this.ownedNamed(req.backingName, req.clusterName, signal)).filter((v) => !UNUSABLE_STATUSES.includes(v.status));
    if (ours.length > 0) {
      if (ours[0].snapshotId !== parsed.snapshotId || ours[0].sourceVolumeId !== parsed.sourceVolumeId) {
        throw new PluginError('Backend', `Cinder volume ${ours[0].id} of ${req.backingName} was made from another source`, false);
      }
      this.logReused({ volumeId: ours[0].id, backingName: req.backingName, pv: req.pvName });
      return ours[0];
    }
    const metadata = volumeTags(req, claimTags(this.options.annotationTags, req.claim.annotations, 'openstack'));
    delete metadata[TAG_AWS_NAME]; // the volume's own name
    const created = await this.cinder.create(
      {
        name: req.backingName,
        sizeGiB: parsed.sizeGiB,
        volumeType: parsed.volumeType,
        availabilityZone: zone,
        metadata,
        ...(parsed.snapshotId === undefined ? {} : { snapshotId: parsed.snapshotId }),
        ...(parsed.sourceVolumeId === undefined ? {} : { sourceVolumeId: parsed.sourceVolumeId }),
      },
      signal,
    );
    this.logCreated(req, { volumeId: created.id, zone: created.availabilityZone, sizeGiB: created.sizeGiB });
    return created;
  }

  /** Volumes named `name` whose metadata carries the cluster tag, sorted by id so the choice is stable. */
  private async ownedNamed(name: string, clusterName: string, signal: AbortSignal): Promise<CinderVolume[]> {
    const listed = await this.cinder.list({ name, metadata: { [clusterTagKey(clusterName)]: TAG_CLUSTER_OWNED } }, signal);
    return listed.filter((v) => v.name === name && isOwnedByCluster(v.metadata, clusterName)).sort((a, b) => a.id.localeCompare(b.id));
  }

  /** A volume that failed to create is ours and useless: delete it, and say so. */
  private async discardFailed(volume: CinderVolume, signal?: AbortSignal): Promise<never> {
    await this.call('DELETE volume', (s) => this.cinder.delete(volume.id, s), signal);
    throw new PluginError('Backend', `Cinder volume ${volume.id} went to status "error" after creation; it was deleted`, true);
  }

  async delete(req: DeleteRequest): Promise<void> {
    const named = req.pv?.spec.cinder?.volumeID ?? this.csiHandleOf(req.pv);
    const ids = named !== undefined ? [named] : (await this.call('list volumes', (s) => this.ownedForDelete(req.backingName, s), req.signal)).map((v) => v.id);
    for (const id of ids) {
      const volume = await this.call('GET volume', (s) => this.cinder.get(id, s), req.signal);
      if (volume !== undefined && (volume.status === 'in-use' || volume.attachmentCount > 0)) {
        throw new PluginError('InUse', `Cinder volume ${id} is in use (attached); not deleted`, true);
      }
      const outcome = volume === undefined ? 'absent' : await this.call('DELETE volume', (s) => this.cinder.delete(id, s), req.signal);
      this.logDeleted({ volumeId: id, backingName: req.backingName }, outcome);
    }
  }

  /** Volumes of the backing name carrying the tag of the cluster the name was made for. */
  private async ownedForDelete(name: string, signal: AbortSignal): Promise<CinderVolume[]> {
    const listed = await this.cinder.list({ name }, signal);
    return listed.filter((v) => v.name === name && isOwnedForBackingName(v.metadata, name));
  }

  /** os-extend to the new size, then wait until the volume is back to available with it. */
  async expand(req: ExpandRequest): Promise<ExpandedVolume> {
    const id = this.volumeIdOf(req.pv);
    const sizeGiB = roundUpToGiB(req.sizeBytes);
    let volume = await this.settled(id, req.signal);
    if (volume.sizeGiB < sizeGiB) {
      await this.call('os-extend', (s) => this.cinder.extend(id, sizeGiB, s), req.signal);
      volume = await this.settled(id, req.signal);
    }
    if (volume.sizeGiB < sizeGiB) throw new PluginError('Backend', `Cinder volume ${id} is ${volume.sizeGiB} GiB after os-extend to ${sizeGiB} GiB`, true);
    return { capacity: gibCapacity(volume.sizeGiB), nodeExpansionRequired: req.pv.spec.volumeMode !== 'Block' };
  }

  /** os-retype to the class's volume type; nothing to do when the volume has it. */
  async modify(req: ModifyRequest): Promise<void> {
    const id = this.volumeIdOf(req.pv);
    const { type } = this.attributesOf(req.attributes);
    const volume = await this.settled(id, req.signal);
    if (type === undefined || volume.volumeType === type) return;
    await this.call('os-retype', (s) => this.cinder.retype(id, type, s), req.signal);
    const now = await this.settled(id, req.signal);
    if (now.volumeType !== type) throw new PluginError('Backend', `Cinder volume ${id} is of type ${now.volumeType ?? 'none'} after os-retype to ${type}`, true);
  }

  private volumeIdOf(pv: PersistentVolume): string {
    const id = pv.spec.cinder?.volumeID ?? this.csiHandleOf(pv);
    if (id === undefined) throw new PluginError('NotSupported', `PV ${pv.metadata.name} has no cinder source`, false);
    return id;
  }

  /** The volume once Cinder is no longer extending or retyping it; a change that failed is final. */
  private settled(id: string, signal?: AbortSignal): Promise<CinderVolume> {
    return waitFor(
      async () => {
        const volume = await this.call('GET volume', (s) => this.cinder.get(id, s), signal);
        if (volume === undefined) throw new PluginError('Backend', `Cinder volume ${id} does not exist`, false);
        if (CHANGE_FAILED_STATUSES.includes(volume.status)) {
          throw new PluginError('Backend', `Cinder volume ${id} went to status "${volume.status}"`, false);
        }
        return CHANGING_STATUSES.includes(volume.status) ? undefined : volume;
      },
      { ...this.options.wait, what: `Cinder volume ${id} to finish changing`, signal },
    );
  }

  /** A Cinder snapshot id (a UUID); a pre-provisioned content may name anything. */
  ownsSnapshot(snapshotId: string): boolean {
    return isCinderSnapshotId(snapshotId);
  }

  async createSnapshot(req: SnapshotRequest): Promise<VolumeSnapshotInfo> {
    return this.snapshotOps.create(req, this.volumeIdOf(req.pv));
  }

  /** What `orphans --cloud` lists and deletes through (cloud-common/sweep.ts). */
  protected sweepIdOf(pv: PersistentVolume): string {
    const id = pv.spec.cinder?.volumeID ?? this.csiHandleOf(pv);
    if (id === undefined) throw new PluginError('NotSupported', `PV ${pv.metadata.name} has no Cinder volume source`, false);
    return id;
  }

  sweeper(): CloudSweeper {
    return new CinderSweeper(this.cinder, this.snapshotOps, (what, op, signal) => this.call(what, op, signal), this.maxBackingNameLength);
  }

  async listBackingVolumes(clusterName: string): Promise<BackingVolume[]> {
    const filter = { metadata: { [clusterTagKey(clusterName)]: TAG_CLUSTER_OWNED } };
    const listed = await this.call('list volumes', (s) => this.cinder.list(filter, s));
    return listed.filter((v) => isOwnedByCluster(v.metadata, clusterName)).map((v) => backingVolumeOf(v.id, v.name, v.metadata));
  }
}
