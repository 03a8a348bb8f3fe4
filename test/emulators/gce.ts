/**
 * A loopback Compute Engine v1 API for persistent disks: zonal and regional disks (insert, get,
 * list with a filter, delete, resize, update of the provisioned IOPS/throughput), aggregated list, zone/region operations that finish after a few
 * polls, global snapshots (gce-snapshots.ts) and disks restored from one or cloned from a disk,
 * and an OAuth2 token endpoint (refresh-token grant) so a real google-auth-library client
 * can authenticate against it. Disks are inspectable; faults are injected per action.
 */
import { randomUUID } from 'node:crypto';
import { dropConnection, type Exchange, FaultPlan, LoopbackServer, pathSegments, sendJson } from './loopback.js';
import { diskJson, gceError, type GceDiskRecord, matchesFilter } from './gce-resources.js';
import { GceSnapshotError, GceSnapshots, snapshotJson } from './gce-snapshots.js';

export type { GceDiskRecord } from './gce-resources.js';
export type { GceSnapshotRecord } from './gce-snapshots.js';

export interface GceEmulatorOptions {
  project?: string;
  zones?: string[];
  /** Operation (and disk status) polls before an insert/delete is DONE (default 1). */
  operationPolls?: number;
}

interface OperationRecord {
  name: string;
  scope: 'zones' | 'regions';
  location: string;
  pollsLeft: number;
  done: boolean;
  complete: () => void;
  error?: { code: string; message: string };
}

class GceHttpError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

export class GceEmulator {
  readonly faults = new FaultPlan();
  readonly project: string;
  readonly zones: string[];
  readonly clientId = 'emulator-client.apps.googleusercontent.com';
  readonly clientSecret = 'emulator-client-secret';
  readonly refreshToken = 'emulator-refresh-token-secret';
  /** The error code the next insert's operation ends with (e.g. QUOTA_EXCEEDED); one-shot. */
  nextInsertError: { code: string; message: string } | undefined;
  /** The errors the next resize / update operations end with, in order (the disk is left unchanged). */
  readonly resizeErrors: { code: string; message: string }[] = [];
  readonly updateErrors: { code: string; message: string }[] = [];
  /** Status a disk reaches when its insert completes (set FAILED to fail creations). */
  statusAfterCreate: 'READY' | 'FAILED' = 'READY';
  /** The most disks one aggregated list answers, whatever maxResults asks (pagination tests). */
  maxPageSize = 500;
  /** Global snapshots: inspect with `snapshots.all()`, add foreign ones with `snapshots.add()`. */
  readonly snapshots: GceSnapshots;
  /** Every Compute request's action and JSON body (the disk and snapshot calls), in order. */
  readonly requests: { action: string; body: unknown }[] = [];
  private readonly operationPolls: number;
  private readonly store = new Map<string, GceDiskRecord>();
  private readonly operations = new Map<string, OperationRecord>();
  private readonly pendingInsert = new Map<string, OperationRecord>();
  private readonly tokens = new Set<string>();
  private readonly server = new LoopbackServer((exchange) => this.handle(exchange));

  constructor(options: GceEmulatorOptions = {}) {
    this.project = options.project ?? 'emulated-project';
    this.zones = options.zones ?? ['us-central1-a', 'us-central1-b', 'us-central1-c', 'europe-west1-b'];
    this.operationPolls = options.operationPolls ?? 1;
    this.snapshots = new GceSnapshots(this.project);
  }

  get url(): string {
    return this.server.url;
  }

  /** The Compute API base the plugin's `endpoint` option takes. */
  get computeEndpoint(): string {
    return `${this.server.url}/compute/v1`;
  }

  get tokenUrl(): string {
    return `${this.server.url}/token`;
  }

  start(): Promise<string> {
    return this.server.start();
  }

  stop(): Promise<void> {
    return this.server.stop();
  }

  disks(): GceDiskRecord[] {
    return [...this.store.values()].map((disk) => structuredClone(disk));
  }

