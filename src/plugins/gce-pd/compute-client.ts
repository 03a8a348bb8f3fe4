/**
 * The Compute Engine v1 disk calls the plugin makes: plain `fetch` to the REST API with the
 * Authorization header google-auth-library computes. Each method is one attempt bounded by its
 * signal; the plugin retries them through cloud-common.
 */
import {
  asRecord, asString, asWholeNumber, CloudHttpError, classifyHttpError, malformedAnswer, requestJson, requireNewPageMarker,
} from '../cloud-common/http.js';
import type { ErrorVerdict } from '../cloud-common/retry.js';
import { PluginError } from '../api/errors.js';

export const DEFAULT_COMPUTE_ENDPOINT = 'https://compute.googleapis.com/compute/v1';

/** Anything that yields request headers: a google-auth-library AuthClient or GoogleAuth. */
export interface GceAuth {
  getRequestHeaders(url?: string): Promise<Headers>;
}

/** A zone (zonal disks) or a region (regional disks). */
export interface GceLocation {
  scope: 'zones' | 'regions';
  name: string;
}

export interface GceDisk {
  name: string;
  location: GceLocation;
  sizeGb: number;
  /** CREATING | RESTORING | FAILED | READY | DELETING */
  status: string;
  description?: string;
  labels: Record<string, string>;
  /** Instances the disk is attached to. */
  users: string[];
  /** The zones the disk lives in (its zone, or a regional disk's replica zones). */
  zones: string[];
  provisionedIops?: number;
  /** MiB/s. */
  provisionedThroughput?: number;
  /** What it was filled from: `projects/<p>/global/snapshots/<name>` or `projects/<p>/<scope>/<where>/disks/<name>`. */
  source?: string;
  /** creationTimestamp (RFC 3339); undefined when the answer has none. */
  createdAt?: Date;
}

/** The performance a disk is provisioned with (hyperdisk, pd-extreme). */
export interface GcePerformance {
  provisionedIops?: number;
  provisionedThroughput?: number;
}

export interface GceOperation {
  name: string;
  status: string;
  location: GceLocation;
  errorCodes: string[];
  errorMessage?: string;
}

export interface NewGceDisk {
  name: string;
  sizeGb: number;
  type: string;
  description: string;
  labels: Record<string, string>;
  /** Regional disks only: the two zones. */
  replicaZones?: string[];
  performance?: GcePerformance;
  /** Restore: `projects/<p>/global/snapshots/<name>`. */
  sourceSnapshot?: string;
  /** Clone: `projects/<p>/<scope>/<where>/disks/<name>`, of the same zone. */
  sourceDisk?: string;
}

/** A Compute resource URL (`https://…/compute/v1/projects/p/…`) as the relative name `projects/p/…`; '' for none. */
export function resourcePath(url: unknown): string {
  const text = asString(url) ?? '';
  const at = text.indexOf('projects/');
  return at < 0 ? '' : text.slice(at);
}

const THROTTLE_REASONS = new Set(['rateLimitExceeded', 'userRateLimitExceeded']);
const IN_USE_REASON = 'resourceInUseByAnotherResource';

/** Throttling (429, 403 rateLimitExceeded), 5xx and broken connections are retried. */
export function classifyGceError(err: unknown): ErrorVerdict {
  if (err instanceof CloudHttpError && err.reason !== undefined && THROTTLE_REASONS.has(err.reason)) return 'retry';
  return classifyHttpError()(err);
}

function describeGceError(_status: number, body: unknown): { message: string; reason?: string } {
  const error = asRecord(asRecord(body)?.error);
  const first = Array.isArray(error?.errors) ? asRecord(error.errors[0]) : undefined;
  return { message: asString(error?.message) ?? 'no message', reason: asString(first?.reason) };
}

function lastSegment(url: unknown): string {
  const text = asString(url) ?? '';
  return text.slice(text.lastIndexOf('/') + 1);
}

const COMPUTE = 'the Compute API';

