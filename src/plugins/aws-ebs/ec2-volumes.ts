/**
 * The EBS calls the plugin makes, over the official `@aws-sdk/client-ec2`. Every method is one
 * attempt bounded by the signal it is given; the plugin wraps them in cloud-common's retry (the
 * SDK is built with `maxAttempts: 1`, so throttling and 5xx are retried in exactly one place).
 */
import {
  CreateTagsCommand,
  CreateVolumeCommand,
  DeleteVolumeCommand,
  DescribeAvailabilityZonesCommand,
  DescribeVolumesCommand,
  DescribeVolumesModificationsCommand,
  type EC2Client,
  ModifyVolumeCommand,
  type Filter,
  type Tag,
  type Volume,
  type VolumeType,
} from '@aws-sdk/client-ec2';
import { TAG_AWS_NAME } from '@pv-controller/kube/annotations.js';
import type { ErrorVerdict } from '../cloud-common/retry.js';
import type { Tags } from '../cloud-common/tags.js';
import { PluginError } from '../api/errors.js';

export interface EbsVolume {
  id: string;
  zone: string;
  sizeGiB: number;
  /** creating | available | in-use | deleting | deleted | error */
  state: string;
  type: string;
  tags: Tags;
  attached: boolean;
  iops?: number;
  throughput?: number;
  /** The snapshot it was restored from. */
  snapshotId?: string;
  createdAt?: Date;
}

/** What ModifyVolume changes; absent fields stay as they are. */
export interface EbsModification {
  sizeGiB?: number;
  type?: string;
  iops?: number;
  throughput?: number;
}

/** The latest modification of a volume: modifying → optimizing → completed, or failed. */
export interface EbsModificationState {
  state: string;
  targetSizeGiB?: number;
  statusMessage?: string;
}

export interface CreateEbsVolume {
  zone: string;
  sizeGiB: number;
  type: string;
  iops?: number;
  /** MiB/s (gp3). */
  throughput?: number;
  encrypted: boolean;
  kmsKeyId?: string;
  tags: Tags;
  /** Idempotency token: a repeated CreateVolume with it returns the first volume. */
  clientToken: string;
  /** Restore: the snapshot the volume is filled from. */
  snapshotId?: string;
}

const THROTTLING_CODES = new Set([
  'RequestLimitExceeded',
  'Throttling',
  'ThrottlingException',
  'RequestThrottled',
  'RequestThrottledException',
  'TooManyRequestsException',
  'ProvisionedThroughputExceededException',
  'BandwidthLimitExceeded',
  'SlowDown',
]);
const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'ECONNABORTED']);

interface SdkErrorShape {
  name?: string;
  code?: string;
  $fault?: string;
  $metadata?: { httpStatusCode?: number };
}

function shapeOf(err: unknown): SdkErrorShape {
  return typeof err === 'object' && err !== null ? (err as SdkErrorShape) : {};
}

/** Throttling, 5xx and broken connections are retried; everything else is final. */
export function classifyEc2Error(err: unknown): ErrorVerdict {
  const shape = shapeOf(err);
  if (shape.name !== undefined && THROTTLING_CODES.has(shape.name)) return 'retry';
  const status = shape.$metadata?.httpStatusCode;
  if (status !== undefined) return status >= 500 || status === 429 ? 'retry' : 'fatal';
  if (shape.code !== undefined && NETWORK_CODES.has(shape.code)) return 'retry';
  if (err instanceof Error && /socket hang up|ECONNRESET|other side closed/i.test(err.message)) return 'retry';
  return 'fatal';
}

export function ec2ErrorCode(err: unknown): string | undefined {
  return shapeOf(err).name;
}

function tagsOf(list: Tag[] | undefined): Tags {
  const tags: Tags = {};
  for (const tag of list ?? []) if (tag.Key !== undefined) tags[tag.Key] = tag.Value ?? '';
  return tags;
}

function toEbsVolume(volume: Volume): EbsVolume {
  return {
    id: volume.VolumeId ?? '',
    zone: volume.AvailabilityZone ?? '',
    sizeGiB: volume.Size ?? 0,
    state: volume.State ?? 'unknown',
    type: volume.VolumeType ?? '',
    tags: tagsOf(volume.Tags),
    attached: (volume.Attachments ?? []).some((a) => a.State === 'attached' || a.State === 'attaching'),
    ...(volume.Iops === undefined ? {} : { iops: volume.Iops }),
    ...(volume.Throughput === undefined ? {} : { throughput: volume.Throughput }),
    ...(volume.SnapshotId ? { snapshotId: volume.SnapshotId } : {}),
    ...(volume.CreateTime ? { createdAt: volume.CreateTime } : {}),
  };
}

function tagList(tags: Tags): Tag[] {
  return Object.entries(tags).map(([Key, Value]) => ({ Key, Value }));
}

export class Ec2Volumes {
  constructor(private readonly client: EC2Client) {}

  /** The client's region (from options, AWS_REGION or the shared config). */
  region(): Promise<string> {
    return this.client.config.region();
  }