  /** Puts a disk on the backend directly (one left behind, or another cluster's). */
  addDisk(fields: Partial<GceDiskRecord> & { name: string }): GceDiskRecord {
    const disk: GceDiskRecord = {
      scope: 'zones',
      location: this.zones[0],
      sizeGb: 10,
      type: 'pd-standard',
      labels: {},
      status: 'READY',
      users: [],
      id: String(Math.floor(Math.random() * 1e15)),
      creationTimestamp: new Date().toISOString(),
      ...fields,
    };
    this.store.set(`${disk.scope}/${disk.location}/${disk.name}`, disk);
    return structuredClone(disk);
  }

  /** Attaches a disk to an instance: deletes are refused (resourceInUseByAnotherResource). */
  attach(name: string, instance = 'instance-1'): void {
    const disk = [...this.store.values()].find((d) => d.name === name);
    if (!disk) throw new Error(`no disk ${name}`);
    disk.users.push(`projects/${this.project}/zones/${disk.location}/instances/${instance}`);
  }

  /** Makes `token` valid without the token endpoint. */
  acceptToken(token: string): void {
    this.tokens.add(token);
  }

  private async handle(exchange: Exchange): Promise<void> {
    const { req, res, url } = exchange;
    if (url.pathname === '/token' && req.method === 'POST') return this.issueToken(exchange);
    if (url.pathname.startsWith('/computeMetadata/v1/')) return this.metadata(exchange);
    const parts = pathSegments(url.pathname, `/compute/v1/projects/${this.project}/`);
    const action = parts ? actionOf(req.method ?? 'GET', parts) : undefined;
    if (!parts || !action) return sendJson(res, 404, gceError(404, 'notFound', `no route ${url.pathname}`));
    this.requests.push({ action, body: exchange.body.length > 0 ? (JSON.parse(exchange.body.toString('utf8')) as unknown) : undefined });
    const fault = this.faults.take(action);
    if (fault === 'hang') return this.server.hold(res);
    if (fault === 'throttle') return sendJson(res, 429, gceError(429, 'rateLimitExceeded', 'Rate Limit Exceeded'));
    if (fault === 'serverError') return sendJson(res, 503, gceError(503, 'backendError', 'Backend Error'));
    try {
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!token || !this.tokens.has(token)) throw new GceHttpError(401, 'authError', 'Invalid Credentials');
      const body = this.perform(action, parts, exchange, fault === 'inUse');
      if (fault === 'lostResponse') return dropConnection(exchange);
      sendJson(res, 200, body);
    } catch (err) {
      if (!(err instanceof GceHttpError || err instanceof GceSnapshotError)) throw err;
      sendJson(res, err.status, gceError(err.status, err.reason, err.message));
    }
  }

  private issueToken(exchange: Exchange): void {
    const form = new URLSearchParams(exchange.body.toString('utf8'));
    const fault = this.faults.take('token');
    if (fault === 'serverError') return sendJson(exchange.res, 503, { error: 'backend_error' });
    if (form.get('grant_type') !== 'refresh_token' || form.get('refresh_token') !== this.refreshToken) {
      return sendJson(exchange.res, 400, { error: 'invalid_grant', error_description: 'Bad Request' });
    }
    const accessToken = `ya29.emulated-${randomUUID()}`;
    this.tokens.add(accessToken);
    sendJson(exchange.res, 200, { access_token: accessToken, expires_in: 3599, token_type: 'Bearer', scope: form.get('scope') ?? '' });
  }

  /** The metadata server of a VM in the first zone (`metadataHost` option = `host` of url), with a service account's token. */
  private metadata({ req, res, url }: Exchange): void {
    const values: Record<string, string> = {
      'project/project-id': this.project,
      'instance/zone': `projects/123456789/zones/${this.zones[0]}`,
    };
    const path = url.pathname.slice('/computeMetadata/v1/'.length);
    if (path === 'instance/service-accounts/default/token' && req.headers['metadata-flavor'] === 'Google') {
      // The VM's service account (google-auth-library's Compute client, GCE_METADATA_HOST).
      const accessToken = `ya29.metadata-${randomUUID()}`;
      this.tokens.add(accessToken);
      res.writeHead(200, { 'content-type': 'application/json', 'metadata-flavor': 'Google' }).end(JSON.stringify({ access_token: accessToken, expires_in: 3599, token_type: 'Bearer' }));
      return;
    }
    const value = values[path];
    if (req.headers['metadata-flavor'] !== 'Google' || value === undefined) {
      res.writeHead(req.headers['metadata-flavor'] === 'Google' ? 404 : 403).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/text', 'metadata-flavor': 'Google' }).end(value);
  }

  private perform(action: string, parts: string[], exchange: Exchange, forceInUse: boolean): unknown {
    if (action.startsWith('snapshots.')) return this.snapshotAction(action, parts[2] ?? '', exchange, forceInUse);
    const [scope, location, , name] = parts as ['zones' | 'regions', string, string, string];
    switch (action) {
      case 'disks.aggregatedList':
        return this.aggregated(exchange.url.searchParams);
      case 'disks.list':
        return { kind: 'compute#diskList', items: this.list(exchange.url.searchParams.get('filter') ?? '', scope, location).map((d) => diskJson(d, this.project)) };
      case 'disks.get':
        return diskJson(this.getDisk(scope, location, name), this.project);
      case 'disks.insert':
        return this.insert(scope, location, JSON.parse(exchange.body.toString('utf8')) as Record<string, unknown>);
      case 'disks.delete':
        return this.remove(scope, location, name, forceInUse);
      case 'disks.resize':
        return this.resize(scope, location, name, JSON.parse(exchange.body.toString('utf8')) as Record<string, unknown>);
      case 'disks.update':
        return this.update(scope, location, name, JSON.parse(exchange.body.toString('utf8')) as Record<string, unknown>,
          exchange.url.searchParams.get('updateMask') ?? '');
      default:
        return this.pollOperation(scope, location, name);
    }
  }

  private snapshotAction(action: string, name: string, exchange: Exchange, forceInUse: boolean): unknown {
    switch (action) {
      case 'snapshots.insert':
        return this.snapshots.insert(JSON.parse(exchange.body.toString('utf8')) as Record<string, unknown>, (path) => this.diskAt(path));
      case 'snapshots.list': {
        const items = this.snapshots.list(exchange.url.searchParams.get('filter') ?? '').map((s) => snapshotJson(s, this.project));
        return { kind: 'compute#snapshotList', items };
      }
      case 'snapshots.get':
        return snapshotJson(this.snapshots.get(name), this.project);
      default: {
        const handle = `projects/${this.project}/global/snapshots/${name}`;
        const restoring = [...this.store.values()].find((d) => d.status === 'CREATING' && d.sourceSnapshot === handle);
        return this.snapshots.delete(name, forceInUse ? 'disk-fault' : restoring?.name);
      }
    }
  }

  /** The disk `projects/<p>/<scope>/<where>/disks/<name>` names, if it exists. */
  private diskAt(path: string): GceDiskRecord | undefined {
    const m = /^projects\/([^/]+)\/(zones|regions)\/([^/]+)\/disks\/([^/]+)$/.exec(path);
    return m && m[1] === this.project ? this.store.get(`${m[2]}/${m[3]}/${m[4]}`) : undefined;
  }

  /** The size a new disk filled from `body`'s sourceSnapshot or sourceDisk starts from; 400/404 as Compute Engine answers. */
  private sourceOf(scope: string, location: string, body: Record<string, unknown>): { sizeGb: number; sourceSnapshot?: string; sourceDisk?: string } | undefined {
    if (typeof body.sourceSnapshot === 'string') {
      const snapshot = this.snapshots.usable(body.sourceSnapshot.split('/').pop() ?? '');
      return { sizeGb: snapshot.diskSizeGb, sourceSnapshot: body.sourceSnapshot };
    }
    if (typeof body.sourceDisk !== 'string') return undefined;
    const disk = this.diskAt(body.sourceDisk);
    if (!disk) throw new GceHttpError(404, 'notFound', `The resource '${body.sourceDisk}' was not found`);
    if (disk.scope !== scope || disk.location !== location) throw new GceHttpError(400, 'invalid', `Source disk '${body.sourceDisk}' must be in ${location}`);
    return { sizeGb: disk.sizeGb, sourceDisk: body.sourceDisk };
  }

  private list(filter: string, scope?: string, location?: string): GceDiskRecord[] {
    return [...this.store.values()]
      .filter((disk) => scope === undefined || (disk.scope === scope && disk.location === location))
      .filter((disk) => matchesFilter(disk, filter));
  }

  /** Pages of `maxResults` disks (default 500), the page token being the offset. */
  private aggregated(query: URLSearchParams): unknown {
    const all = this.list(query.get('filter') ?? '');
    const start = Number(query.get('pageToken') ?? 0);
    const size = Math.min(Number(query.get('maxResults') ?? 500), this.maxPageSize);
    const items: Record<string, { disks: unknown[] }> = {};
    for (const disk of all.slice(start, start + size)) {
      const key = `${disk.scope}/${disk.location}`;
      (items[key] ??= { disks: [] }).disks.push(diskJson(disk, this.project));
    }
    const next = start + size < all.length ? String(start + size) : undefined;
    return { kind: 'compute#diskAggregatedList', items, ...(next === undefined ? {} : { nextPageToken: next }) };
  }

  private getDisk(scope: string, location: string, name: string): GceDiskRecord {
    const disk = this.store.get(`${scope}/${location}/${name}`);
    if (!disk) throw new GceHttpError(404, 'notFound', `The resource 'projects/${this.project}/${scope}/${location}/disks/${name}' was not found`);
    const pending = this.pendingInsert.get(`${scope}/${location}/${name}`);
    if (pending) this.advance(pending);
    return disk;
  }

  private insert(scope: 'zones' | 'regions', location: string, body: Record<string, unknown>): unknown {
    const name = String(body.name ?? '');
    const key = `${scope}/${location}/${name}`;
    if (scope === 'zones' && !this.zones.includes(location)) throw new GceHttpError(400, 'invalid', `Invalid value for field 'zone': '${location}'`);
    if (this.store.has(key)) throw new GceHttpError(409, 'alreadyExists', `The resource 'projects/${this.project}/${key.replace(`/${name}`, `/disks/${name}`)}' already exists`);
    const replicaZones = Array.isArray(body.replicaZones) ? body.replicaZones.map((z) => String(z).split('/').pop() ?? '') : undefined;
    const source = this.sourceOf(scope, location, body);
    const sizeGb = Number(body.sizeGb ?? source?.sizeGb ?? 500);
    if (source && sizeGb < source.sizeGb) throw new GceHttpError(400, 'invalid', `Requested disk size ${sizeGb} GB is smaller than the source's ${source.sizeGb} GB`);
    this.addDisk({
      name, scope, location, replicaZones,
      ...(source?.sourceSnapshot === undefined ? {} : { sourceSnapshot: source.sourceSnapshot }),
      ...(source?.sourceDisk === undefined ? {} : { sourceDisk: source.sourceDisk }),
      sizeGb,
      type: String(body.type ?? 'pd-standard').split('/').pop() ?? 'pd-standard',
      description: typeof body.description === 'string' ? body.description : undefined,
      labels: (body.labels ?? {}) as Record<string, string>,
      status: 'CREATING',
      ...(body.provisionedIops === undefined ? {} : { provisionedIops: Number(body.provisionedIops) }),
      ...(body.provisionedThroughput === undefined ? {} : { provisionedThroughput: Number(body.provisionedThroughput) }),
    });
    const error = this.nextInsertError;
    this.nextInsertError = undefined;
    const op = this.operation(scope, location, () => {
      const stored = this.store.get(key);
      if (error) this.store.delete(key);
      else if (stored) stored.status = this.statusAfterCreate;
      this.pendingInsert.delete(key);
    }, error);
    this.pendingInsert.set(key, op);
    return this.operationJson(op);
  }

  private remove(scope: 'zones' | 'regions', location: string, name: string, forceInUse: boolean): unknown {
    const key = `${scope}/${location}/${name}`;
    const disk = this.getDisk(scope, location, name);
    if (forceInUse || disk.users.length > 0) {
      throw new GceHttpError(400, 'resourceInUseByAnotherResource', `The disk resource '${key}' is already being used by '${disk.users[0] ?? 'instance-x'}'`);
    }
    disk.status = 'DELETING';
    return this.operationJson(this.operation(scope, location, () => this.store.delete(key)));
  }

  /** disks.resize: the size may only grow, as Compute Engine refuses a smaller one (400). */
  private resize(scope: 'zones' | 'regions', location: string, name: string, body: Record<string, unknown>): unknown {
    const disk = this.getDisk(scope, location, name);
    const sizeGb = Number(body.sizeGb);
    if (!Number.isInteger(sizeGb) || sizeGb <= disk.sizeGb) {
      throw new GceHttpError(400, 'invalid', `Invalid value for field 'sizeGb': '${String(body.sizeGb)}'. New disk size '${String(body.sizeGb)}' GB must be larger than existing size '${disk.sizeGb}' GB.`);
    }
    const error = this.resizeErrors.shift();
    return this.operationJson(this.operation(scope, location, () => {
      if (!error) disk.sizeGb = sizeGb;
    }, error));
  }

  /** disks.update of the fields its updateMask names (provisionedIops, provisionedThroughput). */
  private update(scope: 'zones' | 'regions', location: string, name: string, body: Record<string, unknown>, mask: string): unknown {
    const disk = this.getDisk(scope, location, name);
    const fields = mask.split(',').filter(Boolean);
    const unknown = fields.filter((field) => field !== 'provisionedIops' && field !== 'provisionedThroughput');
    if (fields.length === 0 || unknown.length > 0) throw new GceHttpError(400, 'invalid', `Invalid value for field 'updateMask': '${mask}'`);
    const error = this.updateErrors.shift();
    return this.operationJson(this.operation(scope, location, () => {
      if (error) return;
      if (fields.includes('provisionedIops')) disk.provisionedIops = Number(body.provisionedIops);
      if (fields.includes('provisionedThroughput')) disk.provisionedThroughput = Number(body.provisionedThroughput);
    }, error));
  }

  private operation(scope: 'zones' | 'regions', location: string, complete: () => void, error?: OperationRecord['error']): OperationRecord {
    const op: OperationRecord = { name: `operation-${randomUUID()}`, scope, location, pollsLeft: this.operationPolls, done: false, complete, error };
    this.operations.set(op.name, op);
    if (op.pollsLeft <= 0) this.advance(op);
    return op;
  }

  private advance(op: OperationRecord): void {
    if (op.done) return;
    if (op.pollsLeft > 0) {
      op.pollsLeft--;
      return;
    }
    op.done = true;
    op.complete();
  }

  private pollOperation(scope: string, location: string, name: string): unknown {
    const op = this.operations.get(name);
    if (!op || op.scope !== scope || op.location !== location) throw new GceHttpError(404, 'notFound', `operation ${name} not found`);
    this.advance(op);
    return this.operationJson(op);
  }

  private operationJson(op: OperationRecord): unknown {
    const json: Record<string, unknown> = { kind: 'compute#operation', name: op.name, status: op.done ? 'DONE' : 'RUNNING' };
    json[op.scope === 'zones' ? 'zone' : 'region'] = `projects/${this.project}/${op.scope}/${op.location}`;
    if (op.done && op.error) json.error = { errors: [op.error] };
    return json;
  }
}