function toDisk(raw: unknown): GceDisk {
  const disk = asRecord(raw);
  const name = asString(disk?.name);
  if (!disk || !name) throw malformedAnswer(COMPUTE, `a disk without a name: ${JSON.stringify(raw)?.slice(0, 200)}`);
  const sizeGb = asWholeNumber(disk.sizeGb);
  if (sizeGb === undefined) throw malformedAnswer(COMPUTE, `disk ${name} with the size ${JSON.stringify(disk.sizeGb)}`);
  const zone = asString(disk.zone);
  const replicaZones = Array.isArray(disk.replicaZones) ? disk.replicaZones.map(lastSegment) : [];
  const location: GceLocation = zone
    ? { scope: 'zones', name: lastSegment(zone) }
    : { scope: 'regions', name: lastSegment(disk.region) };
  const labels: Record<string, string> = {};
  for (const [key, value] of Object.entries(asRecord(disk.labels) ?? {})) {
    if (typeof value === 'string') labels[key] = value;
  }
  return {
    name,
    location,
    sizeGb,
    status: asString(disk.status) ?? 'UNKNOWN',
    description: asString(disk.description),
    labels,
    users: Array.isArray(disk.users) ? disk.users.map((user) => String(user)) : [],
    zones: zone ? [location.name] : replicaZones,
    ...(disk.provisionedIops === undefined ? {} : { provisionedIops: Number(disk.provisionedIops) }),
    ...(disk.provisionedThroughput === undefined ? {} : { provisionedThroughput: Number(disk.provisionedThroughput) }),
    ...(resourcePath(disk.sourceSnapshot ?? disk.sourceDisk) === '' ? {} : { source: resourcePath(disk.sourceSnapshot ?? disk.sourceDisk) }),
    ...createdField(asString(disk.creationTimestamp)),
  };
}

function createdField(text: string | undefined): { createdAt?: Date } {
  const ms = Date.parse(text ?? '');
  return Number.isNaN(ms) ? {} : { createdAt: new Date(ms) };
}

/** The performance fields as the API takes them (int64 as strings). */
function performanceBody(performance: GcePerformance | undefined): Record<string, string> {
  const body: Record<string, string> = {};
  if (performance?.provisionedIops !== undefined) body.provisionedIops = String(performance.provisionedIops);
  if (performance?.provisionedThroughput !== undefined) body.provisionedThroughput = String(performance.provisionedThroughput);
  return body;
}

function toOperation(raw: unknown, location: GceLocation): GceOperation {
  const op = asRecord(raw);
  const name = asString(op?.name);
  if (!op || !name) throw malformedAnswer(COMPUTE, `an operation without a name: ${JSON.stringify(raw)?.slice(0, 200)}`);
  const errors = asRecord(op.error)?.errors;
  const list = Array.isArray(errors) ? errors.map((e) => asRecord(e) ?? {}) : [];
  return {
    name,
    status: asString(op.status) ?? 'UNKNOWN',
    location,
    errorCodes: list.map((e) => asString(e.code) ?? 'UNKNOWN'),
    errorMessage: list.length > 0 ? list.map((e) => asString(e.message) ?? '').join('; ') : undefined,
  };
}

export class ComputeClient {
  constructor(
    private readonly endpoint: string,
    private readonly auth: GceAuth,
  ) {}

  /** One authenticated request to the Compute API (`path` below the endpoint); the parsed JSON answer. */
  async call(method: string, path: string, signal: AbortSignal, body?: unknown): Promise<unknown> {
    const url = `${this.endpoint.replace(/\/$/, '')}${path}`;
    const authHeaders = await this.auth.getRequestHeaders(url);
    const headers: Record<string, string> = {};
    authHeaders.forEach((value, key) => (headers[key] = value));
    const response = await requestJson(url, { method, headers, body, signal }, describeGceError);
    return response.body;
  }

  private base(project: string, location: GceLocation): string {
    return `/projects/${encodeURIComponent(project)}/${location.scope}/${encodeURIComponent(location.name)}`;
  }

  async getDisk(project: string, location: GceLocation, name: string, signal: AbortSignal): Promise<GceDisk | undefined> {
    try {
      return toDisk(await this.call('GET', `${this.base(project, location)}/disks/${encodeURIComponent(name)}`, signal));
    } catch (err) {
      if (err instanceof CloudHttpError && err.status === 404) return undefined;
      throw err;
    }
  }