  async describe(volumeId: string, signal: AbortSignal): Promise<EbsVolume | undefined> {
    try {
      const out = await this.client.send(new DescribeVolumesCommand({ VolumeIds: [volumeId] }), { abortSignal: signal });
      const found = (out.Volumes ?? []).map(toEbsVolume).find((volume) => volume.id === volumeId);
      return found?.state === 'deleted' ? undefined : found;
    } catch (err) {
      if (ec2ErrorCode(err) === 'InvalidVolume.NotFound') return undefined;
      throw err;
    }
  }

  /** Every volume matching all filters, following NextToken. */
  async list(filters: Filter[], signal: AbortSignal): Promise<EbsVolume[]> {
    const volumes: EbsVolume[] = [];
    let token: string | undefined;
    do {
      const out = await this.client.send(
        new DescribeVolumesCommand({ Filters: filters, MaxResults: 500, NextToken: token }),
        { abortSignal: signal },
      );
      volumes.push(...(out.Volumes ?? []).map(toEbsVolume));
      token = out.NextToken;
    } while (token);
    return volumes.filter((volume) => volume.state !== 'deleted');
  }

  /** Volumes whose Name tag is `name`. */
  withName(name: string, signal: AbortSignal): Promise<EbsVolume[]> {
    return this.list([{ Name: `tag:${TAG_AWS_NAME}`, Values: [name] }], signal);
  }

  async create(input: CreateEbsVolume, signal: AbortSignal): Promise<EbsVolume> {
    const out = await this.client.send(
      new CreateVolumeCommand({
        AvailabilityZone: input.zone,
        Size: input.sizeGiB,
        VolumeType: input.type as VolumeType,
        Iops: input.iops,
        Throughput: input.throughput,
        Encrypted: input.encrypted,
        KmsKeyId: input.kmsKeyId,
        ClientToken: input.clientToken,
        SnapshotId: input.snapshotId,
        TagSpecifications: [{ ResourceType: 'volume', Tags: tagList(input.tags) }],
      }),
      { abortSignal: signal },
    );
    return toEbsVolume(out);
  }

  /** Deletes a volume; already gone is success; attached is PluginError 'InUse' (retryable). */
  async delete(volumeId: string, signal: AbortSignal): Promise<'deleted' | 'absent'> {
    try {
      await this.client.send(new DeleteVolumeCommand({ VolumeId: volumeId }), { abortSignal: signal });
      return 'deleted';
    } catch (err) {
      const code = ec2ErrorCode(err);
      if (code === 'InvalidVolume.NotFound') return 'absent';
      if (code === 'VolumeInUse') {
        throw new PluginError('InUse', `EBS volume ${volumeId} is in use (attached); not deleted`, true, { cause: err });
      }
      throw err;
    }
  }

  async addTags(volumeId: string, tags: Tags, signal: AbortSignal): Promise<void> {
    await this.client.send(new CreateTagsCommand({ Resources: [volumeId], Tags: tagList(tags) }), {
      abortSignal: signal,
    });
  }

  /** Starts a modification (size, type, IOPS, throughput); EC2 applies it while the volume stays usable. */
  async modify(volumeId: string, change: EbsModification, signal: AbortSignal): Promise<EbsModificationState> {
    const out = await this.client.send(
      new ModifyVolumeCommand({
        VolumeId: volumeId,
        Size: change.sizeGiB,
        VolumeType: change.type as VolumeType | undefined,
        Iops: change.iops,
        Throughput: change.throughput,
      }),
      { abortSignal: signal },
    );
    return modificationOf(out.VolumeModification);
  }

  /** The volume's latest modification; undefined when it was never modified. */
  async modification(volumeId: string, signal: AbortSignal): Promise<EbsModificationState | undefined> {
    try {
      const out = await this.client.send(new DescribeVolumesModificationsCommand({ VolumeIds: [volumeId] }), { abortSignal: signal });
      const latest = out.VolumesModifications?.at(-1);
      return latest === undefined ? undefined : modificationOf(latest);
    } catch (err) {
      if (ec2ErrorCode(err) === 'InvalidVolumeModification.NotFound') return undefined;
      throw err;
    }
  }

  async availableZones(signal: AbortSignal): Promise<string[]> {
    const out = await this.client.send(
      new DescribeAvailabilityZonesCommand({ Filters: [{ Name: 'state', Values: ['available'] }] }),
      { abortSignal: signal },
    );
    return (out.AvailabilityZones ?? []).map((zone) => zone.ZoneName ?? '').filter((zone) => zone !== '');
  }
}

function modificationOf(m: { ModificationState?: string; TargetSize?: number; StatusMessage?: string } | undefined): EbsModificationState {
  return {
    state: m?.ModificationState ?? 'unknown',
    ...(m?.TargetSize === undefined ? {} : { targetSizeGiB: m.TargetSize }),
    ...(m?.StatusMessage === undefined ? {} : { statusMessage: m.StatusMessage }),
  };
}
