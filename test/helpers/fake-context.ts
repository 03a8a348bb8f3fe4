/**
 * An in-memory ControllerContext for decision-code tests (binder, provisioner, reclaimer).
 *
 * Two layers, like a real controller: the *server* (what the API holds; every write is checked
 * against its resourceVersion and uid preconditions and answers 404/409 like kube-apiserver)
 * and the *cache* (what `ctx.volumes/claims/classes/pods` return; follows the server after each
 * successful write unless paused, and can be set to any older copy to simulate lag).
 * Every write attempt, read and event is recorded. Faults: fail the next N writes matching a
 * pattern, or hold a write in flight until the test releases it. Objects handed out are deep-
 * frozen copies, so code that mutates what it read fails loudly.
 */
import { randomUUID } from 'node:crypto';
import type {
  KubeObject,
  PersistentVolume,
  PersistentVolumeClaim,
  Pod,
  StorageClass,
} from '../../src/kube/types.js';
import { ConflictError, InternalError, NotFoundError, AlreadyExistsError } from '../../src/kube/errors.js';
import {
  keyOf,
  type ApiClient,
  type ControllerContext,
  type EventType,
  type ObjectStore,
} from '../../src/controller/context.js';

export type FakeKind = 'PersistentVolume' | 'PersistentVolumeClaim' | 'StorageClass' | 'Pod';
export type WriteVerb = 'create' | 'update' | 'updateStatus' | 'delete';
export type WriteOutcome = 'ok' | 'noop' | 'conflict' | 'notFound' | 'alreadyExists' | 'injected';

export interface WriteRecord {
  seq: number;
  kind: FakeKind;
  verb: WriteVerb;
  key: string;
  /** What the caller sent (for delete: undefined). */
  request?: KubeObject;
  /** What the server holds afterwards (undefined when deleted or failed). */
  result?: KubeObject;
  outcome?: WriteOutcome;
}

export interface RecordedEvent {
  kind: string;
  key: string;
  type: EventType;
  reason: string;
  message: string;
  at: Date;
}

export interface WriteMatcher {
  kind?: FakeKind;
  verb?: WriteVerb;
  key?: string;
}

export interface WriteHold {
  /** Resolves when a matching write arrives (it then waits for `release`). */
  reached: Promise<WriteRecord>;
  release(): void;
}

type CacheListener = (kind: FakeKind, key: string, obj: KubeObject | undefined) => void;

const API_VERSIONS: Record<FakeKind, string> = {
  PersistentVolume: 'v1',
  PersistentVolumeClaim: 'v1',
  StorageClass: 'storage.k8s.io/v1',
  Pod: 'v1',
};

const RESOURCES: Record<FakeKind, string> = {
  PersistentVolume: 'persistentvolumes',
  PersistentVolumeClaim: 'persistentvolumeclaims',
  StorageClass: 'storageclasses',
  Pod: 'pods',
};

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

function matches(m: WriteMatcher, r: WriteRecord): boolean {
  return (!m.kind || m.kind === r.kind) && (!m.verb || m.verb === r.verb) && (!m.key || m.key === r.key);
}

function rvNumber(obj: KubeObject | undefined): number {
  return Number.parseInt(obj?.metadata.resourceVersion ?? '0', 10) || 0;
}

