/**
 * The Cinder v3 volume calls the plugin makes, over plain `fetch` with a Keystone token. Each
 * method is one attempt bounded by its signal (a 401 re-authenticates once within it); the
 * plugin retries through cloud-common.
 */
import {
  asRecord, asString, asWholeNumber, CloudHttpError, classifyHttpError, malformedAnswer, requestJson, requireNewPageMarker,
} from '../cloud-common/http.js';
import type { ErrorVerdict } from '../cloud-common/retry.js';
import { PluginError } from '../api/errors.js';
import type { KeystoneClient } from './keystone.js';

export interface CinderVolume {
  id: string;
  name: string;
  sizeGiB: number;
  /** creating | available | in-use | deleting | error | error_deleting | ... */
  status: string;
  availabilityZone?: string;
  volumeType?: string;
  metadata: Record<string, string>;
  attachmentCount: number;
  /** What it was filled from: the snapshot (restore) or the volume (clone). */
  snapshotId?: string;
  sourceVolumeId?: string;
  /** created_at; undefined when the answer has none. */
  createdAt?: Date;
}

export interface NewCinderVolume {
  name: string;
  sizeGiB: number;
  volumeType?: string;
  availabilityZone?: string;
  metadata: Record<string, string>;
  /** Restore: the snapshot to fill it from. */
  snapshotId?: string;
  /** Clone: the volume to copy. */
  sourceVolumeId?: string;
}

/** 413 overLimit and 429 are Cinder's throttling (and quota) answers; 5xx and broken connections too. */
export const classifyCinderError: (err: unknown) => ErrorVerdict = classifyHttpError([413]);

/** Cinder wraps errors as `{"<kind>": {"code": n, "message": "..."}}`. */
function describeCinderError(_status: number, body: unknown): { message: string; reason?: string } {
  const [kind, detail] = Object.entries(asRecord(body) ?? {})[0] ?? [];
  return { message: asString(asRecord(detail)?.message) ?? 'no message', reason: kind };
}

const CINDER = 'Cinder';

function toVolume(raw: unknown): CinderVolume {
  const volume = asRecord(raw);
  const id = asString(volume?.id);
  if (!volume || !id) throw malformedAnswer(CINDER, `a volume without an id: ${JSON.stringify(raw)?.slice(0, 200)}`);
  const sizeGiB = asWholeNumber(volume.size);
  if (sizeGiB === undefined) throw malformedAnswer(CINDER, `volume ${id} with the size ${JSON.stringify(volume.size)}`);
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(asRecord(volume.metadata) ?? {})) {
    if (typeof value === 'string') metadata[key] = value;
  }
  return {
    id,
    name: asString(volume.name) ?? '',
    sizeGiB,
    status: asString(volume.status) ?? 'unknown',
    availabilityZone: asString(volume.availability_zone),
    volumeType: asString(volume.volume_type),
    metadata,
    attachmentCount: Array.isArray(volume.attachments) ? volume.attachments.length : 0,
    ...(asString(volume.snapshot_id) ? { snapshotId: asString(volume.snapshot_id) } : {}),
    ...(asString(volume.source_volid) ? { sourceVolumeId: asString(volume.source_volid) } : {}),
    ...createdField(asString(volume.created_at)),
  };
}

/** Cinder writes created_at without a zone (`2026-12-02T10:00:00.000000`): it is UTC. */
function createdField(text: string | undefined): { createdAt?: Date } {
  if (text === undefined) return {};
  const ms = Date.parse(/(Z|[+-]\d\d:?\d\d)$/.test(text) ? text : `${text}Z`);
  return Number.isNaN(ms) ? {} : { createdAt: new Date(ms) };
}

const PAGE = 500;

function hasNextLink(links: unknown): boolean {
  return Array.isArray(links) && links.some((link) => asRecord(link)?.rel === 'next');
}

export class CinderClient {
  constructor(private readonly keystone: KeystoneClient) {}

