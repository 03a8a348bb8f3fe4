/**
 * A loopback EC2 Query API for EBS volumes: CreateVolume, DescribeVolumes (filters by tag, id,
 * zone, status; pagination), DeleteVolume, CreateTags, DescribeAvailabilityZones, ModifyVolume
 * and DescribeVolumesModifications (ec2-modifications.ts), CreateSnapshot, DescribeSnapshots and
 * DeleteSnapshot (ec2-snapshots.ts), CreateVolume from a snapshot. The AWS SDK
 * talks to it unchanged (`endpoint` or AWS_ENDPOINT_URL_EC2). Volumes are inspectable from the
 * test; faults are injected per action through `faults`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  actionResponse,
  describeVolumesXml,
  describeZonesXml,
  type Ec2Volume,
  errorXml,
  volumeFields,
} from './ec2-xml.js';
import { Ec2Modifications, ModificationError, modificationXml } from './ec2-modifications.js';
import { Ec2SnapshotError, Ec2Snapshots, snapshotFields } from './ec2-snapshots.js';
import { dropConnection, type Exchange, FaultPlan, LoopbackServer } from './loopback.js';

export type { Ec2Volume } from './ec2-xml.js';
export type { Ec2SnapshotRecord } from './ec2-snapshots.js';

export interface Ec2EmulatorOptions {
  region?: string;
  zones?: string[];
  /** The access key id requests must be signed with. */
  accessKeyId?: string;
  /** DescribeVolumes calls that still see a new volume as `creating` (default 1). */
  creatingPolls?: number;
  /** DescribeSnapshots calls that still see a new snapshot as `pending` (default 1). */
  pendingPolls?: number;
}

type Params = Map<string, string>;

/** `Prefix.N.Rest=value` entries grouped by N, in order of N. */
function indexed(params: Params, prefix: string): Params[] {
  const groups = new Map<number, Params>();
  for (const [key, value] of params) {
    const match = new RegExp(`^${prefix.replace('.', '\\.')}\\.(\\d+)(?:\\.(.*))?$`).exec(key);
    if (!match) continue;
    const group = groups.get(Number(match[1])) ?? new Map<string, string>();
    group.set(match[2] ?? '', value);
    groups.set(Number(match[1]), group);
  }
  return [...groups.entries()].sort((a, b) => a[0] - b[0]).map(([, group]) => group);
}

function tagsOf(groups: Params[]): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const group of groups) tags[group.get('Key') ?? ''] = group.get('Value') ?? '';
  return tags;
}

class Ec2Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export class Ec2Emulator {
  readonly faults = new FaultPlan();
  /** Volume modifications (ModifyVolume): their history, and failures to inject. */
  readonly modifications = new Ec2Modifications();
  /** EBS snapshots: inspect with `snapshots.all()`, add foreign ones with `snapshots.add()`. */
  readonly snapshots: Ec2Snapshots;
  /** Every request's action and Query parameters, in order (authentication excluded). */
  readonly requests: { action: string; params: Record<string, string> }[] = [];
  readonly region: string;
  readonly zones: string[];
  private readonly accessKeyId: string;
  private readonly creatingPolls: number;
  private readonly store = new Map<string, Ec2Volume>();
  private readonly pollsLeft = new Map<string, number>();
  /** Volume state a new volume reaches after `creatingPolls` (set 'error' to fail creations). */
  stateAfterCreate: 'available' | 'error' = 'available';
  /** The most volumes one DescribeVolumes answers, whatever MaxResults asks (pagination tests). */
  maxPageSize = Infinity;
  private readonly server = new LoopbackServer((exchange) => this.handle(exchange));

  constructor(options: Ec2EmulatorOptions = {}) {
    this.region = options.region ?? 'us-east-1';
    this.zones = options.zones ?? [`${this.region}a`, `${this.region}b`, `${this.region}c`];
    this.accessKeyId = options.accessKeyId ?? 'AKIDEMULATOR';
    this.creatingPolls = options.creatingPolls ?? 1;
    this.snapshots = new Ec2Snapshots(options.pendingPolls ?? 1);
  }

