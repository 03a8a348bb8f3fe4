/**
 * EBS volume modifications for the EC2 emulator: ModifyVolume starts one (size, type, IOPS,
 * throughput), DescribeVolumesModifications moves it on by one poll (modifying → optimizing, at
 * which the volume has its new shape, → completed). As EC2 does, a new size may not be smaller,
 * nothing may change while a modification is still modifying, and a modification that changes
 * nothing is refused. Failures are injected with `failNext` (the modification ends `failed`,
 * the volume unchanged) or the emulator's FaultPlan on the action names.
 */
import type { Ec2Volume } from './ec2-xml.js';
import { escapeXml } from './ec2-xml.js';

export interface Ec2Modification {
  volumeId: string;
  state: 'modifying' | 'optimizing' | 'completed' | 'failed';
  originalSize: number;
  targetSize: number;
  targetType: string;
  targetIops?: number;
  targetThroughput?: number;
  statusMessage?: string;
  startTime: Date;
  pollsLeft: number;
  fails: boolean;
}

export class ModificationError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export class Ec2Modifications {
  private readonly latest = new Map<string, Ec2Modification>();
  private failures: string[] = [];
  /** Every ModifyVolume accepted, in order (what tests assert on). */
  readonly history: Ec2Modification[] = [];

  constructor(private readonly pollsPerStep = 1) {}

  /** The next accepted modification fails with this message (one-shot, queued). */
  failNext(message = 'The volume modification failed: insufficient capacity'): void {
    this.failures.push(message);
  }

  start(volume: Ec2Volume, params: Map<string, string>): Ec2Modification {
    const current = this.latest.get(volume.id);
    if (current?.state === 'modifying') {
      throw new ModificationError('IncorrectModificationState', `Volume ${volume.id} is already being modified`);
    }
    const size = params.has('Size') ? Number(params.get('Size')) : volume.sizeGiB;
    if (!Number.isInteger(size) || size < volume.sizeGiB) {
      throw new ModificationError('InvalidParameterValue', `New size cannot be smaller than existing size (${volume.sizeGiB} GiB)`);
    }
    const mod: Ec2Modification = {
      volumeId: volume.id,
      state: 'modifying',
      originalSize: volume.sizeGiB,
      targetSize: size,
      targetType: params.get('VolumeType') ?? volume.type,
      targetIops: params.has('Iops') ? Number(params.get('Iops')) : volume.iops,
      targetThroughput: params.has('Throughput') ? Number(params.get('Throughput')) : volume.throughput,
      startTime: new Date(),
      pollsLeft: this.pollsPerStep,
      fails: false,
    };
    if (mod.targetSize === volume.sizeGiB && mod.targetType === volume.type && mod.targetIops === volume.iops &&
      mod.targetThroughput === volume.throughput) {
      throw new ModificationError('InvalidParameterCombination', 'New size, type, IOPS or throughput must differ from the current values');
    }
    const failure = this.failures.shift();
    if (failure !== undefined) {
      mod.fails = true;
      mod.statusMessage = failure;
    }
    this.latest.set(volume.id, mod);
    this.history.push(mod);
    return mod;
  }

  /** The modifications of `ids` (every one when empty), each moved on by one poll. */
  describe(ids: string[], volumes: (id: string) => Ec2Volume | undefined): Ec2Modification[] {
    const found = ids.length === 0 ? [...this.latest.values()] : ids.map((id) => this.latest.get(id));
    if (ids.length > 0 && found.some((mod) => mod === undefined)) {
      throw new ModificationError('InvalidVolumeModification.NotFound', `Modification for volume '${ids.find((id) => !this.latest.has(id))}' does not exist.`);
    }
    const mods = found.filter((mod): mod is Ec2Modification => mod !== undefined);
    for (const mod of mods) this.advance(mod, volumes(mod.volumeId));
    return mods;
  }

  private advance(mod: Ec2Modification, volume: Ec2Volume | undefined): void {
    if (mod.state === 'completed' || mod.state === 'failed') return;
    if (mod.pollsLeft-- > 0) return;
    mod.pollsLeft = this.pollsPerStep;
    if (mod.state === 'modifying' && mod.fails) {
      mod.state = 'failed';
      return;
    }
    if (mod.state === 'modifying' && volume) {
      volume.sizeGiB = mod.targetSize;
      volume.type = mod.targetType;
      volume.iops = mod.targetIops;
      volume.throughput = mod.targetThroughput;
      mod.state = 'optimizing';
      return;
    }
    mod.state = 'completed';
  }
}

function element(name: string, value: string | number | undefined): string {
  return value === undefined ? '' : `<${name}>${escapeXml(String(value))}</${name}>`;
}

/** A VolumeModification as ModifyVolume and DescribeVolumesModifications return it. */
export function modificationXml(mod: Ec2Modification): string {
  return (
    element('volumeId', mod.volumeId) +
    element('modificationState', mod.state) +
    element('statusMessage', mod.statusMessage) +
    element('targetSize', mod.targetSize) +
    element('targetVolumeType', mod.targetType) +
    element('targetIops', mod.targetIops) +
    element('targetThroughput', mod.targetThroughput) +
    element('originalSize', mod.originalSize) +
    element('progress', mod.state === 'modifying' ? 0 : mod.state === 'failed' ? 0 : 100) +
    element('startTime', mod.startTime.toISOString())
  );
}