function actionOf(method: string, parts: string[]): string | undefined {
  if (parts[0] === 'global' && parts[1] === 'snapshots') {
    if (parts.length === 2) return method === 'POST' ? 'snapshots.insert' : method === 'GET' ? 'snapshots.list' : undefined;
    if (parts.length === 3) return method === 'GET' ? 'snapshots.get' : method === 'DELETE' ? 'snapshots.delete' : undefined;
    return undefined;
  }
  if (parts[0] === 'aggregated' && parts[1] === 'disks' && parts.length === 2 && method === 'GET') return 'disks.aggregatedList';
  if (parts[0] !== 'zones' && parts[0] !== 'regions') return undefined;
  if (parts[2] === 'operations' && parts.length === 4 && method === 'GET') return 'operations.get';
  if (parts[2] !== 'disks') return undefined;
  if (parts.length === 3) return method === 'POST' ? 'disks.insert' : method === 'GET' ? 'disks.list' : undefined;
  if (parts.length === 4) {
    return method === 'DELETE' ? 'disks.delete' : method === 'GET' ? 'disks.get' : method === 'PATCH' ? 'disks.update' : undefined;
  }
  if (parts.length === 5 && parts[4] === 'resize' && method === 'POST') return 'disks.resize';
  return undefined;
}
