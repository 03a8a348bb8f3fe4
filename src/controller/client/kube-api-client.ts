/**
 * `ApiClient` (controller/context.ts) over the Kubernetes REST API. Every write carries the
 * resourceVersion of the object passed in; every successful write is recorded in the own-write
 * cache before the promise resolves, so the very next decision sees it. While a write guard says
 * "not leading", writes throw `WriteRefusedError` and are never sent.
 */
import type { ApiClient } from '../context.js';
import { isNotFound } from '../../kube/errors.js';
import type {
  CoreEvent,
  KubeObject,
  ObjectList,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  StorageClass,
} from '../../kube/types.js';
import { paths } from './paths.js';
import type { RestTransport } from './transport.js';

/** Where successful writes are recorded (the merged stores implement it). */
export interface WriteRecorder<T extends KubeObject> {
  recordWrite(obj: T): void;
  recordDelete(key: string, lastKnown?: T): void;
}

/** A write attempted while this process may not write (not the leader, or shutting down). */
export class WriteRefusedError extends Error {
  constructor(what: string, why: string) {
    super(`refused to ${what}: ${why}`);
    this.name = 'WriteRefusedError';
  }
}

export interface KubeApiClientOptions {
  volumes?: WriteRecorder<PersistentVolume>;
  claims?: WriteRecorder<PersistentVolumeClaim>;
  /** Returns undefined when writes are allowed, else the reason they are not. */
  writeGuard?: () => string | undefined;
}

const MERGE_PATCH = 'application/merge-patch+json';

export class KubeApiClient implements ApiClient {
  constructor(
    readonly transport: RestTransport,
    private readonly opts: KubeApiClientOptions = {},
  ) {}

  getVolume(name: string): Promise<PersistentVolume | undefined> {
    return this.getOrUndefined<PersistentVolume>(paths.volume(name));
  }

  getClaim(namespace: string, name: string): Promise<PersistentVolumeClaim | undefined> {
    return this.getOrUndefined<PersistentVolumeClaim>(paths.claim(namespace, name));
  }

  getStorageClass(name: string): Promise<StorageClass | undefined> {
    return this.getOrUndefined<StorageClass>(paths.storageClass(name));
  }

  async createVolume(pv: PersistentVolume): Promise<PersistentVolume> {
    this.checkWrite(`create PersistentVolume ${pv.metadata.name ?? ''}`);
    const body = withKind(pv, 'v1', 'PersistentVolume');
    const out = await this.transport.request<PersistentVolume>({ method: 'POST', verb: 'create', path: paths.volumes(), body });
    this.opts.volumes?.recordWrite(out);
    return out;
  }

  updateVolume(pv: PersistentVolume): Promise<PersistentVolume> {
    return this.putVolume(pv, '');
  }

  updateVolumeStatus(pv: PersistentVolume): Promise<PersistentVolume> {
    return this.putVolume(pv, '/status');
  }

  async deleteVolume(name: string, uid?: string): Promise<void> {
    this.checkWrite(`delete PersistentVolume ${name}`);
    const body = { apiVersion: 'v1', kind: 'DeleteOptions', ...(uid ? { preconditions: { uid } } : {}) };
    const out = await this.transport.request<KubeObject | undefined>({
      method: 'DELETE',
      verb: 'delete',
      path: paths.volume(name),
      body,
    });
    // With finalizers the object lives on (deletionTimestamp set): that is a write, not a delete.
    const stillThere = out?.kind === 'PersistentVolume' && (out.metadata.finalizers?.length ?? 0) > 0;
    if (stillThere) this.opts.volumes?.recordWrite(out as PersistentVolume);
    else this.opts.volumes?.recordDelete(name, out?.kind === 'PersistentVolume' ? (out as PersistentVolume) : undefined);
  }

  updateClaim(pvc: PersistentVolumeClaim): Promise<PersistentVolumeClaim> {
    return this.putClaim(pvc, '');
  }

  updateClaimStatus(pvc: PersistentVolumeClaim): Promise<PersistentVolumeClaim> {
    return this.putClaim(pvc, '/status');
  }

  async listPods(namespace: string): Promise<Pod[]> {
    const list = await this.transport.request<ObjectList<Pod>>({ method: 'GET', verb: 'list', path: paths.pods(namespace) });
    return list.items ?? [];
  }

  /** Creates a core/v1 Event (no own-write recording: events are not cached). */
  createEvent(ev: CoreEvent): Promise<CoreEvent> {
    const ns = ev.metadata.namespace ?? 'default';
    this.checkWrite(`create Event in ${ns}`);
    const body = withKind(ev, 'v1', 'Event');
    return this.transport.request<CoreEvent>({ method: 'POST', verb: 'create', path: paths.events(ns), body });
  }

  /** Merge-patches an existing Event (aggregation: count and lastTimestamp). */
  patchEvent(namespace: string, name: string, patch: Record<string, unknown>): Promise<CoreEvent> {
    this.checkWrite(`patch Event ${namespace}/${name}`);
    return this.transport.request<CoreEvent>({
      method: 'PATCH',
      verb: 'patch',
      path: paths.event(namespace, name),
      body: patch,
      contentType: MERGE_PATCH,
    });
  }

  private async putVolume(pv: PersistentVolume, sub: '' | '/status'): Promise<PersistentVolume> {
    const name = pv.metadata.name ?? '';
    this.checkWrite(`update PersistentVolume ${name}${sub}`);
    const body = withKind(pv, 'v1', 'PersistentVolume');
    const out = await this.transport.request<PersistentVolume>({ method: 'PUT', verb: 'update', path: paths.volume(name) + sub, body });
    record(this.opts.volumes, name, out);
    return out;
  }

  private async putClaim(pvc: PersistentVolumeClaim, sub: '' | '/status'): Promise<PersistentVolumeClaim> {
    const ns = pvc.metadata.namespace ?? '';
    const name = pvc.metadata.name ?? '';
    this.checkWrite(`update PersistentVolumeClaim ${ns}/${name}${sub}`);
    const body = withKind(pvc, 'v1', 'PersistentVolumeClaim');
    const out = await this.transport.request<PersistentVolumeClaim>({ method: 'PUT', verb: 'update', path: paths.claim(ns, name) + sub, body });
    record(this.opts.claims, `${ns}/${name}`, out);
    return out;
  }

  private async getOrUndefined<T>(path: string): Promise<T | undefined> {
    try {
      return await this.transport.request<T>({ method: 'GET', verb: 'get', path });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  private checkWrite(what: string): void {
    const why = this.opts.writeGuard?.();
    if (why !== undefined) throw new WriteRefusedError(what, why);
  }
}

/** An update that removed the last finalizer of a deleting object deleted it. */
function record<T extends KubeObject>(recorder: WriteRecorder<T> | undefined, key: string, out: T): void {
  if (!recorder) return;
  const gone = out.metadata.deletionTimestamp !== undefined && (out.metadata.finalizers?.length ?? 0) === 0;
  if (gone) recorder.recordDelete(key, out);
  else recorder.recordWrite(out);
}

function withKind<T extends KubeObject>(obj: T, apiVersion: string, kind: string): T {
  if (obj.apiVersion === apiVersion && obj.kind === kind) return obj;
  return { ...obj, apiVersion, kind };
}