  async insertDisk(
    project: string,
    location: GceLocation,
    disk: NewGceDisk,
    requestId: string,
    signal: AbortSignal,
  ): Promise<GceOperation> {
    const typePath = `${location.scope}/${location.name}/diskTypes/${disk.type}`;
    const body: Record<string, unknown> = {
      name: disk.name,
      sizeGb: String(disk.sizeGb),
      type: `projects/${project}/${typePath}`,
      description: disk.description,
      labels: disk.labels,
      ...performanceBody(disk.performance),
    };
    if (disk.replicaZones) body.replicaZones = disk.replicaZones.map((zone) => `projects/${project}/zones/${zone}`);
    if (disk.sourceSnapshot) body.sourceSnapshot = disk.sourceSnapshot;
    if (disk.sourceDisk) body.sourceDisk = disk.sourceDisk;
    const path = `${this.base(project, location)}/disks?requestId=${encodeURIComponent(requestId)}`;
    return toOperation(await this.call('POST', path, signal, body), location);
  }

  /**
   * Starts deleting a disk; undefined when it does not exist. A disk attached to an instance is
   * PluginError 'InUse' (retryable).
   */
  async deleteDisk(project: string, location: GceLocation, name: string, signal: AbortSignal): Promise<GceOperation | undefined> {
    try {
      const raw = await this.call('DELETE', `${this.base(project, location)}/disks/${encodeURIComponent(name)}`, signal);
      return toOperation(raw, location);
    } catch (err) {
      if (err instanceof CloudHttpError && err.status === 404) return undefined;
      if (err instanceof CloudHttpError && err.reason === IN_USE_REASON) {
        throw new PluginError('InUse', `GCE disk ${name} is in use (attached to an instance); not deleted`, true, { cause: err });
      }
      throw err;
    }
  }

  /** disks.resize: starts growing a disk to `sizeGb`. */
  async resizeDisk(project: string, location: GceLocation, name: string, sizeGb: number, signal: AbortSignal): Promise<GceOperation> {
    const path = `${this.base(project, location)}/disks/${encodeURIComponent(name)}/resize`;
    return toOperation(await this.call('POST', path, signal, { sizeGb: String(sizeGb) }), location);
  }

  /** disks.update: starts changing the provisioned IOPS / throughput of a disk. */
  async updateDisk(project: string, location: GceLocation, name: string, performance: GcePerformance, signal: AbortSignal): Promise<GceOperation> {
    const body = performanceBody(performance);
    const query = new URLSearchParams({ updateMask: Object.keys(body).join(',') });
    const path = `${this.base(project, location)}/disks/${encodeURIComponent(name)}?${query}`;
    return toOperation(await this.call('PATCH', path, signal, { name, ...body }), location);
  }

  async getOperation(project: string, op: GceOperation, signal: AbortSignal): Promise<GceOperation> {
    const path = `${this.base(project, op.location)}/operations/${encodeURIComponent(op.name)}`;
    return toOperation(await this.call('GET', path, signal), op.location);
  }

  /** Disks in every zone and region of the project matching a list filter, following pages. */
  async aggregatedDisks(project: string, filter: string | undefined, signal: AbortSignal): Promise<GceDisk[]> {
    const disks: GceDisk[] = [];
    const tokens = new Set<string>();
    let pageToken: string | undefined;
    do {
      const query = new URLSearchParams({ maxResults: '500' });
      if (filter) query.set('filter', filter);
      if (pageToken) query.set('pageToken', pageToken);
      const page = asRecord(await this.call('GET', `/projects/${encodeURIComponent(project)}/aggregated/disks?${query}`, signal));
      for (const scoped of Object.values(asRecord(page?.items) ?? {})) {
        const list = asRecord(scoped)?.disks;
        if (Array.isArray(list)) disks.push(...list.map(toDisk));
      }
      pageToken = asString(page?.nextPageToken);
      if (pageToken) requireNewPageMarker(COMPUTE, tokens, pageToken);
    } while (pageToken);
    return disks;
  }
}
