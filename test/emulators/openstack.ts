/**
 * A loopback OpenStack: Keystone v3 (`POST /identity/v3/auth/tokens`, password or application
 * credential, X-Subject-Token and a catalog whose volumev3 endpoint points here) and Cinder v3
 * volumes (create, list/detail with name and metadata filters, get, delete, the os-extend and
 * os-retype actions). Volumes are inspectable; faults are injected per action ('auth',
 * 'volumes.create', 'volumes.list', 'volumes.get', 'volumes.delete', 'volumes.action'), and
 * `failNextExtend` / `failNextRetype` make the next change end badly (error_extending; a retype
 * that leaves the type as it was, as Cinder's scheduler does when no backend takes it). Volume
 * snapshots ('snapshots.create', 'snapshots.list', 'snapshots.get', 'snapshots.delete') are
 * openstack-snapshots.ts; a volume may be created from a snapshot (snapshot_id) or a volume
 * (source_volid), in the source's availability zone.
 */
import { randomUUID } from 'node:crypto';
import { dropConnection, type Exchange, FaultPlan, LoopbackServer, pathSegments, sendJson } from './loopback.js';
import { CinderSnapshotError, CinderSnapshots, snapshotJson } from './openstack-snapshots.js';

export type { CinderSnapshotRecord } from './openstack-snapshots.js';

export interface CinderVolumeRecord {
  id: string;
  name: string;
  size: number;
  status: string;
  availabilityZone: string;
  volumeType: string;
  metadata: Record<string, string>;
  attachedTo?: string;
  snapshotId?: string;
  sourceVolid?: string;
  /** As Cinder writes created_at: UTC without a zone. */
  createdAt: string;
}

export interface OpenStackEmulatorOptions {
  region?: string;
  zones?: string[];
  /** GETs of a new volume that still see it `creating` (default 1). */
  creatingPolls?: number;
}

class OsError extends Error {
  constructor(
    readonly status: number,
    readonly kind: string,
    message: string,
  ) {
    super(message);
  }
}

export class OpenStackEmulator {
  /** The most volumes one list answers (Cinder's osapi_max_limit); smaller pages come with a next link. */
  maxPageSize = 1000;
  readonly faults = new FaultPlan();
  readonly region: string;
  readonly zones: string[];
  readonly projectId = 'a6944d763bf64ee6a275f1263fae0352';
  readonly projectName = 'demo';
  readonly username = 'kube';
  readonly password = 'emulator-password-secret';
  readonly applicationCredentialId = 'appcred-1';
  readonly applicationCredentialSecret = 'emulator-appcred-secret';
  /** Status code of a 'throttle' fault: 413 (overLimit, Cinder's classic) or 429. */
  throttleStatus: 413 | 429 = 413;
  /** Status a volume reaches after `creatingPolls` GETs (set 'error' to fail creations). */
  statusAfterCreate: 'available' | 'error' = 'available';
  /** The volume types os-retype accepts. */
  readonly volumeTypes = new Set(['__DEFAULT__', 'standard', 'ssd', 'fast']);
  private extendFailures = 0;
  private retypeFailures = 0;
  private readonly changes = new Map<string, { pollsLeft: number; complete: () => void }>();
  /** Every os-extend / os-retype accepted, in order. */
  readonly actions: { volumeId: string; action: 'os-extend' | 'os-retype'; value: string | number }[] = [];
  /** Volume snapshots: inspect with `snapshots.all()`, add foreign ones with `snapshots.add()`. */
  readonly snapshots: CinderSnapshots;
  /** Every volume API request's action and JSON body, in order. */
  readonly requests: { action: string; body: unknown }[] = [];
  private readonly creatingPolls: number;
  private readonly store = new Map<string, CinderVolumeRecord>();
  private readonly pollsLeft = new Map<string, number>();
  private readonly tokens = new Set<string>();
  private readonly server = new LoopbackServer((exchange) => this.handle(exchange));

