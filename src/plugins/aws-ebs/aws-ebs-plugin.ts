/**
 * `kubernetes.io/aws-ebs`: EBS volumes through the official AWS SDK. A volume is found again by
 * its Name tag and this cluster's tag before one is created, and CreateVolume carries an
 * idempotency token derived from the backing name, so a retry after a lost answer never makes a
 * second volume. The SDK retries nothing (`maxAttempts: 1`); cloud-common's retry does.
 */
import { createHash } from 'node:crypto';
import { claimTags } from '../cloud-common/annotation-tags.js';
import { EC2Client, type EC2ClientConfig } from '@aws-sdk/client-ec2';
import { TAG_AWS_NAME, TAG_CLUSTER_OWNED } from '@pv-controller/kube/annotations.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { NilMetricsProvider } from '../../metrics/nil.js';
import type { MetricsProvider } from '../../metrics/provider.js';
import { type CloudPluginIdentity, CloudVolumePlugin, provisionedDisk, withFsType } from '../cloud-common/cloud-volume-plugin.js';
import type { CloudPluginOptions } from '../cloud-common/options.js';
import type { VolumeAttributes } from '../cloud-common/attributes.js';
import { gibCapacity, roundUpToGiB } from '../cloud-common/size.js';
import { backingVolumeOf, clusterTagKey, isOwnedByCluster, isOwnedForBackingName, missingTags, type Tags, volumeTags } from '../cloud-common/tags.js';
import { diskTopology } from '../cloud-common/topology.js';
import type { DeleteRequest, ProvisionedVolume, ProvisionRequest } from '../api/core.js';
import type { BackingVolume } from '../api/capabilities/backing-volumes.js';
import type { ExpandedVolume, ExpandRequest } from '../api/capabilities/expand.js';
import type { ModifyRequest } from '../api/capabilities/modify.js';
import { PluginError } from '../api/errors.js';
import type { SnapshotRequest, SnapshotSource, VolumeSnapshotInfo } from '../api/capabilities/snapshot.js';
import { assertSnapshotHandle, CloudSnapshotOps, restoreSizeGiB } from '../cloud-common/snapshots.js';
import { EbsSnapshots, isEbsSnapshotId } from './ebs-snapshots.js';
import { classifyEc2Error, type EbsVolume, Ec2Volumes } from './ec2-volumes.js';
import { AWS_EBS_PLUGIN_NAME, EBS_VOLUME_TYPES, type EbsParameters, parseEbsParameters, totalIops } from './parameters.js';
import { EbsModifier } from './modify.js';
import { EbsSweeper } from './ebs-sweep.js';
import type { CloudSweeper } from '../cloud-common/sweep.js';

/** AWS tag values may have 255 characters; the Name tag carries the backing name. */
export const AWS_EBS_MAX_NAME_LENGTH = 255;

export interface AwsEbsPluginOptions extends CloudPluginOptions {
  /** A ready client; otherwise one is built from region / endpoint / credentials below. */
  client?: EC2Client;
  /** Default: the SDK's (AWS_REGION, shared config). */
  region?: string;
  /** Endpoint override (tests); the SDK also honours AWS_ENDPOINT_URL_EC2 by itself. */
  endpoint?: string;
  /** Default: the SDK's default credential chain (env, shared files, SSO, IMDS, ...). */
  credentials?: EC2ClientConfig['credentials'];
}

/** The EBS volume id inside a PV's volumeID: `aws://<zone>/vol-…` or `vol-…`. */
export function parseAwsVolumeId(volumeID: string): string {
  const id = volumeID.startsWith('aws://') ? volumeID.slice(volumeID.lastIndexOf('/') + 1) : volumeID;
  if (!/^vol-[0-9a-zA-Z]+$/.test(id)) {
    throw new PluginError('Backend', `"${volumeID}" is not an EBS volume id`, false);
  }
  return id;
}

