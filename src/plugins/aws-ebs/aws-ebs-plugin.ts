/**
 * `kubernetes.io/aws-ebs`: EBS volumes through the official AWS SDK. A volume is found again by
 * its Name tag and this cluster's tag before one is created, and CreateVolume carries an
 * idempotency token derived from the backing name, so a retry after a lost answer never makes a
 * second volume. The SDK retries nothing (`maxAttempts: 1`); cloud-common's retry does.
 */
import { createHash } from 'node:crypto';
import { EC2Client, type EC2ClientConfig } from '@aws-sdk/client-ec2';
import { TAG_AWS_NAME, TAG_CLUSTER_OWNED, TAG_CLUSTER_PREFIX } from '../../kube/annotations.js';
import type { PersistentVolume } from '../../kube/types.js';
import { NilMetricsProvider } from '../../metrics/nil.js';
import type { MetricsProvider } from '../../metrics/provider.js';
import { isBackingNameOfCluster } from '../naming.js';
import {
  assertNoProblems,
  type CloudPluginOptions,
  type ResolvedCloudOptions,
  resolveCloudOptions,
  selectedNodeZone,
} from '../cloud-common/options.js';
import { withRetry } from '../cloud-common/retry.js';
import { gibCapacity, roundUpToGiB } from '../cloud-common/size.js';
import { backingVolumeOf, clusterTagKey, isOwnedByCluster, missingTags, type Tags, volumeTags } from '../cloud-common/tags.js';
import { diskTopology } from '../cloud-common/topology.js';
import { waitFor } from '../cloud-common/wait.js';
import { selectZonesForVolume } from '../cloud-common/zones.js';
import {
  type BackingVolume,
  type DeleteRequest,
  type ParameterProblem,
  PluginError,
  type ProvisionedVolume,
  type ProvisionRequest,
  type VolumePlugin,
} from '../plugin.js';
import { classifyEc2Error, type EbsVolume, Ec2Volumes } from './ec2-volumes.js';
import { AWS_EBS_PLUGIN_NAME, type EbsParameters, parseEbsParameters, totalIops } from './parameters.js';

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

/** Deterministic CreateVolume ClientToken (≤ 64 ASCII characters) for one backing volume. */
export function clientTokenFor(clusterName: string, backingName: string): string {
  return createHash('sha256').update(`${clusterName}\n${backingName}`).digest('hex');
}

export class AwsEbsPlugin implements VolumePlugin {
  readonly name = AWS_EBS_PLUGIN_NAME;
  readonly maxBackingNameLength = AWS_EBS_MAX_NAME_LENGTH;
  private readonly ec2: Ec2Volumes;
  private readonly options: ResolvedCloudOptions;

  constructor(options: AwsEbsPluginOptions = {}) {
    this.options = resolveCloudOptions(options, 'aws-ebs');
    const client =
      options.client ??
      new EC2Client({
        region: options.region,
        endpoint: options.endpoint,
        credentials: options.credentials,
        maxAttempts: 1,
      });
    this.ec2 = new Ec2Volumes(client);
  }

  validateParameters(parameters: Record<string, string>): ParameterProblem[] {
    return parseEbsParameters(parameters).problems;
  }

  handles(pv: PersistentVolume): boolean {
    return pv.spec.awsElasticBlockStore !== undefined;
  }

  metricsFor(pv: PersistentVolume): MetricsProvider {
    return new NilMetricsProvider(`aws-ebs volume "${pv.spec.awsElasticBlockStore?.volumeID ?? pv.metadata.name}"`);
  }

  private call<T>(what: string, op: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const { retry: policy, logger, random } = this.options;
    return withRetry(op, { what, policy, classify: classifyEc2Error, signal, logger, random });
  }

  async provision(req: ProvisionRequest): Promise<ProvisionedVolume> {
    const { parsed, problems } = parseEbsParameters(req.parameters);
    assertNoProblems(problems);
    const [zone] = await selectZonesForVolume({
      claimName: req.claim.name,
      zoneParameter: parsed.zone,
      zonesParameter: parsed.zones,
      nodeZone: await selectedNodeZone(req, this.options),
      allowedTopologies: req.allowedTopologies,
      fallbackZones: () => this.fallbackZones(req.signal),
      replicas: 1,
    });
    const sizeGiB = roundUpToGiB(req.requestBytes);
    const volume = await this.call(
      'find or create EBS volume',
      (signal) => this.findOrCreate(req, parsed, zone, sizeGiB, signal),
      req.signal,
    );
    const ready = await this.waitUntilAvailable(volume.id, req.signal);
    const topology = diskTopology([ready.zone], await this.regionOf(ready.zone));
    const awsElasticBlockStore: { volumeID: string; fsType?: string } = { volumeID: `aws://${ready.zone}/${ready.id}` };
    if (parsed.fsType !== undefined) awsElasticBlockStore.fsType = parsed.fsType;
    return {
      source: { awsElasticBlockStore },
      capacity: gibCapacity(ready.sizeGiB),
      labels: topology.labels,
      nodeAffinity: topology.nodeAffinity,
    };
  }