  get url(): string {
    return this.server.url;
  }

  start(): Promise<string> {
    return this.server.start();
  }

  stop(): Promise<void> {
    return this.server.stop();
  }

  /** Every volume not deleted, as copies. */
  volumes(): Ec2Volume[] {
    return [...this.store.values()]
      .filter((volume) => volume.state !== 'deleted')
      .map((volume) => structuredClone(volume));
  }

  /** Puts a volume on the backend directly (one left behind, or another cluster's). */
  addVolume(fields: Partial<Ec2Volume> & { tags: Record<string, string> }): Ec2Volume {
    const volume: Ec2Volume = {
      id: `vol-${randomBytes(8).toString('hex').slice(0, 17)}`,
      zone: this.zones[0],
      sizeGiB: 1,
      type: 'gp2',
      encrypted: false,
      state: 'available',
      createTime: new Date(),
      ...fields,
    };
    this.store.set(volume.id, volume);
    return structuredClone(volume);
  }

  /** Marks a volume attached to an instance (deletes are refused with VolumeInUse). */
  attach(volumeId: string, instanceId = 'i-0123456789abcdef0'): void {
    const volume = this.store.get(volumeId);
    if (!volume) throw new Error(`no volume ${volumeId}`);
    volume.attachedTo = instanceId;
    volume.state = 'in-use';
  }

  private async handle(exchange: Exchange): Promise<void> {
    const params: Params = new Map(new URLSearchParams(exchange.body.toString('utf8')));
    const action = params.get('Action') ?? '';
    this.requests.push({ action, params: Object.fromEntries([...params].filter(([key]) => key !== 'Action' && key !== 'Version')) });
    const requestId = randomUUID();
    const send = (status: number, xml: string): void => {
      exchange.res.writeHead(status, { 'content-type': 'text/xml;charset=UTF-8' });
      exchange.res.end(xml);
    };
    const fault = this.faults.take(action);
    if (fault === 'hang') return this.server.hold(exchange.res);
    if (fault === 'serverError') {
      return send(500, errorXml(requestId, 'InternalError', 'An internal error has occurred'));
    }
    if (fault === 'throttle') return send(503, errorXml(requestId, 'RequestLimitExceeded', 'Request limit exceeded.'));
    try {
      this.authenticate(exchange.req.headers.authorization);
      const xml = this.perform(action, params, requestId, fault === 'inUse');
      if (fault === 'lostResponse') return dropConnection(exchange);
      send(200, xml);
    } catch (err) {
      if (!(err instanceof Ec2Error || err instanceof Ec2SnapshotError)) throw err;
      send(err.status, errorXml(requestId, err.code, err.message));
    }
  }

  private authenticate(authorization: string | undefined): void {
    if (!authorization?.includes(`Credential=${this.accessKeyId}/`)) {
      throw new Ec2Error(401, 'AuthFailure', 'AWS was not able to validate the provided access credentials');
    }
  }

  private perform(action: string, params: Params, requestId: string, forceInUse: boolean): string {
    switch (action) {
      case 'CreateVolume':
        return actionResponse(action, requestId, volumeFields(this.createVolume(params)));
      case 'DescribeVolumes':
        return this.describeVolumes(params, requestId);
      case 'DeleteVolume':
        this.deleteVolume(params.get('VolumeId') ?? '', forceInUse);
        return actionResponse(action, requestId, '<return>true</return>');
      case 'CreateTags':
        this.createTags(params);
        return actionResponse(action, requestId, '<return>true</return>');
      case 'DescribeAvailabilityZones':
        return describeZonesXml(requestId, this.region, this.zones);
      case 'ModifyVolume':
        return actionResponse(action, requestId, `<volumeModification>${modificationXml(this.modifyVolume(params))}</volumeModification>`);
      case 'DescribeVolumesModifications':
        return this.describeModifications(params, requestId);
      case 'CreateSnapshot':
        return actionResponse(action, requestId, snapshotFields(this.createSnapshot(params)));
      case 'DescribeSnapshots':
        return this.describeSnapshots(params, requestId);
      case 'DeleteSnapshot':
        this.snapshots.delete(params.get('SnapshotId') ?? '', forceInUse);
        return actionResponse(action, requestId, '<return>true</return>');
      default:
        throw new Ec2Error(400, 'InvalidAction', `The action ${action} is not valid for this web service.`);
    }
  }

