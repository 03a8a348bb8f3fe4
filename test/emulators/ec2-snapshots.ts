/**
 * The EBS snapshot half of the EC2 emulator: CreateSnapshot (tags from TagSpecification), and
 * DescribeSnapshots (ids, filters by tag, volume and status, pagination), DeleteSnapshot. A new
 * snapshot is `pending` for `pendingPolls` DescribeSnapshots calls, then `completed` (or
 * `stateAfterCreate`), as EBS takes a snapshot in the background. EC2 refuses to delete a
 * snapshot a registered AMI uses (InvalidSnapshot.InUse): `usedByImage` marks one so, and the
 * 'inUse' fault answers it once. A volume being created from a snapshot does not block its
 * deletion on EBS (the volume has its own copy of what it needs), so nothing here refuses that.
 */
import { randomBytes } from 'node:crypto';
import { escapeXml } from './ec2-xml.js';

export interface Ec2SnapshotRecord {
  id: string;
  volumeId: string;
  volumeSizeGiB: number;
  /** pending | completed | error | deleted */
  state: 'pending' | 'completed' | 'error' | 'deleted';
  description: string;
  tags: Record<string, string>;
  startTime: Date;
  /** Registered AMIs that use it: a delete is refused. */
  usedByImage?: string;
}

/** A failure the emulator answers with (status, code, message). */
export class Ec2SnapshotError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export type Params = Map<string, string>;

function element(name: string, value: string | number | boolean | undefined): string {
  return value === undefined ? '' : `<${name}>${escapeXml(String(value))}</${name}>`;
}

export function snapshotFields(s: Ec2SnapshotRecord): string {
  const tags = Object.entries(s.tags)
    .map(([key, value]) => `<item>${element('key', key)}${element('value', value)}</item>`)
    .join('');
  return (
    element('snapshotId', s.id) +
    element('volumeId', s.volumeId) +
    element('status', s.state) +
    element('startTime', s.startTime.toISOString()) +
    element('progress', s.state === 'completed' ? '100%' : '0%') +
    element('ownerId', '123456789012') +
    element('volumeSize', s.volumeSizeGiB) +
    element('description', s.description) +
    element('encrypted', false) +
    `<tagSet>${tags}</tagSet>`
  );
}

export class Ec2Snapshots {
  /** State a new snapshot reaches after `pendingPolls` DescribeSnapshots (set 'error' to fail them). */
  stateAfterCreate: 'completed' | 'error' = 'completed';
  private readonly store = new Map<string, Ec2SnapshotRecord>();
  private readonly pollsLeft = new Map<string, number>();

  constructor(private readonly pendingPolls: number) {}

  /** Every snapshot not deleted, as copies. */
  all(): Ec2SnapshotRecord[] {
    return [...this.store.values()].filter((s) => s.state !== 'deleted').map((s) => structuredClone(s));
  }

  /** Puts a snapshot on the backend directly (another cluster's, or one a user made). */
  add(fields: Partial<Ec2SnapshotRecord> & { volumeId: string }): Ec2SnapshotRecord {
    const snapshot: Ec2SnapshotRecord = {
      id: `snap-${randomBytes(9).toString('hex').slice(0, 17)}`,
      volumeSizeGiB: 1,
      state: 'completed',
      description: '',
      tags: {},
      startTime: new Date(),
      ...fields,
    };
    this.store.set(snapshot.id, snapshot);
    return structuredClone(snapshot);
  }

  /** The live snapshot `id`, for CreateVolume from a snapshot; InvalidSnapshot.NotFound otherwise. */
  live(id: string): Ec2SnapshotRecord {
    const snapshot = this.store.get(id);
    if (!snapshot || snapshot.state === 'deleted') throw new Ec2SnapshotError(400, 'InvalidSnapshot.NotFound', `The snapshot '${id}' does not exist.`);
    return snapshot;
  }

  has(id: string): boolean {
    return this.store.has(id) && this.store.get(id)?.state !== 'deleted';
  }

  create(params: Params, volume: { id: string; sizeGiB: number } | undefined, tags: Record<string, string>): Ec2SnapshotRecord {
    const volumeId = params.get('VolumeId') ?? '';
    if (!volume) throw new Ec2SnapshotError(400, 'InvalidVolume.NotFound', `The volume '${volumeId}' does not exist.`);
    const snapshot = this.add({ volumeId, volumeSizeGiB: volume.sizeGiB, state: 'pending', description: params.get('Description') ?? '', tags });
    this.pollsLeft.set(snapshot.id, this.pendingPolls);
    return this.store.get(snapshot.id) ?? snapshot;
  }

  private advance(s: Ec2SnapshotRecord): void {
    if (s.state !== 'pending') return;
    const left = this.pollsLeft.get(s.id) ?? 0;
    if (left <= 0) s.state = this.stateAfterCreate;
    else this.pollsLeft.set(s.id, left - 1);
  }

  /** DescribeSnapshots' matching page and the next token. */
  describe(ids: string[], filters: { name: string; values: string[] }[], max: number, start: number): { page: Ec2SnapshotRecord[]; next?: string } {
    const live = [...this.store.values()].filter((s) => s.state !== 'deleted');
    for (const id of ids) {
      if (!live.some((s) => s.id === id)) throw new Ec2SnapshotError(400, 'InvalidSnapshot.NotFound', `The snapshot '${id}' does not exist.`);
    }
    const matching = live.filter((s) => ids.length === 0 || ids.includes(s.id)).filter((s) => filters.every((f) => matches(s, f.name, f.values)));
    matching.forEach((s) => this.advance(s));
    const page = matching.slice(start, start + max);
    return { page, ...(start + max < matching.length ? { next: String(start + max) } : {}) };
  }

  delete(id: string, forceInUse: boolean): void {
    const snapshot = this.live(id);
    if (forceInUse || snapshot.usedByImage !== undefined) {
      throw new Ec2SnapshotError(400, 'InvalidSnapshot.InUse', `The snapshot ${id} is currently in use by ${snapshot.usedByImage ?? 'ami-0fault'}`);
    }
    snapshot.state = 'deleted';
  }

  addTags(id: string, tags: Record<string, string>): void {
    Object.assign(this.live(id).tags, tags);
  }
}

function matches(s: Ec2SnapshotRecord, name: string, values: string[]): boolean {
  if (name.startsWith('tag:')) {
    const value = s.tags[name.slice(4)];
    return value !== undefined && values.includes(value);
  }
  switch (name) {
    case 'snapshot-id':
      return values.includes(s.id);
    case 'volume-id':
      return values.includes(s.volumeId);
    case 'status':
      return values.includes(s.state);
    default:
      throw new Ec2SnapshotError(400, 'InvalidParameterValue', `The filter '${name}' is invalid`);
  }
}
