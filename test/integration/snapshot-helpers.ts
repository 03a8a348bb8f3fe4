/**
 * For the snapshot integration tests: a REST client for the snapshot kinds, a statically bound
 * claim of the test plugin's driver, and a test plugin whose backend snapshots are files in a
 * directory (so a killed controller's child process and the next controller share them).
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ANN_PROVISIONED_BY } from '@pv-controller/kube/annotations.js';
import { SNAPSHOT_API_VERSION, type VolumeSnapshot, type VolumeSnapshotClass, type VolumeSnapshotContent } from '@pv-controller/kube/snapshot-types.js';
import type { CoreEvent, PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { paths } from '../../src/kube-client/paths.js';
import { snapshotPaths } from '../../src/controller/snapshot/api.js';
import type { DeleteSnapshotRequest, SnapshotRequest, VolumeSnapshotInfo } from '../../src/plugins/api/capabilities/snapshot.js';
import { TestRestClient } from '../helpers/rest-client.js';
import { DRIVER, FakeSnapshotPlugin } from '../controller/snapshot/fakes.js';

export { DRIVER } from '../controller/snapshot/fakes.js';

export class SnapshotTestApi extends TestRestClient {
  createClass(name: string, extra: Partial<VolumeSnapshotClass> = {}): Promise<VolumeSnapshotClass> {
    return this.create(snapshotPaths.classes(), SNAPSHOT_API_VERSION, 'VolumeSnapshotClass', { metadata: { name }, driver: DRIVER, deletionPolicy: 'Delete', ...extra });
  }

  createSnapshot(ns: string, name: string, source: VolumeSnapshot['spec']['source'], className?: string): Promise<VolumeSnapshot> {
    const path = `/apis/${SNAPSHOT_API_VERSION}/namespaces/${ns}/volumesnapshots`;
    return this.create(path, SNAPSHOT_API_VERSION, 'VolumeSnapshot', { metadata: { name, namespace: ns }, spec: { source, ...(className ? { volumeSnapshotClassName: className } : {}) } });
  }

  createContent(body: Pick<VolumeSnapshotContent, 'metadata' | 'spec'>): Promise<VolumeSnapshotContent> {
    return this.create<VolumeSnapshotContent>(snapshotPaths.contents(), SNAPSHOT_API_VERSION, 'VolumeSnapshotContent', body as VolumeSnapshotContent);
  }

  updateContentStatus(content: VolumeSnapshotContent): Promise<VolumeSnapshotContent> {
    return this.update(`${snapshotPaths.content(content.metadata.name ?? '')}/status`, content);
  }

  snapshot(ns: string, name: string): Promise<VolumeSnapshot | undefined> {
    return this.getOrUndefined(snapshotPaths.snapshot(ns, name));
  }

  content(name: string): Promise<VolumeSnapshotContent | undefined> {
    return this.getOrUndefined(snapshotPaths.content(name));
  }

  contents(): Promise<VolumeSnapshotContent[]> {
    return this.list(snapshotPaths.contents());
  }

  deleteSnapshot(ns: string, name: string): Promise<void> {
    return this.remove(snapshotPaths.snapshot(ns, name));
  }

  deleteContent(name: string): Promise<void> {
    return this.remove(snapshotPaths.content(name));
  }

  claim(ns: string, name: string): Promise<PersistentVolumeClaim | undefined> {
    return this.getOrUndefined(paths.claim(ns, name));
  }

  /** Changes claim `ns/name` on its newest copy, retrying on 409 Conflict (see `modify`). */
  modifyClaim(ns: string, name: string, change: (pvc: PersistentVolumeClaim) => PersistentVolumeClaim): Promise<PersistentVolumeClaim> {
    return this.modify(paths.claim(ns, name), change);
  }

  updateClaim(claim: PersistentVolumeClaim): Promise<PersistentVolumeClaim> {
    return this.update(paths.claim(claim.metadata.namespace ?? '', claim.metadata.name ?? ''), claim);
  }

  deleteClaim(ns: string, name: string): Promise<void> {
    return this.remove(paths.claim(ns, name));
  }

  events(ns: string, name: string): Promise<CoreEvent[]> {
    return this.eventsAbout(ns, name);
  }

  /** A PV of the test driver pre-bound to a new claim `ns/name`; the binder binds them. */
  async boundClaim(ns: string, name: string): Promise<void> {
    await this.create<PersistentVolume>(paths.volumes(), 'v1', 'PersistentVolume', {
      metadata: { name: `pv-${ns}-${name}`, annotations: { [ANN_PROVISIONED_BY]: DRIVER } },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        persistentVolumeReclaimPolicy: 'Retain',
        storageClassName: '',
        hostPath: { path: `/tmp/pv-${ns}-${name}` },
        claimRef: { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: ns, name },
      },
    } as PersistentVolume);
    await this.create<PersistentVolumeClaim>(paths.claims(ns), 'v1', 'PersistentVolumeClaim', {
      metadata: { name, namespace: ns },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: '', volumeName: `pv-${ns}-${name}` },
    } as PersistentVolumeClaim);
  }
}

/**
 * The test plugin with its backend snapshots as JSON files in `dir`. With `hangAfterCut`, a create
 * writes the file, prints `cut <id>` and never returns (the kill test kills it there).
 */
export class FileSnapshotPlugin extends FakeSnapshotPlugin {
  constructor(
    private readonly dir: string,
    private readonly hangAfterCut = false,
  ) {
    super();
  }

  override async createSnapshot(req: SnapshotRequest): Promise<VolumeSnapshotInfo> {
    this.creates.push(req);
    await mkdir(this.dir, { recursive: true });
    const id = `snap-${req.snapshotName}`;
    const existing = await this.read(id);
    const info = existing ?? { snapshotName: req.snapshotName, snapshotId: id, sourceVolumeId: req.pv.metadata.name ?? '', sizeBytes: 1n << 30n, createdAt: new Date(), readyToUse: true };
    if (!existing) await writeFile(join(this.dir, id), JSON.stringify({ ...info, sizeBytes: String(info.sizeBytes), createdAt: info.createdAt.toISOString() }));
    await this.passGate();
    if (this.hangAfterCut) {
      process.stdout.write(`cut ${id}\n`);
      return new Promise<never>(() => undefined);
    }
    return info;
  }

  override async deleteSnapshot(req: DeleteSnapshotRequest): Promise<void> {
    this.deletes.push(req);
    await rm(join(this.dir, req.snapshotId), { force: true });
  }

  override async listSnapshots(): Promise<VolumeSnapshotInfo[]> {
    const ids = await readdir(this.dir).catch(() => [] as string[]);
    const out: VolumeSnapshotInfo[] = [];
    for (const id of ids) {
      const info = await this.read(id);
      if (info) out.push(info);
    }
    return out;
  }

  /** Backend snapshot ids, for assertions. */
  async ids(): Promise<string[]> {
    return (await readdir(this.dir).catch(() => [] as string[])).sort();
  }

  private async read(id: string): Promise<VolumeSnapshotInfo | undefined> {
    try {
      const raw = JSON.parse(await readFile(join(this.dir, id), 'utf8')) as VolumeSnapshotInfo & { sizeBytes: string; createdAt: string };
      return { ...raw, sizeBytes: BigInt(raw.sizeBytes), createdAt: new Date(raw.createdAt) };
    } catch {
      return undefined;
    }
  }
}