  constructor(options: OpenStackEmulatorOptions = {}) {
    this.region = options.region ?? 'RegionOne';
    this.zones = options.zones ?? ['nova', 'az-2'];
    this.creatingPolls = options.creatingPolls ?? 1;
    this.snapshots = new CinderSnapshots(this.creatingPolls);
  }

  /** The OS_AUTH_URL clients use. */
  get authUrl(): string {
    return `${this.server.url}/identity/v3`;
  }

  start(): Promise<string> {
    return this.server.start();
  }

  stop(): Promise<void> {
    return this.server.stop();
  }

  volumes(): CinderVolumeRecord[] {
    return [...this.store.values()].map((volume) => structuredClone(volume));
  }

  addVolume(fields: Partial<CinderVolumeRecord> & { name: string }): CinderVolumeRecord {
    const volume: CinderVolumeRecord = {
      id: randomUUID(),
      size: 1,
      status: 'available',
      availabilityZone: this.zones[0],
      volumeType: '__DEFAULT__',
      metadata: {},
      createdAt: new Date().toISOString().replace('Z', '000'),
      ...fields,
    };
    this.store.set(volume.id, volume);
    return structuredClone(volume);
  }

  attach(id: string, server = 'server-1'): void {
    const volume = this.store.get(id);
    if (!volume) throw new Error(`no volume ${id}`);
    volume.attachedTo = server;
    volume.status = 'in-use';
  }

  /** Invalidates every issued token (clients must authenticate again). */
  revokeTokens(): void {
    this.tokens.clear();
  }

  private async handle(exchange: Exchange): Promise<void> {
    const { req, res, url } = exchange;
    const action = actionOf(req.method ?? 'GET', url.pathname, this.projectId);
    if (!action) return sendJson(res, 404, { itemNotFound: { code: 404, message: `no route ${url.pathname}` } });
    if (action !== 'auth') this.requests.push({ action, body: exchange.body.length > 0 ? (JSON.parse(exchange.body.toString('utf8')) as unknown) : undefined });
    const fault = this.faults.take(action);
    if (fault === 'hang') return this.server.hold(res);
    if (fault === 'serverError') return sendJson(res, 500, { computeFault: { code: 500, message: 'The server has either erred or is incapable of performing the requested operation.' } });
    if (fault === 'throttle') {
      return sendJson(res, this.throttleStatus, { overLimit: { code: this.throttleStatus, message: 'This request was rate-limited.', retryAfter: '0' } }, { 'retry-after': '0' });
    }
    try {
      const answer = action === 'auth' ? this.authenticate(exchange) : this.volumeAction(action, exchange, fault === 'inUse');
      if (fault === 'lostResponse') return dropConnection(exchange);
      sendJson(res, answer.status, answer.body, answer.headers);
    } catch (err) {
      if (!(err instanceof OsError || err instanceof CinderSnapshotError)) throw err;
      sendJson(res, err.status, { [err.kind]: { code: err.status, message: err.message } });
    }
  }

  private authenticate({ body }: Exchange): { status: number; body: unknown; headers: Record<string, string> } {
    const identity = (JSON.parse(body.toString('utf8')) as { auth?: { identity?: Record<string, unknown> } }).auth?.identity ?? {};
    const password = identity.password as { user?: { name?: string; password?: string; domain?: { name?: string } } } | undefined;
    const appCred = identity.application_credential as { id?: string; secret?: string } | undefined;
    const passwordOk = password?.user?.name === this.username && password.user.password === this.password && password.user.domain?.name === 'Default';
    const appCredOk = appCred?.id === this.applicationCredentialId && appCred.secret === this.applicationCredentialSecret;
    if (!passwordOk && !appCredOk) throw new OsError(401, 'error', 'The request you have made requires authentication.');
    const token = `gAAAAAemulated${randomUUID().replace(/-/g, '')}`;
    this.tokens.add(token);
    const endpoint = (iface: string) => ({ id: randomUUID(), interface: iface, region: this.region, region_id: this.region, url: `${this.server.url}/volume/v3/${this.projectId}` });
    return {
      status: 201,
      headers: { 'x-subject-token': token },
      body: {
        token: {
          methods: [appCredOk ? 'application_credential' : 'password'],
          expires_at: new Date(Date.now() + 3_600_000).toISOString(),
          project: { id: this.projectId, name: this.projectName, domain: { id: 'default', name: 'Default' } },
          catalog: [
            { type: 'identity', name: 'keystone', endpoints: [{ interface: 'public', region: this.region, url: this.authUrl }] },
            { type: 'volumev3', name: 'cinderv3', endpoints: [endpoint('public'), endpoint('internal')] },
          ],
        },
      },
    };
  }

