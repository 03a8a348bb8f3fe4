/**
 * Changing a live EBS volume: ModifyVolume, then DescribeVolumesModifications until EC2 reports
 * `optimizing` or `completed` (the volume has its new shape from `optimizing` on, as the in-tree
 * AWS plugin and the EBS CSI driver wait for). Both steps are idempotent: a volume that already
 * has the size or attributes asked is left alone, and a modification still `modifying` (one
 * started by an attempt whose answer was lost) is waited for instead of started again.
 */
import type { VolumeAttributes } from '../cloud-common/attributes.js';
import type { WaitPolicy } from '../cloud-common/options.js';
import { waitFor } from '../cloud-common/wait.js';
import { PluginError } from '../api/errors.js';
import type { EbsModification, EbsVolume, Ec2Volumes } from './ec2-volumes.js';

type RetryingCall = <T>(what: string, op: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal) => Promise<T>;

const DONE_STATES = ['optimizing', 'completed'];

export class EbsModifier {
  constructor(
    private readonly ec2: Ec2Volumes,
    private readonly call: RetryingCall,
    private readonly wait: WaitPolicy,
  ) {}

  /** Grows the volume to at least `sizeGiB`; returns the size it has. */
  async grow(volumeId: string, sizeGiB: number, signal?: AbortSignal): Promise<number> {
    const volume = await this.settled(volumeId, signal);
    if (volume.sizeGiB >= sizeGiB) return volume.sizeGiB;
    await this.apply(volumeId, { sizeGiB }, signal);
    return (await this.describe(volumeId, signal)).sizeGiB;
  }

  /** Gives the volume the attributes asked (type, IOPS, throughput). */
  async reshape(volumeId: string, attributes: VolumeAttributes, signal?: AbortSignal): Promise<void> {
    const volume = await this.settled(volumeId, signal);
    const change: EbsModification = {};
    if (attributes.type !== undefined && attributes.type !== volume.type) change.type = attributes.type;
    if (attributes.iops !== undefined && attributes.iops !== volume.iops) change.iops = attributes.iops;
    if (attributes.throughput !== undefined && attributes.throughput !== volume.throughput) change.throughput = attributes.throughput;
    if (Object.keys(change).length === 0) return;
    await this.apply(volumeId, change, signal);
  }

  private async describe(volumeId: string, signal?: AbortSignal): Promise<EbsVolume> {
    const volume = await this.call('DescribeVolumes', (s) => this.ec2.describe(volumeId, s), signal);
    if (!volume) throw new PluginError('Backend', `EBS volume ${volumeId} does not exist`, false);
    return volume;
  }

  /** The volume once no modification of it is still `modifying`. */
  private async settled(volumeId: string, signal?: AbortSignal): Promise<EbsVolume> {
    const latest = await this.call('DescribeVolumesModifications', (s) => this.ec2.modification(volumeId, s), signal);
    if (latest?.state === 'modifying') await this.untilModified(volumeId, signal);
    return this.describe(volumeId, signal);
  }

  private async apply(volumeId: string, change: EbsModification, signal?: AbortSignal): Promise<void> {
    await this.call('ModifyVolume', (s) => this.ec2.modify(volumeId, change, s), signal);
    await this.untilModified(volumeId, signal);
  }

  private async untilModified(volumeId: string, signal?: AbortSignal): Promise<void> {
    await waitFor(
      async () => {
        const now = await this.call('DescribeVolumesModifications', (s) => this.ec2.modification(volumeId, s), signal);
        if (now?.state === 'failed') {
          throw new PluginError('Backend', `EBS volume ${volumeId}: modification failed: ${now.statusMessage ?? 'no reason given'}`, false);
        }
        return now === undefined || DONE_STATES.includes(now.state) ? true : undefined;
      },
      { ...this.wait, what: `EBS volume ${volumeId} modification to finish`, signal },
    );
  }
}