  /** One attempt: reuse this cluster's volume with the backing name, else create it. */
  private async findOrCreate(
    req: ProvisionRequest,
    parsed: EbsParameters,
    zone: string,
    sizeGiB: number,
    signal: AbortSignal,
  ): Promise<EbsVolume> {
    const tags = volumeTags(req);
    const existing = (await this.ec2.withName(req.backingName, signal))
      .filter((volume) => isOwnedByCluster(volume.tags, req.clusterName))
      .filter((volume) => !['deleting', 'deleted', 'error'].includes(volume.state))
      .sort((a, b) => a.id.localeCompare(b.id));
    if (existing.length > 0) {
      const volume = existing[0];
      await this.ensureTags(volume, tags, signal);
      this.options.logger.info(
        { volumeId: volume.id, backingName: req.backingName, pv: req.pvName, duplicates: existing.length - 1 },
        'reusing the EBS volume created earlier for this PV',
      );
      return volume;
    }
    const created = await this.ec2.create(
      {
        zone,
        sizeGiB,
        type: parsed.type,
        iops: totalIops(parsed.type, sizeGiB, parsed.iopsPerGB),
        encrypted: parsed.encrypted,
        kmsKeyId: parsed.kmsKeyId,
        tags,
        clientToken: clientTokenFor(req.clusterName, req.backingName),
      },
      signal,
    );
    this.options.logger.info(
      { volumeId: created.id, zone: created.zone, sizeGiB: created.sizeGiB, backingName: req.backingName, pv: req.pvName },
      'created EBS volume',
    );
    return created;
  }

  private async ensureTags(volume: EbsVolume, tags: Tags, signal: AbortSignal): Promise<void> {
    const missing = missingTags(volume.tags, tags);
    if (Object.keys(missing).length === 0) return;
    await this.ec2.addTags(volume.id, missing, signal);
    Object.assign(volume.tags, missing);
    this.options.logger.info({ volumeId: volume.id, tags: Object.keys(missing) }, 'added missing tags to EBS volume');
  }

  private async waitUntilAvailable(volumeId: string, signal?: AbortSignal): Promise<EbsVolume> {
    return waitFor(
      async () => {
        const volume = await this.call('DescribeVolumes', (s) => this.ec2.describe(volumeId, s), signal);
        if (volume === undefined) {
          throw new PluginError('Backend', `EBS volume ${volumeId} disappeared before it became available`, false);
        }
        if (volume.state === 'available' || volume.state === 'in-use') return volume;
        if (volume.state === 'error') await this.discardFailed(volume, signal);
        return undefined;
      },
      { ...this.options.wait, what: `EBS volume ${volumeId} to become available`, signal },
    );
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

  private async fallbackZones(signal?: AbortSignal): Promise<string[]> {
    const withNodes = (await this.options.topology?.zonesWithNodes?.(signal)) ?? [];
    if (withNodes.length > 0) return withNodes;
    return this.call('DescribeAvailabilityZones', (s) => this.ec2.availableZones(s), signal);
  }

  private async regionOf(zone: string): Promise<string | undefined> {
    try {
      return await this.ec2.region();
    } catch {
      return /^([a-z]+-[a-z]+-\d+)/.exec(zone)?.[1];
    }
  }

  async delete(req: DeleteRequest): Promise<void> {
    const source = req.pv?.spec.awsElasticBlockStore;
    const ids = source
      ? [parseAwsVolumeId(source.volumeID)]
      : (await this.call('DescribeVolumes', (s) => this.ownedWithName(req.backingName, s), req.signal)).map((v) => v.id);
    for (const id of ids) {
      const outcome = await this.call('DeleteVolume', (s) => this.ec2.delete(id, s), req.signal);
      this.options.logger.info(
        { volumeId: id, backingName: req.backingName, outcome },
        outcome === 'deleted' ? 'deleted EBS volume' : 'EBS volume already gone',
      );
    }
  }

  /** Volumes named `backingName` that carry the cluster tag of the cluster the name was made for. */
  private async ownedWithName(backingName: string, signal: AbortSignal): Promise<EbsVolume[]> {
    const volumes = await this.ec2.withName(backingName, signal);
    return volumes.filter((volume) =>
      Object.entries(volume.tags).some(
        ([key, value]) =>
          key.startsWith(TAG_CLUSTER_PREFIX) &&
          value === TAG_CLUSTER_OWNED &&
          isBackingNameOfCluster(backingName, key.slice(TAG_CLUSTER_PREFIX.length)),
      ),
    );
  }

  async listBackingVolumes(clusterName: string): Promise<BackingVolume[]> {
    const filters = [{ Name: `tag:${clusterTagKey(clusterName)}`, Values: [TAG_CLUSTER_OWNED] }];
    const volumes = await this.call('DescribeVolumes', (s) => this.ec2.list(filters, s));
    return volumes.map((volume) => backingVolumeOf(volume.id, volume.tags[TAG_AWS_NAME] ?? volume.id, volume.tags));
  }
}
