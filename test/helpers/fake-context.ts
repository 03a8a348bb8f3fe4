/**
 * An in-memory ControllerContext for decision-code tests (binder, provisioner, reclaimer).
 *
 * Two layers, like a real controller: the *server* (fake-server.ts: what the API holds; every
 * write is checked against its resourceVersion and uid preconditions and answers 404/409 like
 * kube-apiserver) and the *cache* (what `ctx.volumes/claims/classes/pods` return; follows the
 * server after each successful write unless paused, and can be set to any older copy to
 * simulate lag). Every write attempt, live read, event and enqueue is recorded. Faults: fail
 * the next N writes matching a pattern, or hold a write in flight until the test releases it.
 * Objects handed out are deep-frozen copies, so code that mutates what it read fails loudly.
 */
import type { KubeObject, Lease, Node, PersistentVolume, PersistentVolumeClaim, Pod, StorageClass } from '@pv-controller/kube/types.js';
import { ConflictError, InternalError, NotFoundError } from '@pv-controller/kube/errors.js';
import { type ApiClient, type ControllerContext, type EventType, type ObjectStore } from '../../src/controller/runtime/context.js';
import { keyOf } from '@pv-controller/kube/object-key.js';
import { FAKE_KINDS, FakeServer, deepFreeze, type FakeKind, type WriteVerb } from './fake-server.js';

export { deepFreeze, type FakeKind, type WriteVerb } from './fake-server.js';

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

