/**
 * Builders for restore and clone tests: a FakePlugin with the snapshot capability (a test double
 * of this directory's own, recording every restore and clone), the snapshot objects, and a fake
 * REST access serving them to the provisioner as the API server would.
 */
import {
  FINALIZER_SNAPSHOT_AS_SOURCE,
  SNAPSHOT_API_VERSION,
  type VolumeSnapshot,
  type VolumeSnapshotContent,
} from '@pv-controller/kube/snapshot-types.js';
import { NotFoundError } from '@pv-controller/kube/errors.js';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import type { ProvisionedVolume, ProvisionRequest } from '../../../src/plugins/api/core.js';
import type { SnapshotSource, Snapshotter, VolumeSnapshotInfo } from '../../../src/plugins/api/capabilities/snapshot.js';
import { PluginError } from '../../../src/plugins/api/errors.js';
import type { ModuleRest } from '../../../src/controller/runtime/rest-get.js';
import type { RequestSpec } from '../../../src/kube-client/transport.js';
import { claim, FAKE_PROVISIONER, FakePlugin, type ClaimOptions } from './fixtures.js';

/** FakePlugin plus the snapshot capability: restores and clones are recorded and made as plain volumes. */
export class FakeSnapshotPlugin extends FakePlugin implements Snapshotter {
  readonly restoreCalls: { req: ProvisionRequest; snapshot: SnapshotSource }[] = [];
  readonly cloneCalls: { req: ProvisionRequest; source: PersistentVolume }[] = [];

  constructor(
    readonly supportsClone = true,
    name = FAKE_PROVISIONER,
  ) {
    super(name);
  }

  ownsSnapshot(): boolean {
    return true;
  }
  createSnapshot(): Promise<VolumeSnapshotInfo> {
    return Promise.reject(new PluginError('NotSupported', 'not in this double', false));
  }
  async deleteSnapshot(): Promise<void> {}
  async listSnapshots(): Promise<VolumeSnapshotInfo[]> {
    return [];
  }
  provisionFromSnapshot(req: ProvisionRequest, snapshot: SnapshotSource): Promise<ProvisionedVolume> {
    this.restoreCalls.push({ req, snapshot });
    return this.provision(req);
  }
  provisionClone(req: ProvisionRequest, source: PersistentVolume): Promise<ProvisionedVolume> {
    this.cloneCalls.push({ req, source });
    return this.provision(req);
  }
}

/** Serves VolumeSnapshots and VolumeSnapshotContents by path, like the API server's GET; counts reads. */
export class FakeSnapshotApi implements ModuleRest {
  readonly snapshots = new Map<string, VolumeSnapshot>();
  readonly contents = new Map<string, VolumeSnapshotContent>();
  readonly paths: string[] = [];

  add(objects: { snapshot?: VolumeSnapshot; content?: VolumeSnapshotContent }): void {
    const { snapshot, content } = objects;
    if (snapshot) this.snapshots.set(`${snapshot.metadata.namespace}/${snapshot.metadata.name}`, structuredClone(snapshot));
    if (content) this.contents.set(content.metadata.name ?? '', structuredClone(content));
  }

  async request<T>(spec: RequestSpec): Promise<T> {
    this.paths.push(spec.path);
    const namespaced = /^\/apis\/snapshot\.storage\.k8s\.io\/v1\/namespaces\/([^/]+)\/volumesnapshots\/([^/]+)$/.exec(spec.path);
    const cluster = /^\/apis\/snapshot\.storage\.k8s\.io\/v1\/volumesnapshotcontents\/([^/]+)$/.exec(spec.path);
    const found = namespaced
      ? this.snapshots.get(`${decodeURIComponent(namespaced[1])}/${decodeURIComponent(namespaced[2])}`)
      : cluster
        ? this.contents.get(decodeURIComponent(cluster[1]))
        : undefined;
    if (spec.method !== 'GET' || !found) throw new NotFoundError({ kind: 'volumesnapshots', name: spec.path });
    return structuredClone(found) as T;
  }
}