  failNextExtend(times = 1): void {
    this.extendFailures += times;
  }

  failNextRetype(times = 1): void {
    this.retypeFailures += times;
  }

  private volumeAction(action: string, exchange: Exchange, forceInUse: boolean): { status: number; body: unknown; headers?: Record<string, string> } {
    const token = exchange.req.headers['x-auth-token'];
    if (typeof token !== 'string' || !this.tokens.has(token)) throw new OsError(401, 'error', 'The request you have made requires authentication.');
    if (action.startsWith('snapshots.')) return this.snapshotAction(action, exchange, forceInUse);
    const id = pathSegments(exchange.url.pathname, `/volume/v3/${this.projectId}/volumes/`)?.[0] ?? '';
    switch (action) {
      case 'volumes.create':
        return { status: 202, body: { volume: this.create(exchange.body) } };
      case 'volumes.list':
        return { status: 200, body: this.listBody(exchange.url.searchParams) };
      case 'volumes.get':
        return { status: 200, body: { volume: volumeJson(this.advance(this.find(id))) } };
      case 'volumes.action':
        this.act(this.find(id), JSON.parse(exchange.body.toString('utf8')) as Record<string, Record<string, unknown>>);
        return { status: 202, body: undefined };
      default:
        this.remove(this.find(id), forceInUse);
        return { status: 202, body: undefined };
    }
  }

  private snapshotAction(action: string, exchange: Exchange, forceInUse: boolean): { status: number; body: unknown } {
    const id = pathSegments(exchange.url.pathname, `/volume/v3/${this.projectId}/snapshots/`)?.[0] ?? '';
    switch (action) {
      case 'snapshots.create': {
        const request = (JSON.parse(exchange.body.toString('utf8')) as { snapshot?: Record<string, unknown> }).snapshot ?? {};
        return { status: 202, body: { snapshot: snapshotJson(this.snapshots.create(request, this.store.get(String(request.volume_id)))) } };
      }
      case 'snapshots.list':
        return { status: 200, body: { snapshots: this.snapshots.list(exchange.url.searchParams).map(snapshotJson) } };
      case 'snapshots.get':
        return { status: 200, body: { snapshot: snapshotJson(this.snapshots.get(id)) } };
      default: {
        const dependent = [...this.store.values()].find((v) => v.status === 'creating' && v.snapshotId === id);
        this.snapshots.delete(id, forceInUse ? 'volume-fault' : dependent?.id);
        return { status: 202, body: undefined };
      }
    }
  }

  /** The size and zone a volume made from `request`'s snapshot_id or source_volid starts from (400/404 as Cinder answers). */
  private sourceOf(request: Record<string, unknown>): { size: number; zone: string; snapshotId?: string; sourceVolid?: string } | undefined {
    if (typeof request.snapshot_id === 'string') {
      const snapshot = this.snapshots.usable(request.snapshot_id);
      const zone = this.store.get(snapshot.volumeId)?.availabilityZone ?? this.zones[0];
      return { size: snapshot.size, zone, snapshotId: snapshot.id };
    }
    if (typeof request.source_volid !== 'string') return undefined;
    const source = this.find(request.source_volid);
    if (!['available', 'in-use'].includes(source.status)) throw new OsError(400, 'badRequest', `Invalid volume: Source volume status must be available or in-use, but is: ${source.status}.`);
    return { size: source.size, zone: source.availabilityZone, sourceVolid: source.id };
  }

  private find(id: string): CinderVolumeRecord {
    const volume = this.store.get(id);
    if (!volume) throw new OsError(404, 'itemNotFound', `Volume ${id} could not be found.`);
    return volume;
  }