  private createVolume(params: Params): Ec2Volume {
    const token = params.get('ClientToken');
    const earlier = [...this.store.values()].find((v) => token !== undefined && v.clientToken === token);
    if (earlier) return earlier;
    const zone = params.get('AvailabilityZone') ?? '';
    if (!this.zones.includes(zone)) {
      throw new Ec2Error(400, 'InvalidParameterValue', `Invalid availability zone: [${zone}]`);
    }
    const snapshotId = params.get('SnapshotId');
    const snapshot = snapshotId === undefined ? undefined : this.snapshots.live(snapshotId);
    if (snapshot && snapshot.state !== 'completed') throw new Ec2Error(400, 'IncorrectState', `Snapshot is in invalid state - ${snapshot.state}`);
    const size = Number(params.get('Size') ?? snapshot?.volumeSizeGiB);
    if (!Number.isInteger(size) || size < 1) throw new Ec2Error(400, 'InvalidParameterValue', 'Invalid size');
    if (snapshot && size < snapshot.volumeSizeGiB) {
      throw new Ec2Error(400, 'InvalidParameterValue', `Volume of ${size}GiB is too small; minimum is ${snapshot.volumeSizeGiB}GiB.`);
    }
    const tagSpec = indexed(params, 'TagSpecification').find((group) => group.get('ResourceType') === 'volume');
    const tags = tagSpec ? tagsOf(indexed(tagSpec, 'Tag')) : {};
    const iops = params.get('Iops');
    const throughput = params.get('Throughput');
    const volume = this.addVolume({
      zone,
      sizeGiB: size,
      type: params.get('VolumeType') ?? 'gp2',
      iops: iops === undefined ? undefined : Number(iops),
      throughput: throughput === undefined ? undefined : Number(throughput),
      encrypted: params.get('Encrypted') === 'true',
      kmsKeyId: params.get('KmsKeyId'),
      state: 'creating',
      clientToken: token,
      tags,
      ...(snapshotId === undefined ? {} : { snapshotId }),
    });
    this.pollsLeft.set(volume.id, this.creatingPolls);
    return volume;
  }

  /** Moves a creating volume on by one poll. */
  private advance(volume: Ec2Volume): void {
    if (volume.state !== 'creating') return;
    const left = this.pollsLeft.get(volume.id) ?? 0;
    if (left <= 0) volume.state = this.stateAfterCreate;
    else this.pollsLeft.set(volume.id, left - 1);
  }

  private describeVolumes(params: Params, requestId: string): string {
    const ids = indexed(params, 'VolumeId').map((group) => group.get('') ?? '');
    const filters = indexed(params, 'Filter').map((group) => ({
      name: group.get('Name') ?? '',
      values: indexed(group, 'Value').map((value) => value.get('') ?? ''),
    }));
    const live = [...this.store.values()].filter((volume) => volume.state !== 'deleted');
    for (const id of ids) {
      if (!live.some((volume) => volume.id === id)) {
        throw new Ec2Error(400, 'InvalidVolume.NotFound', `The volume '${id}' does not exist.`);
      }
    }
    const matching = live
      .filter((volume) => ids.length === 0 || ids.includes(volume.id))
      .filter((volume) => filters.every((filter) => matchesFilter(volume, filter.name, filter.values)));
    matching.forEach((volume) => this.advance(volume));
    const max = Math.min(Number(params.get('MaxResults') ?? matching.length), this.maxPageSize);
    const start = Number(params.get('NextToken') ?? 0);
    const page = matching.slice(start, start + max);
    const next = start + max < matching.length ? String(start + max) : undefined;
    return describeVolumesXml(requestId, page, next);
  }

