/**
 * EBS snapshots over the official SDK: CreateSnapshot tagged like the volumes (Name = the
 * snapshot name, the VolumeSnapshot and content it was cut for, the cluster tag), found again by
 * those tags before one is cut — CreateSnapshot takes no idempotency token, so a retry after a
 * lost answer finds the snapshot the first attempt made; DescribeSnapshots (pending → readyToUse
 * false, completed → true, error → deleted and cut again); DeleteSnapshot (gone is success, in use
 * by an AMI is InUse). Each method is one attempt; the plugin retries through cloud-common.
 */
import {
  CreateSnapshotCommand,
  DeleteSnapshotCommand,
  DescribeSnapshotsCommand,
  type EC2Client,
  type Filter,
  type Snapshot,
  type Tag,
} from '@aws-sdk/client-ec2';
import { TAG_AWS_NAME, TAG_CLUSTER_OWNED } from '@pv-controller/kube/annotations.js';
import type { SnapshotRequest } from '../api/capabilities/snapshot.js';
import { PluginError } from '../api/errors.js';
import type { CloudSnapshot, SnapshotBackend } from '../cloud-common/snapshots.js';
import { clusterTagKey, snapshotTags, type Tags } from '../cloud-common/tags.js';
import { ec2ErrorCode } from './ec2-volumes.js';

/** `snap-` and 8 or 17 hexadecimal digits: the only handles this plugin acts on. */
const EBS_SNAPSHOT_ID = /^snap-(?:[0-9a-f]{8}|[0-9a-f]{17})$/;

export function isEbsSnapshotId(id: string): boolean {
  return EBS_SNAPSHOT_ID.test(id);
}

function tagsOf(list: Tag[] | undefined): Tags {
  const tags: Tags = {};
  for (const tag of list ?? []) if (tag.Key !== undefined) tags[tag.Key] = tag.Value ?? '';
  return tags;
}

function toSnapshot(s: Snapshot): CloudSnapshot {
  const tags = tagsOf(s.Tags);
  return {
    id: s.SnapshotId ?? '',
    name: tags[TAG_AWS_NAME] ?? '',
    sourceVolumeId: s.VolumeId ?? '',
    sizeGiB: s.VolumeSize ?? 0,
    createdAt: s.StartTime ?? new Date(0),
    ready: s.State === 'completed',
    failed: s.State === 'error',
    tags,
  };
}

export class EbsSnapshots implements SnapshotBackend {
  readonly noun = 'EBS snapshot';

  constructor(private readonly client: EC2Client) {}

  owns(id: string): boolean {
    return isEbsSnapshotId(id);
  }

  listOfCluster(clusterName: string, signal: AbortSignal): Promise<CloudSnapshot[]> {
    return this.list([{ Name: `tag:${clusterTagKey(clusterName)}`, Values: [TAG_CLUSTER_OWNED] }], signal);
  }

  /** Every snapshot of this account matching all filters, following NextToken. */
  async list(filters: Filter[], signal: AbortSignal): Promise<CloudSnapshot[]> {
    const out: CloudSnapshot[] = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(new DescribeSnapshotsCommand({ OwnerIds: ['self'], Filters: filters, MaxResults: 1000, NextToken: token }), { abortSignal: signal });
      out.push(...(page.Snapshots ?? []).map(toSnapshot));
      token = page.NextToken;
    } while (token);
    return out;
  }

  /** One snapshot by id; undefined when it does not exist. */
  async describe(id: string, signal: AbortSignal): Promise<CloudSnapshot | undefined> {
    try {
      const out = await this.client.send(new DescribeSnapshotsCommand({ SnapshotIds: [id] }), { abortSignal: signal });
      return (out.Snapshots ?? []).map(toSnapshot).find((s) => s.id === id);
    } catch (err) {
      if (ec2ErrorCode(err) === 'InvalidSnapshot.NotFound') return undefined;
      throw err;
    }
  }

  findOwned(req: SnapshotRequest, signal: AbortSignal): Promise<CloudSnapshot[]> {
    return this.list(
      [
        { Name: `tag:${TAG_AWS_NAME}`, Values: [req.snapshotName] },
        { Name: `tag:${clusterTagKey(req.clusterName)}`, Values: [TAG_CLUSTER_OWNED] },
      ],
      signal,
    );
  }

  async cut(req: SnapshotRequest, volumeId: string, signal: AbortSignal): Promise<CloudSnapshot> {
    const tags = snapshotTags(req);
    const out = await this.client.send(
      new CreateSnapshotCommand({
        VolumeId: volumeId,
        Description: `Created by pv-controller for VolumeSnapshot ${req.snapshot.namespace}/${req.snapshot.name}`,
        TagSpecifications: [{ ResourceType: 'snapshot', Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })) }],
      }),
      { abortSignal: signal },
    );
    return toSnapshot(out);
  }

  /** Deletes a snapshot; already gone is 'absent'; used by an AMI is PluginError 'InUse' (retryable). */
  async remove(id: string, signal: AbortSignal): Promise<'deleted' | 'absent'> {
    try {
      await this.client.send(new DeleteSnapshotCommand({ SnapshotId: id }), { abortSignal: signal });
      return 'deleted';
    } catch (err) {
      const code = ec2ErrorCode(err);
      if (code === 'InvalidSnapshot.NotFound') return 'absent';
      if (code === 'InvalidSnapshot.InUse') throw new PluginError('InUse', `EBS snapshot ${id} is in use (by an AMI); not deleted`, true, { cause: err });
      throw err;
    }
  }
}