export type CacheListener = (kind: FakeKind, key: string, obj: KubeObject | undefined) => void;

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

  private readonly server: FakeServer;
  private readonly cache = new Map<FakeKind, Map<string, KubeObject>>(FAKE_KINDS.map((k) => [k, new Map()]));
  private readonly pausedCache = new Set<FakeKind>();
  private readonly listeners: CacheListener[] = [];
  private readonly failures: { match: WriteMatcher; left: number; error: () => Error }[] = [];
  private readonly holds: { match: WriteMatcher; arrived: (r: WriteRecord) => void; gate: Promise<void> }[] = [];

  constructor(options: { clock?: FakeClock } = {}) {
    this.clock = options.clock ?? new FakeClock();
    this.server = new FakeServer(
      () => this.clock.now(),
      (kind, key, obj) => {
        if (this.pausedCache.has(kind)) return;
        if (obj) this.putCache(kind, obj);
        else this.dropCached(kind, key);
      },
    );
    this.ctx = {
      volumes: this.store<PersistentVolume>('PersistentVolume'),
      claims: this.store<PersistentVolumeClaim>('PersistentVolumeClaim'),
      classes: this.store<StorageClass>('StorageClass'),
      pods: this.store<Pod>('Pod'),
      nodes: this.store<Node>('Node'),
      api: this.apiClient(),
      events: { event: (obj, type, reason, message) => this.recordEvent(obj, type, reason, message) },
      enqueueClaim: (key) => void this.enqueuedClaims.push(key),
      enqueueVolume: (name) => void this.enqueuedVolumes.push(name),
      now: () => this.clock.now(),
    };
  }

  // ---- seeding: objects created directly on the server (and so in the cache) ---------------

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
  addNode(name: string): Node {
    return this.seed<Node>('Node', { metadata: { name } });
  }
  /** Removes an object from the server (and so the cache), as another client's DELETE would. */
  remove(kind: FakeKind, key: string): void {
    this.server.apply(kind, 'delete', key, undefined);
  }
  /** Stores `obj` as given (status included); uid/creationTimestamp filled in if absent. */
  seed<T extends KubeObject>(kind: FakeKind, obj: T): T {
    return deepFreeze(structuredClone(this.server.seed(kind, obj) as T));
  }

  // ---- the server's state (what a live GET returns; not recorded as reads) ------------------

  serverCopy<T extends KubeObject>(kind: FakeKind, key: string): T | undefined {
    const obj = this.server.get(kind, key);
    return obj ? deepFreeze(structuredClone(obj) as T) : undefined;
  }
  volume(name: string): PersistentVolume | undefined {
    return this.serverCopy('PersistentVolume', name);
  }
  claim(key: string): PersistentVolumeClaim | undefined {
    return this.serverCopy('PersistentVolumeClaim', key);
  }
  serverList<T extends KubeObject>(kind: FakeKind): T[] {
    return this.server.list(kind).map((o) => deepFreeze(structuredClone(o) as T));
  }

  // ---- the cache ---------------------------------------------------------------------------

  /** While paused, server changes of these kinds (default: all) do not reach the cache. */
  pauseCache(...kinds: FakeKind[]): void {
    for (const k of kinds.length > 0 ? kinds : FAKE_KINDS) this.pausedCache.add(k);
  }
  /** Resumes and brings the paused kinds' cache up to the server's state. */
  resumeCache(): void {
    for (const kind of this.pausedCache) {
      const cached = this.cache.get(kind)!;
      for (const key of [...cached.keys()]) if (!this.server.get(kind, key)) this.dropCached(kind, key);
      for (const obj of this.server.list(kind)) this.putCache(kind, obj, true);
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
  /** Called after every cache change (what the controller's wiring feeds into its indexes). */
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

  private async write(kind: FakeKind, verb: WriteVerb, key: string, request?: KubeObject, uid?: string): Promise<KubeObject | undefined> {
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
      const { obj, noop } = this.server.apply(kind, verb, key, request, uid);
      record.outcome = noop ? 'noop' : 'ok';
      if (obj) record.result = deepFreeze(structuredClone(obj));
      return obj ? deepFreeze(structuredClone(obj)) : undefined;
    } catch (err) {
      record.outcome = err instanceof ConflictError ? 'conflict' : err instanceof NotFoundError ? 'notFound' : 'alreadyExists';
      throw err;
    }
  }

  private apiClient(): ApiClient {
    const pvs = 'PersistentVolume' as const;
    const pvcs = 'PersistentVolumeClaim' as const;
    const typed = <T extends KubeObject>(p: Promise<KubeObject | undefined>): Promise<T> => p.then((o) => o as T);
    return {
      getVolume: async (name) => this.read<PersistentVolume>(pvs, name),
      getClaim: async (ns, name) => this.read<PersistentVolumeClaim>(pvcs, `${ns}/${name}`),
      getStorageClass: async (name) => this.read<StorageClass>('StorageClass', name),
      getNode: async (name) => this.read<Node>('Node', name),
      createVolume: (pv) => typed(this.write(pvs, 'create', keyOf(pv), pv)),
      updateVolume: (pv) => typed(this.write(pvs, 'update', keyOf(pv), pv)),
      updateVolumeStatus: (pv) => typed(this.write(pvs, 'updateStatus', keyOf(pv), pv)),
      deleteVolume: async (name, uid) => void (await this.write(pvs, 'delete', name, undefined, uid)),
      updateClaim: (pvc) => typed(this.write(pvcs, 'update', keyOf(pvc), pvc)),
      updateClaimStatus: (pvc) => typed(this.write(pvcs, 'updateStatus', keyOf(pvc), pvc)),
      createClaim: (pvc) => typed(this.write(pvcs, 'create', keyOf(pvc), pvc)),
      deleteClaim: async (ns, name, uid) => void (await this.write(pvcs, 'delete', `${ns}/${name}`, undefined, uid)),
      listPods: async (ns) => this.serverList<Pod>('Pod').filter((p) => p.metadata.namespace === ns),
      listLeases: async (ns, selector) => {
        const [key, value] = selector.split('=');
        return this.serverList<Lease>('Lease').filter((l) => l.metadata.namespace === ns && l.metadata.labels?.[key] === value);
      },
      createLease: (lease) => typed(this.write('Lease', 'create', keyOf(lease), lease)),
      updateLease: (lease) => typed(this.write('Lease', 'update', keyOf(lease), lease)),
      deleteLease: async (ns, name, uid) => void (await this.write('Lease', 'delete', `${ns}/${name}`, undefined, uid)),
    };
  }
}