export interface SnapshotOptions {
  ns?: string;
  ready?: boolean;
  restoreSize?: string;
  driver?: string;
  sourceVolumeMode?: string;
  contentAnnotations?: Record<string, string>;
  /** No content bound yet. */
  unbound?: boolean;
  deleting?: boolean;
  finalizers?: string[];
  handle?: string | null;
}

/** A VolumeSnapshot `name` bound to content `snapcontent-<name>`, ready, with a 1Gi restoreSize. */
export function snapshotPair(name: string, o: SnapshotOptions = {}): { snapshot: VolumeSnapshot; content: VolumeSnapshotContent } {
  const ns = o.ns ?? 'default';
  const uid = `uid-${name}`;
  const contentName = `snapcontent-${name}`;
  const snapshot: VolumeSnapshot = {
    apiVersion: SNAPSHOT_API_VERSION,
    kind: 'VolumeSnapshot',
    metadata: { name, namespace: ns, uid, finalizers: o.finalizers ?? [FINALIZER_SNAPSHOT_AS_SOURCE] },
    spec: { source: { persistentVolumeClaimName: 'origin' } },
    status: { readyToUse: o.ready ?? true, restoreSize: o.restoreSize ?? '1Gi' },
  };
  if (!o.unbound) snapshot.status!.boundVolumeSnapshotContentName = contentName;
  if (o.deleting) snapshot.metadata.deletionTimestamp = '2024-01-01T00:00:00Z';
  const content: VolumeSnapshotContent = {
    apiVersion: SNAPSHOT_API_VERSION,
    kind: 'VolumeSnapshotContent',
    metadata: { name: contentName, annotations: { ...(o.contentAnnotations ?? {}) } },
    spec: {
      volumeSnapshotRef: { kind: 'VolumeSnapshot', name, namespace: ns, uid },
      deletionPolicy: 'Delete',
      driver: o.driver ?? FAKE_PROVISIONER,
      source: { volumeHandle: 'vol-origin' },
      sourceVolumeMode: o.sourceVolumeMode ?? 'Filesystem',
    },
    status: { readyToUse: o.ready ?? true, restoreSize: 1024 ** 3 },
  };
  if (o.handle !== null) content.status!.snapshotHandle = o.handle ?? `snap-handle-${name}`;
  return { snapshot, content };
}

/** A claim restoring from VolumeSnapshot `snapshot` (dataSource and the server's mirrored dataSourceRef). */
export function restoreClaim(name: string, snapshot: string, o: ClaimOptions = {}): PersistentVolumeClaim {
  const pvc = claim(name, o);
  const ref = { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: snapshot };
  pvc.spec.dataSource = { ...ref };
  pvc.spec.dataSourceRef = { ...ref };
  return pvc;
}

/** A claim cloning claim `source` of its namespace. */
export function cloneClaim(name: string, source: string, o: ClaimOptions = {}): PersistentVolumeClaim {
  const pvc = claim(name, o);
  pvc.spec.dataSource = { kind: 'PersistentVolumeClaim', name: source };
  pvc.spec.dataSourceRef = { kind: 'PersistentVolumeClaim', name: source };
  return pvc;
}

/** A Bound source claim and its Bound PV (a volume of the fake plugin), bound to each other. */
export function boundSource(
  name: string,
  o: ClaimOptions & { volumeMode?: string; pvDriver?: string } = {},
): { claim: PersistentVolumeClaim; pv: PersistentVolume } {
  const source = claim(name, o);
  const uid = `uid-${name}`;
  source.metadata.uid = uid;
  source.spec.volumeName = `pv-${name}`;
  source.status = { phase: 'Bound', capacity: { storage: o.size ?? '1Gi' } };
  const pv: PersistentVolume = {
    metadata: { name: `pv-${name}` },
    spec: {
      csi: { driver: o.pvDriver ?? FAKE_PROVISIONER, volumeHandle: `handle-${name}` },
      capacity: { storage: o.size ?? '1Gi' },
      accessModes: ['ReadWriteOnce'],
      claimRef: { kind: 'PersistentVolumeClaim', namespace: o.ns ?? 'default', name, uid },
      storageClassName: o.cls ?? 'fast',
      volumeMode: o.volumeMode ?? 'Filesystem',
    },
    status: { phase: 'Bound' },
  };
  return { claim: source, pv };
}