/**
 * Deterministic CreateVolume ClientToken (≤ 64 ASCII characters) for one backing volume, in its
 * `generation` (ProvisionRequest.generation): EC2 answers a token it remembers with the volume it
 * made for it, even once that volume is deleted, so after the provisioner deleted a claim's volume
 * the next attempt must use the next token. Generation 0 hashes what it always did.
 */
export function clientTokenFor(clusterName: string, backingName: string, generation = 0): string {
  const input = generation > 0 ? `${clusterName}\n${backingName}\n${generation}` : `${clusterName}\n${backingName}`;
  return createHash('sha256').update(input).digest('hex');
}

const AWS_EBS: CloudPluginIdentity<EbsParameters, EbsVolume> = {
  name: AWS_EBS_PLUGIN_NAME,
  component: 'aws-ebs',
  noun: 'EBS volume',
  maxBackingNameLength: AWS_EBS_MAX_NAME_LENGTH,
  classify: classifyEc2Error,
  parseParameters: parseEbsParameters,
  disks: { describeCall: 'DescribeVolumes', stateOf: (v) => v.state, ready: ['available', 'in-use'], failed: 'error', goneIsRetryable: false },
  attributes: { types: EBS_VOLUME_TYPES, iops: true, throughput: true },
  csiDriver: 'ebs.csi.aws.com',
};

export class AwsEbsPlugin extends CloudVolumePlugin<EbsParameters, EbsVolume> {
  private readonly ec2: Ec2Volumes;
  private readonly modifier: EbsModifier;
  protected readonly snapshotOps: CloudSnapshotOps;
  /** EBS has no volume-to-volume copy. */
  readonly supportsClone = false;

  constructor(options: AwsEbsPluginOptions = {}) {
    super(AWS_EBS, options);
    const client =
      options.client ??
      new EC2Client({
        region: options.region,
        endpoint: options.endpoint,
        credentials: options.credentials,
        maxAttempts: 1,
      });
    this.ec2 = new Ec2Volumes(client);
    this.modifier = new EbsModifier(this.ec2, (what, op, signal) => this.call(what, op, signal), this.options.wait);
    this.snapshotOps = new CloudSnapshotOps(new EbsSnapshots(client), (what, op, signal) => this.call(what, op, signal), this.options.logger);
  }

  handles(pv: PersistentVolume): boolean {
    return pv.spec.awsElasticBlockStore !== undefined || this.csiHandleOf(pv) !== undefined;
  }

  metricsFor(pv: PersistentVolume): MetricsProvider {
    return new NilMetricsProvider(`aws-ebs volume "${pv.spec.awsElasticBlockStore?.volumeID ?? this.csiHandleOf(pv) ?? pv.metadata.name}"`);
  }

  provision(req: ProvisionRequest): Promise<ProvisionedVolume> {
    return this.provisionVolume(req, roundUpToGiB(req.requestBytes));
  }

  /** Restore: CreateVolume with the snapshot's id, at least as large as the snapshot. */
  async provisionFromSnapshot(req: ProvisionRequest, snapshot: SnapshotSource): Promise<ProvisionedVolume> {
    assertSnapshotHandle(this.ownsSnapshot(snapshot.snapshotId), snapshot.snapshotId, 'EBS snapshot');
    return this.provisionVolume(req, restoreSizeGiB(req.requestBytes, snapshot.restoreSize), snapshot.snapshotId);
  }

  /** EBS cannot copy a volume into a new one (nor can its CSI driver): supportsClone is false. */
  provisionClone(req: ProvisionRequest, source: PersistentVolume): Promise<ProvisionedVolume> {
    const why = `EBS volumes cannot be cloned (${source.metadata.name ?? ''} for ${req.pvName}): snapshot the source claim and restore the snapshot instead`;
    return Promise.reject(new PluginError('NotSupported', why, false));
  }

