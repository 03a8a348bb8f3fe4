/**
 * The "API server" half of the fake cluster (see fake-context.ts): objects per kind, a global
 * resourceVersion counter, and writes applied with kube-apiserver's rules — resourceVersion and
 * uid preconditions (409), 404 for missing objects, AlreadyExists on create, status reset on
 * create, `update` ignoring status and `updateStatus` ignoring everything else, no-op updates
 * that keep the resourceVersion, and deletion deferred by finalizers (deletionTimestamp).
 */
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { AlreadyExistsError, ConflictError, NotFoundError } from '@pv-controller/kube/errors.js';
import { keyOf } from '@pv-controller/kube/object-key.js';

export type FakeKind = 'PersistentVolume' | 'PersistentVolumeClaim' | 'StorageClass' | 'Pod' | 'Node' | 'Lease' | SnapshotKind;
/** The snapshot.storage.k8s.io kinds (test/controller/snapshot/fakes.ts serves them from a FakeServer of their own). */
export type SnapshotKind = 'VolumeSnapshot' | 'VolumeSnapshotContent' | 'VolumeSnapshotClass';
export type WriteVerb = 'create' | 'update' | 'updateStatus' | 'delete';

export const FAKE_KINDS: FakeKind[] = ['PersistentVolume', 'PersistentVolumeClaim', 'StorageClass', 'Pod', 'Node', 'Lease', 'VolumeSnapshot', 'VolumeSnapshotContent', 'VolumeSnapshotClass'];

export const API_VERSIONS: Record<FakeKind, string> = {
  PersistentVolume: 'v1',
  PersistentVolumeClaim: 'v1',
  StorageClass: 'storage.k8s.io/v1',
  Pod: 'v1',
  Node: 'v1',
  Lease: 'coordination.k8s.io/v1',
  VolumeSnapshot: 'snapshot.storage.k8s.io/v1',
  VolumeSnapshotContent: 'snapshot.storage.k8s.io/v1',
  VolumeSnapshotClass: 'snapshot.storage.k8s.io/v1',
};

const RESOURCES: Record<FakeKind, string> = {
  PersistentVolume: 'persistentvolumes',
  PersistentVolumeClaim: 'persistentvolumeclaims',
  StorageClass: 'storageclasses',
  Pod: 'pods',
  Node: 'nodes',
  Lease: 'leases',
  VolumeSnapshot: 'volumesnapshots',
  VolumeSnapshotContent: 'volumesnapshotcontents',
  VolumeSnapshotClass: 'volumesnapshotclasses',
};

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** Called after the server stored (obj) or removed (undefined) an object. */
export type ServerChange = (kind: FakeKind, key: string, obj: KubeObject | undefined) => void;

export interface ApplyResult {
  /** The stored object after the write; undefined when the write removed it. */
  obj: KubeObject | undefined;
  /** True when the write changed nothing (the resourceVersion did not move). */
  noop: boolean;
}

export class FakeServer {
  private rv = 100;
  private readonly objects = new Map<FakeKind, Map<string, KubeObject>>(FAKE_KINDS.map((k) => [k, new Map()]));

  constructor(
    private readonly now: () => Date,
    private readonly onChange: ServerChange,
  ) {}

  get(kind: FakeKind, key: string): KubeObject | undefined {
    return this.objects.get(kind)!.get(key);
  }

  list(kind: FakeKind): KubeObject[] {
    return [...this.objects.get(kind)!.values()];
  }

  /** Stores `obj` as given (status included), filling in uid/creationTimestamp if absent. */
  seed(kind: FakeKind, obj: KubeObject): KubeObject {
    const copy = structuredClone(obj);
    copy.kind ??= kind;
    copy.apiVersion ??= API_VERSIONS[kind];
    copy.metadata.uid ??= randomUUID();
    copy.metadata.creationTimestamp ??= this.now().toISOString();
    return this.commit(kind, copy);
  }

  apply(kind: FakeKind, verb: WriteVerb, key: string, request: KubeObject | undefined, uid?: string): ApplyResult {
    const current = this.get(kind, key);
    const id = { kind: RESOURCES[kind], name: key.split('/').pop() };
    if (verb === 'create') {
      if (current) throw new AlreadyExistsError(id);
      return { obj: this.commit(kind, this.created(kind, request!)), noop: false };
    }
    if (!current) throw new NotFoundError(id);
    const wantUid = uid ?? request?.metadata.uid;
    const wantRv = request?.metadata.resourceVersion;
    if ((wantUid && wantUid !== current.metadata.uid) || (wantRv && wantRv !== current.metadata.resourceVersion)) {
      throw new ConflictError(id);
    }
    if (verb === 'delete') return { obj: this.deleteOrMark(kind, current), noop: false };
    const next = verb === 'updateStatus' ? withStatus(current, request!) : withSpec(current, request!);
    if (canonicalJson(next) === canonicalJson(current)) return { obj: current, noop: true };
    if (next.metadata.deletionTimestamp && (next.metadata.finalizers ?? []).length === 0) {
      this.remove(kind, key);
      return { obj: undefined, noop: false };
    }
    return { obj: this.commit(kind, next), noop: false };
  }

  private created(kind: FakeKind, request: KubeObject): KubeObject {
    const created = structuredClone(request);
    created.kind = kind;
    created.apiVersion = API_VERSIONS[kind];
    created.metadata = { ...created.metadata, uid: randomUUID(), creationTimestamp: this.now().toISOString() };
    delete created.metadata.deletionTimestamp;
    // Like kube-apiserver, create ignores the status sent (PV and PVC start Pending).
    if (kind === 'PersistentVolume' || kind === 'PersistentVolumeClaim') created.status = { phase: 'Pending' };
    return created;
  }

  private deleteOrMark(kind: FakeKind, current: KubeObject): KubeObject | undefined {
    if ((current.metadata.finalizers ?? []).length > 0) {
      if (current.metadata.deletionTimestamp) return current;
      const marked = structuredClone(current);
      marked.metadata.deletionTimestamp = this.now().toISOString();
      return this.commit(kind, marked);
    }
    this.remove(kind, keyOf(current));
    return undefined;
  }

  private remove(kind: FakeKind, key: string): void {
    this.objects.get(kind)!.delete(key);
    this.onChange(kind, key, undefined);
  }

  private commit(kind: FakeKind, obj: KubeObject): KubeObject {
    obj.metadata.resourceVersion = String(++this.rv);
    this.objects.get(kind)!.set(keyOf(obj), obj);
    this.onChange(kind, keyOf(obj), obj);
    return obj;
  }
}

/** JSON with object keys sorted, so equal objects compare equal whatever their key order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** PUT of the main resource: metadata the client owns and every field but status. */
function withSpec(current: KubeObject, request: KubeObject): KubeObject {
  const next = structuredClone(current);
  const { labels, annotations, finalizers, ownerReferences } = request.metadata;
  next.metadata = { ...next.metadata, labels, annotations, finalizers, ownerReferences };
  for (const field of Object.keys(request)) {
    if (!['metadata', 'status', 'kind', 'apiVersion'].includes(field)) next[field] = structuredClone(request[field]);
  }
  return next;
}

/** PUT of the status subresource: only status changes. */
function withStatus(current: KubeObject, request: KubeObject): KubeObject {
  const next = structuredClone(current);
  next.status = structuredClone(request.status);
  return next;
}
