/**
 * Every API call the controller's decisions make (it satisfies controller/runtime/context.ts's
 * `ApiClient`), through RestTransport, i.e. client-node's Configuration
 * (credentials, shared keep-alive agent, HTTP library) plus rate limiter, counters and typed
 * errors. GETs, creates and PUTs of PVs, claims, classes and events go by path as plain JSON;
 * the rest (delete, list, event patch) through client-node's generated `CoreV1Api`, converted
 * to plain JSON at the edge (model-json.ts). Every
 * write carries the resourceVersion of the object passed in; every successful write is recorded
 * in the own-write cache before the promise resolves, so the very next decision sees it. While a
 * write guard says "not leading", writes throw `WriteRefusedError` and are never sent.
 * Speed against a bare keep-alive client: see the measurements atop shared-agent-auth.ts.
 */
import {
  PatchStrategy,
  setHeaderOptions,
  type V1DeleteOptions,
} from '@kubernetes/client-node';
import { isNotFound } from '@pv-controller/kube/errors.js';
import type { CoreEvent, KubeObject, Lease, Node, PersistentVolume, PersistentVolumeClaim, Pod, StorageClass, VolumeAttributesClass } from '@pv-controller/kube/types.js';
import { toPlain } from './model-json.js';
import { paths } from './paths.js';
import type { KubeVerb } from './request-counters.js';
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