/** A settable clock; starts at a fixed instant so tests are reproducible. */
export class FakeClock {
  private t: number;
  constructor(start = new Date('2024-01-01T00:00:00Z')) {
    this.t = start.getTime();
  }
  now(): Date {
    return new Date(this.t);
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export class FakeCluster {
  readonly clock: FakeClock;
  readonly writes: WriteRecord[] = [];
  readonly reads: { kind: FakeKind; key: string }[] = [];
  readonly events: RecordedEvent[] = [];
  readonly enqueuedClaims: string[] = [];
  readonly enqueuedVolumes: string[] = [];
  readonly ctx: ControllerContext;

  private rv = 100;
  private readonly server = new Map<FakeKind, Map<string, KubeObject>>();
  private readonly cache = new Map<FakeKind, Map<string, KubeObject>>();
  private readonly pausedCache = new Set<FakeKind>();
  private readonly listeners: CacheListener[] = [];
  private readonly failures: { match: WriteMatcher; left: number; error: () => Error }[] = [];
  private readonly holds: { match: WriteMatcher; arrived: (r: WriteRecord) => void; gate: Promise<void> }[] = [];

  constructor(options: { clock?: FakeClock } = {}) {
    this.clock = options.clock ?? new FakeClock();
    for (const kind of Object.keys(RESOURCES) as FakeKind[]) {
      this.server.set(kind, new Map());
      this.cache.set(kind, new Map());
    }
    this.ctx = {
      volumes: this.store<PersistentVolume>('PersistentVolume'),
      claims: this.store<PersistentVolumeClaim>('PersistentVolumeClaim'),
      classes: this.store<StorageClass>('StorageClass'),
      pods: this.store<Pod>('Pod'),
      api: this.apiClient(),
      events: { event: (obj, type, reason, message) => this.recordEvent(obj, type, reason, message) },
      enqueueClaim: (key) => void this.enqueuedClaims.push(key),
      enqueueVolume: (name) => void this.enqueuedVolumes.push(name),
      now: () => this.clock.now(),
    };
  }

  // ---- seeding: objects created directly on the server and in the cache -------------------

  addVolume(pv: PersistentVolume): PersistentVolume {
    return this.seed('PersistentVolume', pv);
  }
  addClaim(pvc: PersistentVolumeClaim): PersistentVolumeClaim {
    return this.seed('PersistentVolumeClaim', pvc);
  }
  addClass(sc: StorageClass): StorageClass {
    return this.seed('StorageClass', sc);
  }
  addPod(pod: Pod): Pod {
    return this.seed('Pod', pod);
  }

  /** Stores `obj` as given (status included), assigning uid/resourceVersion/creationTimestamp if absent. */
  seed<T extends KubeObject>(kind: FakeKind, obj: T): T {
    const copy = structuredClone(obj);
    copy.kind ??= kind;
    copy.apiVersion ??= API_VERSIONS[kind];
    copy.metadata.uid ??= randomUUID();
    copy.metadata.creationTimestamp ??= this.clock.now().toISOString();
    copy.metadata.resourceVersion = String(++this.rv);
    this.server.get(kind)!.set(keyOf(copy), copy);
    this.putCache(kind, copy);
    return deepFreeze(structuredClone(copy));
  }

  /** The server's copy (what a live GET returns), not recorded as a read. */
  serverCopy<T extends KubeObject>(kind: FakeKind, key: string): T | undefined {
    const obj = this.server.get(kind)!.get(key);
    return obj ? deepFreeze(structuredClone(obj) as T) : undefined;
  }
  volume(name: string): PersistentVolume | undefined {
    return this.serverCopy('PersistentVolume', name);
  }
  claim(key: string): PersistentVolumeClaim | undefined {
    return this.serverCopy('PersistentVolumeClaim', key);
  }
  serverList<T extends KubeObject>(kind: FakeKind): T[] {
    return [...this.server.get(kind)!.values()].map((o) => deepFreeze(structuredClone(o) as T));
  }

  // ---- the cache ---------------------------------------------------------------------------

  /** While paused, successful writes of these kinds (default all) do not reach the cache. */
  pauseCache(...kinds: FakeKind[]): void {
    for (const k of kinds.length > 0 ? kinds : (Object.keys(RESOURCES) as FakeKind[])) this.pausedCache.add(k);
  }
  /** Resumes and copies the server's state of the paused kinds into the cache. */
  resumeCache(): void {
    for (const kind of this.pausedCache) {
      const cached = this.cache.get(kind)!;
      for (const key of [...cached.keys()]) if (!this.server.get(kind)!.has(key)) this.dropCached(kind, key);
      for (const obj of this.server.get(kind)!.values()) this.putCache(kind, obj, true);
    }
    this.pausedCache.clear();
  }
  /** Makes the cache hold exactly this copy (e.g. an older one than the server has). */
  setCached(kind: FakeKind, obj: KubeObject): void {
    this.putCache(kind, obj, true);
  }
  dropCached(kind: FakeKind, key: string): void {
    this.cache.get(kind)!.delete(key);
    for (const l of this.listeners) l(kind, key, undefined);
  }
  /** Called after every cache change (what the wiring feeds into indexes). */
  onCacheChange(listener: CacheListener): void {
    this.listeners.push(listener);
  }

  // ---- faults ------------------------------------------------------------------------------

  /** The next `count` writes matching `match` fail with `error()` (default: a 500). */
  failNextWrites(match: WriteMatcher, count = 1, error: () => Error = () => new InternalError('injected failure')): void {
    this.failures.push({ match, left: count, error });
  }

  /** The next write matching `match` waits, before the server looks at it, until released. */
  holdNextWrite(match: WriteMatcher): WriteHold {
    let arrived!: (r: WriteRecord) => void;
    let release!: () => void;
    const reached = new Promise<WriteRecord>((resolve) => (arrived = resolve));
    const gate = new Promise<void>((resolve) => (release = resolve));
    this.holds.push({ match, arrived, gate });
    return { reached, release };
  }

  // ---- queries -----------------------------------------------------------------------------

  /** Writes that changed the server (no-ops and failures excluded). */
  successfulWrites(match: WriteMatcher = {}): WriteRecord[] {
    return this.writes.filter((w) => w.outcome === 'ok' && matches(match, w));
  }
  eventsFor(key: string): RecordedEvent[] {
    return this.events.filter((e) => e.key === key);
  }
  eventReasons(key: string): string[] {
    return this.eventsFor(key).map((e) => e.reason);
  }

  // ---- internals ---------------------------------------------------------------------------

  private putCache(kind: FakeKind, obj: KubeObject, force = false): void {
    if (!force && this.pausedCache.has(kind)) return;
    const key = keyOf(obj);
    const held = this.cache.get(kind)!.get(key);
    if (!force && held && rvNumber(held) > rvNumber(obj)) return;
    const copy = deepFreeze(structuredClone(obj));
    this.cache.get(kind)!.set(key, copy);
    for (const l of this.listeners) l(kind, key, copy);
  }

  private store<T extends KubeObject>(kind: FakeKind): ObjectStore<T> {
    return {
      get: (key) => this.cache.get(kind)!.get(key) as T | undefined,
      list: () => [...this.cache.get(kind)!.values()] as T[],
      hasSynced: () => true,
    };
  }

  private recordEvent(obj: KubeObject, type: EventType, reason: string, message: string): void {
    this.events.push({ kind: obj.kind ?? '', key: keyOf(obj), type, reason, message, at: this.clock.now() });
  }

  private read<T extends KubeObject>(kind: FakeKind, key: string): T | undefined {
    this.reads.push({ kind, key });
    return this.serverCopy<T>(kind, key);
  }

  private async write(kind: FakeKind, verb: WriteVerb, key: string, request: KubeObject | undefined, uid?: string): Promise<KubeObject | undefined> {
    const record: WriteRecord = { seq: this.writes.length + 1, kind, verb, key };
    if (request) record.request = deepFreeze(structuredClone(request));
    this.writes.push(record);
    const hold = this.holds.findIndex((h) => matches(h.match, record));
    if (hold >= 0) {
      const [h] = this.holds.splice(hold, 1);
      h.arrived(record);
      await h.gate;
    }
    const failure = this.failures.find((f) => f.left > 0 && matches(f.match, record));
    if (failure) {
      failure.left--;
      record.outcome = 'injected';
      throw failure.error();
    }
    try {
      const result = this.apply(kind, verb, key, request, uid, record);
      record.outcome ??= 'ok';
      if (result) record.result = deepFreeze(structuredClone(result));
      return result ? deepFreeze(structuredClone(result)) : undefined;
    } catch (err) {
      record.outcome =
        err instanceof ConflictError ? 'conflict' : err instanceof NotFoundError ? 'notFound' : 'alreadyExists';
      throw err;
    }
  }

  private apply(kind: FakeKind, verb: WriteVerb, key: string, request: KubeObject | undefined, uid: string | undefined, record: WriteRecord): KubeObject | undefined {
    const objects = this.server.get(kind)!;
    const current = objects.get(key);
    const id = { kind: RESOURCES[kind], name: key.split('/').pop() };
    if (verb === 'create') {
      if (current) throw new AlreadyExistsError(id);
      const created = structuredClone(request!);
      created.kind = kind;
      created.apiVersion = API_VERSIONS[kind];
      created.metadata = { ...created.metadata, uid: randomUUID(), creationTimestamp: this.clock.now().toISOString() };
      delete created.metadata.deletionTimestamp;
      // Like kube-apiserver, create ignores the status sent (PV and PVC start Pending).
      if (kind === 'PersistentVolume' || kind === 'PersistentVolumeClaim') created.status = { phase: 'Pending' };
      return this.commit(kind, created);
    }
    if (!current) throw new NotFoundError(id);
    const wantUid = uid ?? request?.metadata.uid;
    const wantRv = request?.metadata.resourceVersion;
    if ((wantUid && wantUid !== current.metadata.uid) || (wantRv && wantRv !== current.metadata.resourceVersion)) {
      throw new ConflictError(id);
    }
    if (verb === 'delete') return this.deleteOrMark(kind, current);
    const next = structuredClone(current);
    if (verb === 'updateStatus') {
      next.status = structuredClone(request!.status);
    } else {
      const { labels, annotations, finalizers, ownerReferences } = request!.metadata;
      next.metadata = { ...next.metadata, labels, annotations, finalizers, ownerReferences };
      for (const field of Object.keys(request!)) {
        if (!['metadata', 'status', 'kind', 'apiVersion'].includes(field)) next[field] = structuredClone(request![field]);
      }
    }
    if (JSON.stringify(next) === JSON.stringify(current)) {
      record.outcome = 'noop';
      return current;
    }
    if (next.metadata.deletionTimestamp && (next.metadata.finalizers ?? []).length === 0) {
      objects.delete(key);
      this.dropFromCache(kind, key);
      return next;
    }
    return this.commit(kind, next);
  }

  private deleteOrMark(kind: FakeKind, current: KubeObject): KubeObject | undefined {
    const key = keyOf(current);
    if ((current.metadata.finalizers ?? []).length > 0) {
      if (current.metadata.deletionTimestamp) return current;
      const marked = structuredClone(current);
      marked.metadata.deletionTimestamp = this.clock.now().toISOString();
      return this.commit(kind, marked);
    }
    this.server.get(kind)!.delete(key);
    this.dropFromCache(kind, key);
    return undefined;
  }

  private dropFromCache(kind: FakeKind, key: string): void {
    if (!this.pausedCache.has(kind)) this.dropCached(kind, key);
  }

  private commit(kind: FakeKind, obj: KubeObject): KubeObject {
    obj.metadata.resourceVersion = String(++this.rv);
    this.server.get(kind)!.set(keyOf(obj), obj);
    this.putCache(kind, obj);
    return obj;
  }

  private apiClient(): ApiClient {
    const pvs = 'PersistentVolume' as const;
    const pvcs = 'PersistentVolumeClaim' as const;
    const typed = <T extends KubeObject>(p: Promise<KubeObject | undefined>): Promise<T> => p.then((o) => o as T);
    return {
      getVolume: async (name) => this.read<PersistentVolume>(pvs, name),
      getClaim: async (ns, name) => this.read<PersistentVolumeClaim>(pvcs, `${ns}/${name}`),
      getStorageClass: async (name) => this.read<StorageClass>('StorageClass', name),
      createVolume: (pv) => typed(this.write(pvs, 'create', keyOf(pv), pv)),
      updateVolume: (pv) => typed(this.write(pvs, 'update', keyOf(pv), pv)),
      updateVolumeStatus: (pv) => typed(this.write(pvs, 'updateStatus', keyOf(pv), pv)),
      deleteVolume: async (name, uid) => void (await this.write(pvs, 'delete', name, undefined, uid)),
      updateClaim: (pvc) => typed(this.write(pvcs, 'update', keyOf(pvc), pvc)),
      updateClaimStatus: (pvc) => typed(this.write(pvcs, 'updateStatus', keyOf(pvc), pvc)),
      listPods: async (ns) => this.serverList<Pod>('Pod').filter((p) => p.metadata.namespace === ns),
    };
  }
}