  private async provisionVolume(req: ProvisionRequest, sizeGiB: number, snapshotId?: string): Promise<ProvisionedVolume> {
    const parsed = this.parametersOf(req);
    const attributes = this.attributesOf(req.attributes);
    const [zone] = await this.zonesForDisk(req, parsed, 1, () =>
      this.call('DescribeAvailabilityZones', (s) => this.ec2.availableZones(s), req.signal),
    );
    const shape = { ...parsed, ...attributesAsParameters(attributes, parsed, sizeGiB), snapshotId };
    const volume = await this.call('find or create EBS volume', (signal) => this.findOrCreate(req, shape, zone, sizeGiB, signal), req.signal);
    const ready = await this.waitUntilReady(
      volume.id,
      (s) => this.ec2.describe(volume.id, s),
      (failed) => this.discardFailed(failed, req.signal),
      req.signal,
    );
    const awsElasticBlockStore = withFsType({ volumeID: `aws://${ready.zone}/${ready.id}` }, parsed.fsType);
    const source = this.sourceFor(req, { awsElasticBlockStore }, ready.id, parsed.fsType);
    return provisionedDisk(source, ready.sizeGiB, diskTopology([ready.zone], await this.regionOf(ready.zone)));
  }

  /** One attempt: reuse this cluster's volume with the backing name, else create it. */
  private async findOrCreate(
    req: ProvisionRequest,
    parsed: EbsParameters & { iops?: number; throughput?: number; snapshotId?: string },
    zone: string,
    sizeGiB: number,
    signal: AbortSignal,
  ): Promise<EbsVolume> {
    const tags = volumeTags(req, claimTags(this.options.annotationTags, req.claim.annotations, 'aws'));
    const existing = (await this.ec2.withName(req.backingName, signal))
      .filter((volume) => isOwnedByCluster(volume.tags, req.clusterName))
      .filter((volume) => !['deleting', 'deleted', 'error'].includes(volume.state))
      .sort((a, b) => a.id.localeCompare(b.id));
    if (existing.length > 0) {
      const volume = existing[0];
      if (volume.snapshotId !== parsed.snapshotId) {
        throw new PluginError('Backend', `EBS volume ${volume.id} of ${req.backingName} was made from ${volume.snapshotId ?? 'no snapshot'}, not ${parsed.snapshotId ?? 'empty'}`, false);
      }
      await this.ensureTags(volume, tags, signal);
      this.logReused({ volumeId: volume.id, backingName: req.backingName, pv: req.pvName, duplicates: existing.length - 1 });
      return volume;
    }
    const created = await this.ec2.create(
      {
        zone,
        sizeGiB,
        type: parsed.type,
        iops: parsed.iops ?? totalIops(parsed.type, sizeGiB, parsed.iopsPerGB),
        throughput: parsed.throughput,
        encrypted: parsed.encrypted,
        kmsKeyId: parsed.kmsKeyId,
        tags,
        clientToken: clientTokenFor(req.clusterName, req.backingName, req.generation ?? 0),
        ...(parsed.snapshotId === undefined ? {} : { snapshotId: parsed.snapshotId }),
      },
      signal,
    );
    this.logCreated(req, { volumeId: created.id, zone: created.zone, sizeGiB: created.sizeGiB });
    return created;
  }

  private async ensureTags(volume: EbsVolume, tags: Tags, signal: AbortSignal): Promise<void> {
    const missing = missingTags(volume.tags, tags);
    if (Object.keys(missing).length === 0) return;
    await this.ec2.addTags(volume.id, missing, signal);
    Object.assign(volume.tags, missing);
    this.options.logger.info({ volumeId: volume.id, tags: Object.keys(missing) }, 'added missing tags to EBS volume');
  }

  /** A volume that failed to create is ours and useless: delete it, and say so. */
  private async discardFailed(volume: EbsVolume, signal?: AbortSignal): Promise<never> {
    await this.call('DeleteVolume', (s) => this.ec2.delete(volume.id, s), signal);
    this.options.logger.warn({ volumeId: volume.id }, 'deleted EBS volume that failed to create');
    throw new PluginError(
      'Backend',
      `EBS volume ${volume.id} went to state "error" after creation (check type, kmsKeyId and quotas); it was deleted`,
      false,
    );
  }