const MERGE_PATCH = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export class KubeApiClient {
  constructor(
    readonly transport: RestTransport,
    private readonly opts: KubeApiClientOptions = {},
  ) {}

  // Reads, creates and the PUTs go by path as plain JSON through the transport (auth, shared
  // agent, limiter, counters, error mapping): the generated calls' ObjectSerializer round trip
  // (model in, model out, toPlain) costs ~11% of the controller's busy CPU in the bind bench and
  // ~3-6% while provisioning. The server's JSON comes back as is, the form the informers store.
  getVolume(name: string): Promise<PersistentVolume | undefined> {
    return this.getJson(`GET PersistentVolume ${name}`, paths.volume(name));
  }

  getClaim(namespace: string, name: string): Promise<PersistentVolumeClaim | undefined> {
    return this.getJson(`GET PersistentVolumeClaim ${namespace}/${name}`, paths.claim(namespace, name));
  }

  getStorageClass(name: string): Promise<StorageClass | undefined> {
    return this.getJson(`GET StorageClass ${name}`, paths.storageClass(name));
  }

  getVolumeAttributesClass(name: string): Promise<VolumeAttributesClass | undefined> {
    return this.getJson(`GET VolumeAttributesClass ${name}`, paths.volumeAttributesClass(name));
  }

  getNode(name: string): Promise<Node | undefined> {
    return this.getJson(`GET Node ${name}`, paths.node(name));
  }

  async createVolume(pv: PersistentVolume): Promise<PersistentVolume> {
    const what = `create PersistentVolume ${pv.metadata.name ?? ''}`;
    const out = await this.sendJson<PersistentVolume>('POST', 'create', what, paths.volumes(), withKind(pv, 'v1', 'PersistentVolume'));
    this.opts.volumes?.recordWrite(out);
    return out;
  }

  updateVolume(pv: PersistentVolume): Promise<PersistentVolume> {
    return this.putVolume(pv, false);
  }

  updateVolumeStatus(pv: PersistentVolume): Promise<PersistentVolume> {
    return this.putVolume(pv, true);
  }

  deleteVolume(name: string, uid?: string): Promise<void> {
    return this.deleteRecorded('PersistentVolume', name, this.opts.volumes, uid, (body) => this.core.deletePersistentVolume({ name, body }));
  }

  updateClaim(pvc: PersistentVolumeClaim): Promise<PersistentVolumeClaim> {
    return this.putClaim(pvc, false);
  }

  updateClaimStatus(pvc: PersistentVolumeClaim): Promise<PersistentVolumeClaim> {
    return this.putClaim(pvc, true);
  }

  async createClaim(pvc: PersistentVolumeClaim): Promise<PersistentVolumeClaim> {
    const namespace = pvc.metadata.namespace ?? '';
    const what = `create PersistentVolumeClaim ${namespace}/${pvc.metadata.name ?? ''}`;
    const out = await this.sendJson<PersistentVolumeClaim>('POST', 'create', what, paths.claims(namespace), withKind(pvc, 'v1', 'PersistentVolumeClaim'));
    this.opts.claims?.recordWrite(out);
    return out;
  }

  deleteClaim(namespace: string, name: string, uid?: string): Promise<void> {
    return this.deleteRecorded('PersistentVolumeClaim', `${namespace}/${name}`, this.opts.claims, uid, (body) =>
      this.core.deleteNamespacedPersistentVolumeClaim({ namespace, name, body }),
    );
  }

  async listPods(namespace: string): Promise<Pod[]> {
    const list = await this.transport.call('list', `LIST Pods in ${namespace}`, () => this.core.listNamespacedPod({ namespace }));
    return list.items.map((pod) => toPlain<Pod>(pod));
  }

  /** Leases in `namespace` carrying `labelSelector` (the controller's own records, e.g. node-gone's). */
  async listLeases(namespace: string, labelSelector: string): Promise<Lease[]> {
    const path = `${paths.leases(namespace)}?labelSelector=${encodeURIComponent(labelSelector)}`;
    const list = await this.transport.request<{ items?: Lease[] }>({ method: 'GET', verb: 'list', path, what: `LIST Leases in ${namespace}` });
    return list.items ?? [];
  }

  createLease(lease: Lease): Promise<Lease> {
    const namespace = lease.metadata.namespace ?? '';
    const what = `create Lease ${namespace}/${lease.metadata.name ?? ''}`;
    return this.sendJson('POST', 'create', what, paths.leases(namespace), withKind(lease, 'coordination.k8s.io/v1', 'Lease'));
  }

  updateLease(lease: Lease): Promise<Lease> {
    const namespace = lease.metadata.namespace ?? '';
    const name = lease.metadata.name ?? '';
    return this.sendJson('PUT', 'update', `update Lease ${namespace}/${name}`, paths.lease(namespace, name), withKind(lease, 'coordination.k8s.io/v1', 'Lease'));
  }

  async deleteLease(namespace: string, name: string, uid?: string): Promise<void> {
    const body: V1DeleteOptions = { apiVersion: 'v1', kind: 'DeleteOptions', ...(uid ? { preconditions: { uid } } : {}) };
    await this.write('delete', `delete Lease ${namespace}/${name}`, () => this.transport.coordination.deleteNamespacedLease({ namespace, name, body }));
  }

  /** Creates a core/v1 Event (no own-write recording: events are not cached). */
  createEvent(ev: CoreEvent): Promise<CoreEvent> {
    const namespace = ev.metadata.namespace ?? 'default';
    return this.sendJson('POST', 'create', `create Event in ${namespace}`, paths.events(namespace), withKind(ev, 'v1', 'Event'));
  }

  /** Merge-patches an existing Event (aggregation: count and lastTimestamp). */
  patchEvent(namespace: string, name: string, patch: Record<string, unknown>): Promise<CoreEvent> {
    return this.write('patch', `patch Event ${namespace}/${name}`, () =>
      this.core.patchNamespacedEvent({ namespace, name, body: patch }, MERGE_PATCH),
    );
  }

  private get core(): RestTransport['core'] {
    return this.transport.core;
  }

  private async putVolume(pv: PersistentVolume, status: boolean): Promise<PersistentVolume> {
    const name = pv.metadata.name ?? '';
    const what = `update PersistentVolume ${name}${status ? '/status' : ''}`;
    const path = `${paths.volume(name)}${status ? '/status' : ''}`;
    const out = await this.sendJson<PersistentVolume>('PUT', 'update', what, path, withKind(pv, 'v1', 'PersistentVolume'));
    record(this.opts.volumes, name, out);
    return out;
  }

  private async putClaim(pvc: PersistentVolumeClaim, status: boolean): Promise<PersistentVolumeClaim> {
    const namespace = pvc.metadata.namespace ?? '';
    const name = pvc.metadata.name ?? '';
    const what = `update PersistentVolumeClaim ${namespace}/${name}${status ? '/status' : ''}`;
    const path = `${paths.claim(namespace, name)}${status ? '/status' : ''}`;
    const out = await this.sendJson<PersistentVolumeClaim>('PUT', 'update', what, path, withKind(pvc, 'v1', 'PersistentVolumeClaim'));
    record(this.opts.claims, `${namespace}/${name}`, out);
    return out;
  }

  /** A write of plain JSON by path, refused unless the write guard allows it. */
  private sendJson<T>(method: 'PUT' | 'POST', verb: KubeVerb, what: string, path: string, body: KubeObject): Promise<T> {
    const why = this.opts.writeGuard?.();
    if (why !== undefined) return Promise.reject(new WriteRefusedError(what, why));
    return this.transport.request<T>({ method, verb, path, body, what });
  }

  /** A live GET of plain JSON by path; undefined when the object does not exist. */
  private async getJson<T>(what: string, path: string): Promise<T | undefined> {
    try {
      return await this.transport.request<T>({ method: 'GET', verb: 'get', path, what });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** A DELETE (uid precondition when given) whose answer is recorded in the own-write cache. */
  private async deleteRecorded<T extends KubeObject>(
    kind: string,
    key: string,
    recorder: WriteRecorder<T> | undefined,
    uid: string | undefined,
    send: (body: V1DeleteOptions) => Promise<object>,
  ): Promise<void> {
    const body: V1DeleteOptions = { apiVersion: 'v1', kind: 'DeleteOptions', ...(uid ? { preconditions: { uid } } : {}) };
    const out = await this.write<KubeObject | undefined>('delete', `delete ${kind} ${key}`, () => send(body));
    // With finalizers the object lives on (deletionTimestamp set): that is a write, not a delete.
    const same = out?.kind === kind;
    if (same && (out.metadata.finalizers?.length ?? 0) > 0) recorder?.recordWrite(out as T);
    else recorder?.recordDelete(key, same ? (out as T) : undefined);
  }

  /** A write: refused unless the guard allows it, then sent and returned as plain JSON. */
  private async write<T>(verb: KubeVerb, what: string, send: () => Promise<object>): Promise<T> {
    const why = this.opts.writeGuard?.();
    if (why !== undefined) throw new WriteRefusedError(what, why);
    return toPlain<T>(await this.transport.call(verb, what, send));
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