  private liveVolume(id: string): Ec2Volume {
    const volume = this.store.get(id);
    if (!volume || volume.state === 'deleted') throw new Ec2Error(400, 'InvalidVolume.NotFound', `The volume '${id}' does not exist.`);
    return volume;
  }

  private modifyVolume(params: Params): ReturnType<Ec2Modifications['start']> {
    const volume = this.liveVolume(params.get('VolumeId') ?? '');
    try {
      return this.modifications.start(volume, params);
    } catch (err) {
      if (err instanceof ModificationError) throw new Ec2Error(400, err.code, err.message);
      throw err;
    }
  }

  private describeModifications(params: Params, requestId: string): string {
    const ids = indexed(params, 'VolumeId').map((group) => group.get('') ?? '');
    try {
      const mods = this.modifications.describe(ids, (id) => this.store.get(id));
      const items = mods.map((mod) => `<item>${modificationXml(mod)}</item>`).join('');
      return actionResponse('DescribeVolumesModifications', requestId, `<volumeModificationSet>${items}</volumeModificationSet>`);
    } catch (err) {
      if (err instanceof ModificationError) throw new Ec2Error(400, err.code, err.message);
      throw err;
    }
  }

  private deleteVolume(id: string, forceInUse: boolean): void {
    const volume = this.store.get(id);
    if (!volume || volume.state === 'deleted') {
      throw new Ec2Error(400, 'InvalidVolume.NotFound', `The volume '${id}' does not exist.`);
    }
    if (forceInUse || volume.attachedTo !== undefined) {
      throw new Ec2Error(400, 'VolumeInUse', `Volume ${id} is currently attached to ${volume.attachedTo ?? 'i-0fault'}`);
    }
    volume.state = 'deleted';
  }

  private createSnapshot(params: Params): ReturnType<Ec2Snapshots['create']> {
    const volume = this.store.get(params.get('VolumeId') ?? '');
    const tagSpec = indexed(params, 'TagSpecification').find((group) => group.get('ResourceType') === 'snapshot');
    return this.snapshots.create(params, volume && volume.state !== 'deleted' ? volume : undefined, tagSpec ? tagsOf(indexed(tagSpec, 'Tag')) : {});
  }

  private describeSnapshots(params: Params, requestId: string): string {
    const ids = indexed(params, 'SnapshotId').map((group) => group.get('') ?? '');
    const filters = indexed(params, 'Filter').map((group) => ({ name: group.get('Name') ?? '', values: indexed(group, 'Value').map((v) => v.get('') ?? '') }));
    const { page, next } = this.snapshots.describe(ids, filters, Number(params.get('MaxResults') ?? 1000), Number(params.get('NextToken') ?? 0));
    const items = page.map((s) => `<item>${snapshotFields(s)}</item>`).join('');
    return actionResponse('DescribeSnapshots', requestId, `<snapshotSet>${items}</snapshotSet>${next === undefined ? '' : `<nextToken>${next}</nextToken>`}`);
  }

  private createTags(params: Params): void {
    const tags = tagsOf(indexed(params, 'Tag'));
    for (const group of indexed(params, 'ResourceId')) {
      if ((group.get('') ?? '').startsWith('snap-')) {
        this.snapshots.addTags(group.get('') ?? '', tags);
        continue;
      }
      const volume = this.store.get(group.get('') ?? '');
      if (!volume || volume.state === 'deleted') {
        throw new Ec2Error(400, 'InvalidVolume.NotFound', `The volume '${group.get('')}' does not exist.`);
      }
      Object.assign(volume.tags, tags);
    }
  }
}

function matchesFilter(volume: Ec2Volume, name: string, values: string[]): boolean {
  if (name.startsWith('tag:')) {
    const value = volume.tags[name.slice(4)];
    return value !== undefined && values.includes(value);
  }
  switch (name) {
    case 'tag-key':
      return values.some((key) => key in volume.tags);
    case 'volume-id':
      return values.includes(volume.id);
    case 'availability-zone':
      return values.includes(volume.zone);
    case 'status':
      return values.includes(volume.state);
    default:
      throw new Ec2Error(400, 'InvalidParameterValue', `The filter '${name}' is invalid`);
  }
}
