/**
 * Test doubles for the snapshot module's decisions: the snapshot kinds on a FakeServer of their
 * own (kube-apiserver's write rules: resourceVersion preconditions, deletion deferred by
 * finalizers, status only through updateStatus) feeding MergedStores as an informer would, a
 * plugin implementing Snapshotter whose backend is a map (creates can be held or made to fail),
 * and the SnapshotDeps that tie them to a FakeCluster.
 */
import { pino } from 'pino';
import { PluginError } from '../../../src/plugins/api/errors.js';
import type { DeleteSnapshotRequest, SnapshotRequest, Snapshotter, SnapshotSource, VolumeSnapshotInfo } from '../../../src/plugins/api/capabilities/snapshot.js';
import type { ProvisionedVolume, VolumePlugin } from '../../../src/plugins/api/core.js';
import { NilMetricsProvider } from '../../../src/metrics/nil.js';
import { PluginRegistry } from '../../../src/plugins/registry.js';
import { makeSnapshotStores, type MergedSnapshotStores, type SnapshotApi } from '../../../src/controller/snapshot/api.js';
import type { SnapshotDeps } from '../../../src/controller/snapshot/deps.js';
import { HmacProvenance } from '../../../src/controller/provenance/key.js';
import { syncSnapshot } from '../../../src/controller/snapshot/snapshot-sync.js';
import { syncContent } from '../../../src/controller/snapshot/content-sync.js';
import type { SnapshotRole } from '../../../src/controller/options.js';
import { FakeServer, type FakeKind, type SnapshotKind } from '../../helpers/fake-server.js';
import type { FakeCluster } from '../../helpers/fake-context.js';
import { ANN_PROVISIONED_BY } from '@pv-controller/kube/annotations.js';
import { keyOf } from '@pv-controller/kube/object-key.js';
import type { VolumeSnapshot, VolumeSnapshotClass, VolumeSnapshotContent } from '@pv-controller/kube/snapshot-types.js';
import type { KubeObject, PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';

export const DRIVER = 'fake.snapshot.pv-controller.io';
export const PROVENANCE = new HmacProvenance(Buffer.alloc(32, 5));

/** The snapshot kinds' server, and the stores its changes reach. */
export class FakeSnapshotServer {
  readonly stores: MergedSnapshotStores = makeSnapshotStores();
  readonly writes: Array<{ kind: SnapshotKind; verb: string; key: string }> = [];
  private readonly server: FakeServer;
  private readonly held = new Map<string, KubeObject>();

  constructor(now: () => Date) {
    this.server = new FakeServer(now, (kind, key, obj) => this.feed(kind, key, obj));
  }

  seed<T extends KubeObject>(kind: SnapshotKind, obj: T): T {
    return structuredClone(this.server.seed(kind, obj)) as T;
  }

  get<T extends KubeObject>(kind: SnapshotKind, key: string): T | undefined {
    const obj = this.server.get(kind, key);
    return obj ? (structuredClone(obj) as T) : undefined;
  }

  /** A user's DELETE (finalizers defer it). */
  delete(kind: SnapshotKind, key: string): void {
    this.server.apply(kind, 'delete', key, undefined);
  }

  readonly api: SnapshotApi = {
    updateSnapshot: (vs) => this.write('VolumeSnapshot', 'update', vs),
    updateSnapshotStatus: (vs) => this.write('VolumeSnapshot', 'updateStatus', vs),
    getContent: async (name) => this.get<VolumeSnapshotContent>('VolumeSnapshotContent', name),
    createContent: (c) => this.write('VolumeSnapshotContent', 'create', c),
    updateContent: (c) => this.write('VolumeSnapshotContent', 'update', c),
    updateContentStatus: (c) => this.write('VolumeSnapshotContent', 'updateStatus', c),
    deleteContent: async (name, uid) => {
      this.writes.push({ kind: 'VolumeSnapshotContent', verb: 'delete', key: name });
      this.server.apply('VolumeSnapshotContent', 'delete', name, undefined, uid);
    },
  };

  private async write<T extends KubeObject>(kind: SnapshotKind, verb: 'create' | 'update' | 'updateStatus', obj: T): Promise<T> {
    const key = keyOf(obj);
    this.writes.push({ kind, verb, key });
    const { obj: out } = this.server.apply(kind, verb, key, structuredClone(obj));
    return structuredClone(out ?? obj) as T;
  }

  private feed(kind: FakeKind, key: string, obj: KubeObject | undefined): void {
    const store = { VolumeSnapshot: this.stores.snapshots, VolumeSnapshotContent: this.stores.contents, VolumeSnapshotClass: this.stores.classes }[kind as SnapshotKind] as
      | MergedSnapshotStores['contents']
      | undefined;
    if (!store) return;
    const mapKey = `${kind}:${key}`;
    if (obj) {
      this.held.set(mapKey, obj);
      store.applyInformerUpsert(structuredClone(obj) as VolumeSnapshotContent);
    } else {
      const last = this.held.get(mapKey);
      this.held.delete(mapKey);
      if (last) store.applyInformerDelete({ ...(structuredClone(last) as VolumeSnapshotContent), metadata: { ...last.metadata, resourceVersion: String(Number(last.metadata.resourceVersion) + 1) } });
    }
  }
}

interface Gate {
  reached: Promise<void>;
  release(): void;
}

/** A plugin whose backend snapshots live in a map; handles PVs provisioned by DRIVER. */
export class FakeSnapshotPlugin implements VolumePlugin, Snapshotter {
  readonly name = DRIVER;
  readonly maxBackingNameLength = 63;
  readonly supportsClone = false;
  /** Backend snapshots by id. */
  readonly backend = new Map<string, VolumeSnapshotInfo>();
  readonly creates: SnapshotRequest[] = [];
  readonly deletes: DeleteSnapshotRequest[] = [];
  /** Errors the next creates throw, in order. */
  readonly createFailures: Error[] = [];
  /** Handles of another node (a node agent's view): ownsSnapshot says no. */
  readonly foreign = new Set<string>();
  private gate: { reached: () => void; released: Promise<void> } | undefined;

  validateParameters() {
    return [];
  }
  handles(pv: PersistentVolume): boolean {
    return pv.metadata.annotations?.[ANN_PROVISIONED_BY] === DRIVER;
  }
  async provision(): Promise<ProvisionedVolume> {
    throw new PluginError('NotSupported', 'not in these tests', false);
  }
  async delete(): Promise<void> {}
  metricsFor() {
    return new NilMetricsProvider('fake snapshot volume');
  }

  /** The next create stops (after making the snapshot) until released. */
  holdNextCreate(): Gate {
    let reached!: () => void;
    let release!: () => void;
    const reachedP = new Promise<void>((r) => (reached = r));
    const released = new Promise<void>((r) => (release = r));
    this.gate = { reached, released };
    return { reached: reachedP, release };
  }

  ownsSnapshot(id: string): boolean {
    return id.startsWith('snap-') && !this.foreign.has(id);
  }

  async createSnapshot(req: SnapshotRequest): Promise<VolumeSnapshotInfo> {
    this.creates.push(req);
    const failure = this.createFailures.shift();
    if (failure) throw failure;
    const id = `snap-${req.snapshotName}`;
    const info = this.backend.get(id) ?? {
      snapshotName: req.snapshotName,
      snapshotId: id,
      sourceVolumeId: req.pv.metadata.name ?? '',
      sizeBytes: 1n << 30n,
      createdAt: new Date('2024-01-01T00:00:05Z'),
      readyToUse: true,
    };
    this.backend.set(id, info);
    await this.passGate();
    return info;
  }

  /** Where a held create stops, after its snapshot exists. */
  protected async passGate(): Promise<void> {
    const gate = this.gate;
    if (!gate) return;
    this.gate = undefined;
    gate.reached();
    await gate.released;
  }

  async deleteSnapshot(req: DeleteSnapshotRequest): Promise<void> {
    this.deletes.push(req);
    this.backend.delete(req.snapshotId);
  }

  async listSnapshots(): Promise<VolumeSnapshotInfo[]> {
    return [...this.backend.values()];
  }

  async provisionFromSnapshot(_req: unknown, _s: SnapshotSource): Promise<ProvisionedVolume> {
    throw new PluginError('NotSupported', 'not in these tests', false);
  }
  async provisionClone(): Promise<ProvisionedVolume> {
    throw new PluginError('NotSupported', 'not in these tests', false);
  }
}

export interface SnapshotFixture {
  fake: FakeCluster;
  server: FakeSnapshotServer;
  plugin: FakeSnapshotPlugin;
  deps: SnapshotDeps;
  enqueued: { snapshots: string[]; contents: string[] };
}

export function snapshotFixture(fake: FakeCluster, role: SnapshotRole = 'controller+sidecar'): SnapshotFixture {
  const server = new FakeSnapshotServer(() => fake.clock.now());
  const plugin = new FakeSnapshotPlugin();
  const enqueued = { snapshots: [] as string[], contents: [] as string[] };
  const deps: SnapshotDeps = {
    ctx: fake.ctx,
    stores: server.stores,
    api: server.api,
    plugins: new PluginRegistry([plugin]),
    role,
    clusterName: 'kubernetes',
    provenance: PROVENANCE,
    log: pino({ level: 'silent' }),
    enqueueSnapshot: (key) => void enqueued.snapshots.push(key),
    enqueueContent: (name) => void enqueued.contents.push(name),
  };
  return { fake, server, plugin, deps, enqueued };
}

// ---- objects ---------------------------------------------------------------------------------

export function snapshotClass(name: string, extra: Partial<VolumeSnapshotClass> = {}, isDefault = false): VolumeSnapshotClass {
  return {
    apiVersion: 'snapshot.storage.k8s.io/v1',
    kind: 'VolumeSnapshotClass',
    metadata: { name, ...(isDefault ? { annotations: { 'snapshot.storage.kubernetes.io/is-default-class': 'true' } } : {}) },
    driver: DRIVER,
    deletionPolicy: 'Delete',
    ...extra,
  };
}

export function volumeSnapshot(ns: string, name: string, source: VolumeSnapshot['spec']['source'], className?: string): VolumeSnapshot {
  return {
    apiVersion: 'snapshot.storage.k8s.io/v1',
    kind: 'VolumeSnapshot',
    metadata: { namespace: ns, name },
    spec: { source, ...(className ? { volumeSnapshotClassName: className } : {}) },
  };
}

export function preProvisionedContent(name: string, ref: { namespace: string; name: string; uid?: string }, handle: string, policy = 'Delete'): VolumeSnapshotContent {
  return {
    apiVersion: 'snapshot.storage.k8s.io/v1',
    kind: 'VolumeSnapshotContent',
    metadata: { name },
    spec: { volumeSnapshotRef: ref, deletionPolicy: policy, driver: DRIVER, source: { snapshotHandle: handle } },
  };
}

/** A Bound claim `ns/name` and its volume `pv-<name>` of the fake driver, seeded in the cluster. */
export function seedBoundClaim(fake: FakeCluster, ns: string, name: string): { pvc: PersistentVolumeClaim; pv: PersistentVolume } {
  const pvc = fake.addClaim({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { namespace: ns, name },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, volumeName: `pv-${name}`, storageClassName: 'fast' },
    status: { phase: 'Bound', capacity: { storage: '1Gi' } },
  });
  const pv = fake.addVolume({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: `pv-${name}`, annotations: { [ANN_PROVISIONED_BY]: DRIVER } },
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Delete',
      volumeMode: 'Filesystem',
      hostPath: { path: `/tmp/pv-${name}` },
      claimRef: { kind: 'PersistentVolumeClaim', namespace: ns, name, uid: pvc.metadata.uid },
    },
    status: { phase: 'Bound' },
  });
  return { pvc, pv };
}

/**
 * Runs the snapshot and content syncs of every object in the stores, round after round, until a
 * round writes nothing (at most `rounds`): the queues' work, in order, without timers.
 */
export async function settle(fx: SnapshotFixture, rounds = 12): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    const before = fx.server.writes.length + fx.fake.writes.length;
    if (fx.deps.role === 'controller+sidecar') for (const vs of fx.server.stores.snapshots.list()) await syncSnapshot(fx.deps, vs);
    for (const c of fx.server.stores.contents.list()) await syncContent(fx.deps, c);
    if (fx.server.writes.length + fx.fake.writes.length === before) return;
  }
}