  private create(body: Buffer): CinderVolumeRecord {
    const request = (JSON.parse(body.toString('utf8')) as { volume?: Record<string, unknown> }).volume ?? {};
    const source = this.sourceOf(request);
    const zone = typeof request.availability_zone === 'string' ? request.availability_zone : (source?.zone ?? this.zones[0]);
    if (!this.zones.includes(zone)) throw new OsError(400, 'badRequest', `Availability zone '${zone}' is invalid.`);
    if (source && zone !== source.zone) throw new OsError(400, 'badRequest', `Invalid input received: Volume must be in the same availability zone as the ${source.snapshotId ? 'snapshot' : 'source volume'}`);
    const size = Number(request.size ?? source?.size);
    if (!Number.isInteger(size) || size < 1) throw new OsError(400, 'badRequest', 'Invalid input for field/attribute size.');
    if (source && size < source.size) throw new OsError(400, 'badRequest', `Invalid input received: Volume size '${size}'GB cannot be smaller than the source size ${source.size}GB.`);
    const volume = this.addVolume({
      name: String(request.name ?? ''),
      size,
      status: 'creating',
      availabilityZone: zone,
      volumeType: typeof request.volume_type === 'string' ? request.volume_type : '__DEFAULT__',
      metadata: (request.metadata ?? {}) as Record<string, string>,
      ...(source?.snapshotId === undefined ? {} : { snapshotId: source.snapshotId }),
      ...(source?.sourceVolid === undefined ? {} : { sourceVolid: source.sourceVolid }),
    });
    this.pollsLeft.set(volume.id, this.creatingPolls);
    return volume;
  }

  /** os-extend (an available volume, to a larger size) and os-retype (to a known type). */
  private act(volume: CinderVolumeRecord, body: Record<string, Record<string, unknown>>): void {
    if (volume.status !== 'available') throw new OsError(400, 'badRequest', `Invalid volume: Volume status must be available, but current status is: ${volume.status}.`);
    const extend = body['os-extend'];
    const retype = body['os-retype'];
    if (extend) {
      const size = Number(extend.new_size);
      if (!Number.isInteger(size) || size <= volume.size) {
        throw new OsError(400, 'badRequest', `Invalid input received: New size for extend must be greater than current size. (current: ${volume.size}, extended: ${String(extend.new_size)}).`);
      }
      const fails = this.extendFailures > 0 && this.extendFailures-- > 0;
      this.actions.push({ volumeId: volume.id, action: 'os-extend', value: size });
      return this.change(volume, 'extending', () => {
        if (fails) volume.status = 'error_extending';
        else volume.size = size;
      });
    }
    if (retype) {
      const type = String(retype.new_type ?? '');
      if (!this.volumeTypes.has(type)) throw new OsError(404, 'itemNotFound', `Volume type with name ${type} could not be found.`);
      const fails = this.retypeFailures > 0 && this.retypeFailures-- > 0;
      this.actions.push({ volumeId: volume.id, action: 'os-retype', value: type });
      return this.change(volume, 'retyping', () => {
        if (!fails) volume.volumeType = type;
      });
    }
    throw new OsError(400, 'badRequest', 'There is no such action');
  }

  private change(volume: CinderVolumeRecord, status: string, complete: () => void): void {
    volume.status = status;
    this.changes.set(volume.id, {
      pollsLeft: this.creatingPolls,
      complete: () => {
        volume.status = 'available';
        complete();
      },
    });
  }

  private advance(volume: CinderVolumeRecord): CinderVolumeRecord {
    const change = this.changes.get(volume.id);
    if (change && change.pollsLeft-- <= 0) {
      this.changes.delete(volume.id);
      change.complete();
    }
    if (volume.status !== 'creating') return volume;
    const left = this.pollsLeft.get(volume.id) ?? 0;
    if (left <= 0) volume.status = this.statusAfterCreate;
    else this.pollsLeft.set(volume.id, left - 1);
    return volume;
  }