  private async regionOf(zone: string): Promise<string | undefined> {
    try {
      return await this.ec2.region();
    } catch {
      return /^([a-z]+-[a-z]+-\d+)/.exec(zone)?.[1];
    }
  }

  async delete(req: DeleteRequest): Promise<void> {
    const ids = req.pv && this.handles(req.pv)
      ? [this.volumeIdOf(req.pv)]
      : (await this.call('DescribeVolumes', (s) => this.ec2.withName(req.backingName, s), req.signal))
          .filter((volume) => isOwnedForBackingName(volume.tags, req.backingName))
          .map((volume) => volume.id);
    for (const id of ids) {
      const outcome = await this.call('DeleteVolume', (s) => this.ec2.delete(id, s), req.signal);
      this.logDeleted({ volumeId: id, backingName: req.backingName }, outcome);
    }
  }

  /** ModifyVolume to the new size, then wait until EC2 says the volume has it (optimizing or completed). */
  async expand(req: ExpandRequest): Promise<ExpandedVolume> {
    const volumeId = this.volumeIdOf(req.pv);
    const sizeGiB = await this.modifier.grow(volumeId, roundUpToGiB(req.sizeBytes), req.signal);
    return { capacity: gibCapacity(sizeGiB), nodeExpansionRequired: req.pv.spec.volumeMode !== 'Block' };
  }

  /** ModifyVolume to the class's type, IOPS and throughput; nothing to do when the volume has them. */
  async modify(req: ModifyRequest): Promise<void> {
    await this.modifier.reshape(this.volumeIdOf(req.pv), this.attributesOf(req.attributes), req.signal);
  }

  protected sweepIdOf(pv: PersistentVolume): string {
    return this.volumeIdOf(pv);
  }

  private volumeIdOf(pv: PersistentVolume): string {
    const volumeID = pv.spec.awsElasticBlockStore?.volumeID ?? this.csiHandleOf(pv);
    if (volumeID === undefined) throw new PluginError('NotSupported', `PV ${pv.metadata.name} has no EBS volume source`, false);
    return parseAwsVolumeId(volumeID);
  }

  /** An EBS snapshot id (`snap-…`); a pre-provisioned content may name anything. */
  ownsSnapshot(snapshotId: string): boolean {
    return isEbsSnapshotId(snapshotId);
  }

  async createSnapshot(req: SnapshotRequest): Promise<VolumeSnapshotInfo> {
    return this.snapshotOps.create(req, this.volumeIdOf(req.pv));
  }

  /** What `orphans --cloud` lists and deletes through (cloud-common/sweep.ts). */
  sweeper(): CloudSweeper {
    return new EbsSweeper(this.ec2, this.snapshotOps, (what, op, signal) => this.call(what, op, signal), this.maxBackingNameLength);
  }

  async listBackingVolumes(clusterName: string): Promise<BackingVolume[]> {
    const filters = [{ Name: `tag:${clusterTagKey(clusterName)}`, Values: [TAG_CLUSTER_OWNED] }];
    const volumes = await this.call('DescribeVolumes', (s) => this.ec2.list(filters, s));
    return volumes.map((volume) => backingVolumeOf(volume.id, volume.tags[TAG_AWS_NAME] ?? volume.id, volume.tags));
  }
}

/** A VolumeAttributesClass overrides the StorageClass's type and gives the IOPS and throughput outright. */
function attributesAsParameters(
  attributes: VolumeAttributes,
  parsed: EbsParameters,
  sizeGiB: number,
): { type: string; iops?: number; throughput?: number } {
  const type = attributes.type ?? parsed.type;
  const iops = attributes.iops ?? totalIops(type, sizeGiB, parsed.iopsPerGB);
  return { type, ...(iops === undefined ? {} : { iops }), ...(attributes.throughput === undefined ? {} : { throughput: attributes.throughput }) };
}