  /** One request to the volume endpoint (`path` below it) with the Keystone token, re-authenticating once on 401. */
  async call(method: string, path: string, signal: AbortSignal, body?: unknown): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      const session = await this.keystone.current(signal);
      try {
        const headers = { 'x-auth-token': session.token, 'openstack-api-version': 'volume 3.0' };
        return (await requestJson(`${session.volumeEndpoint}${path}`, { method, headers, body, signal }, describeCinderError)).body;
      } catch (err) {
        if (!(err instanceof CloudHttpError && err.status === 401) || attempt > 0) throw err;
        this.keystone.invalidate();
      }
    }
  }

  async create(volume: NewCinderVolume, signal: AbortSignal): Promise<CinderVolume> {
    const body: Record<string, unknown> = { name: volume.name, size: volume.sizeGiB, metadata: volume.metadata };
    if (volume.volumeType) body.volume_type = volume.volumeType;
    if (volume.availabilityZone) body.availability_zone = volume.availabilityZone;
    if (volume.snapshotId) body.snapshot_id = volume.snapshotId;
    if (volume.sourceVolumeId) body.source_volid = volume.sourceVolumeId;
    return toVolume(asRecord(await this.call('POST', '/volumes', signal, { volume: body }))?.volume);
  }

  async get(id: string, signal: AbortSignal): Promise<CinderVolume | undefined> {
    try {
      return toVolume(asRecord(await this.call('GET', `/volumes/${encodeURIComponent(id)}`, signal))?.volume);
    } catch (err) {
      if (err instanceof CloudHttpError && err.status === 404) return undefined;
      throw err;
    }
  }

  /** Volumes (with details) matching the name and/or metadata filters, following markers. */
  list(filter: { name?: string; metadata?: Record<string, string> }, signal: AbortSignal): Promise<CinderVolume[]> {
    const query = new URLSearchParams();
    if (filter.name !== undefined) query.set('name', filter.name);
    if (filter.metadata !== undefined) query.set('metadata', JSON.stringify(filter.metadata));
    return this.listAll('volumes', query, toVolume, signal);
  }

  /**
   * Every item of a Cinder collection (`/<kind>/detail`, `{"<kind>": [...]}`), 500 at a time,
   * following markers (a marker seen before is an error, never a loop).
   */
  async listAll<T extends { id: string }>(kind: string, filter: URLSearchParams, read: (raw: unknown) => T, signal: AbortSignal): Promise<T[]> {
    const out: T[] = [];
    const markers = new Set<string>();
    let marker: string | undefined;
    while (true) {
      const query = new URLSearchParams(filter);
      query.set('limit', String(PAGE));
      if (marker !== undefined) query.set('marker', marker);
      const answer = asRecord(await this.call('GET', `/${kind}/detail?${query}`, signal));
      const raw = answer?.[kind];
      if (!Array.isArray(raw)) throw malformedAnswer(CINDER, `a ${kind} list without a "${kind}" array: ${JSON.stringify(raw)?.slice(0, 200)}`);
      const page = raw.map(read);
      out.push(...page);
      // A server whose osapi_max_limit is below PAGE answers short pages with a next link.
      if (page.length === 0 || (page.length < PAGE && !hasNextLink(answer?.[`${kind}_links`]))) return out;
      marker = page[page.length - 1].id;
      requireNewPageMarker(CINDER, markers, marker);
    }
  }

  /** os-extend: starts growing an available volume to `sizeGiB` (202; the volume goes `extending`). */
  async extend(id: string, sizeGiB: number, signal: AbortSignal): Promise<void> {
    await this.call('POST', `/volumes/${encodeURIComponent(id)}/action`, signal, { 'os-extend': { new_size: sizeGiB } });
  }

  /** os-retype: starts changing the volume type, never migrating the data (202; the volume goes `retyping`). */
  async retype(id: string, volumeType: string, signal: AbortSignal): Promise<void> {
    await this.call('POST', `/volumes/${encodeURIComponent(id)}/action`, signal, {
      'os-retype': { new_type: volumeType, migration_policy: 'never' },
    });
  }

  /** Deletes a volume; gone is 'absent'; attached / in-use is PluginError 'InUse' (retryable). */
  async delete(id: string, signal: AbortSignal): Promise<'deleted' | 'absent'> {
    try {
      await this.call('DELETE', `/volumes/${encodeURIComponent(id)}`, signal);
      return 'deleted';
    } catch (err) {
      if (err instanceof CloudHttpError && err.status === 404) return 'absent';
      if (err instanceof CloudHttpError && err.status === 400 && /attached|in-use|status must be/i.test(err.message)) {
        throw new PluginError('InUse', `Cinder volume ${id} is in use (attached); not deleted`, true, { cause: err });
      }
      throw err;
    }
  }
}