  /** A page of volumes and, when more follow, the `volumes_links` next link Cinder gives. */
  private listBody(query: URLSearchParams): unknown {
    const { page, more } = this.list(query);
    const last = page.at(-1);
    const next = more && last ? { volumes_links: [{ rel: 'next', href: `${this.authUrl}/volumes/detail?marker=${last.id}` }] } : {};
    return { volumes: page.map(volumeJson), ...next };
  }

  private list(query: URLSearchParams): { page: CinderVolumeRecord[]; more: boolean } {
    const name = query.get('name');
    const metadata = query.get('metadata') ? (JSON.parse(query.get('metadata') ?? '{}') as Record<string, string>) : {};
    const limit = Math.min(Number(query.get('limit') ?? 1000), this.maxPageSize);
    const marker = query.get('marker');
    const all = [...this.store.values()]
      .filter((v) => name === null || v.name === name)
      .filter((v) => Object.entries(metadata).every(([key, value]) => v.metadata[key] === value))
      .sort((a, b) => a.id.localeCompare(b.id));
    const start = marker ? all.findIndex((v) => v.id === marker) + 1 : 0;
    return { page: all.slice(start, start + limit), more: start + limit < all.length };
  }

  private remove(volume: CinderVolumeRecord, forceInUse: boolean): void {
    const hasSnapshots = this.snapshots.all().some((snapshot) => snapshot.volumeId === volume.id);
    if (forceInUse || hasSnapshots || volume.attachedTo !== undefined || !['available', 'error'].includes(volume.status)) {
      throw new OsError(400, 'badRequest', 'Invalid volume: Volume status must be available or error or error_restoring or error_extending or error_managing and must not be migrating, attached, belong to a group, have snapshots, awaiting a transfer, or be disassociated from snapshots after volume transfer.');
    }
    this.store.delete(volume.id);
  }
}

function volumeJson(volume: CinderVolumeRecord): unknown {
  return {
    id: volume.id,
    name: volume.name,
    size: volume.size,
    status: volume.status,
    availability_zone: volume.availabilityZone,
    volume_type: volume.volumeType,
    metadata: volume.metadata,
    attachments: volume.attachedTo ? [{ server_id: volume.attachedTo, volume_id: volume.id, device: '/dev/vdb' }] : [],
    bootable: 'false',
    snapshot_id: volume.snapshotId ?? null,
    source_volid: volume.sourceVolid ?? null,
    created_at: volume.createdAt,
  };
}

function actionOf(method: string, path: string, projectId: string): string | undefined {
  if (path === '/identity/v3/auth/tokens' && method === 'POST') return 'auth';
  const parts = pathSegments(path, `/volume/v3/${projectId}/`);
  if (parts?.[0] === 'snapshots') {
    if (parts.length === 1 && method === 'POST') return 'snapshots.create';
    if (parts.length === 2 && parts[1] === 'detail' && method === 'GET') return 'snapshots.list';
    if (parts.length === 2 && method === 'GET') return 'snapshots.get';
    if (parts.length === 2 && method === 'DELETE') return 'snapshots.delete';
    return undefined;
  }
  if (!parts || parts[0] !== 'volumes') return undefined;
  if (parts.length === 1 && method === 'POST') return 'volumes.create';
  if (parts.length === 2 && parts[1] === 'detail' && method === 'GET') return 'volumes.list';
  if (parts.length === 2 && method === 'GET') return 'volumes.get';
  if (parts.length === 2 && method === 'DELETE') return 'volumes.delete';
  if (parts.length === 3 && parts[2] === 'action' && method === 'POST') return 'volumes.action';
  return undefined;
}

/** The OS_* environment of the emulator's user (what a deployment would set). */
export function openStackEnv(os: OpenStackEmulator): Record<string, string> {
  return {
    OS_AUTH_URL: os.authUrl,
    OS_USERNAME: os.username,
    OS_PASSWORD: os.password,
    OS_USER_DOMAIN_NAME: 'Default',
    OS_PROJECT_NAME: os.projectName,
    OS_PROJECT_DOMAIN_NAME: 'Default',
    OS_REGION_NAME: os.region,
  };
}
