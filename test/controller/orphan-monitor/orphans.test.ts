import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FINALIZER_PROVISIONING } from '@pv-controller/kube/annotations.js';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { NilMetricsProvider } from '../../../src/metrics/nil.js';
import type { MetricsProvider } from '../../../src/metrics/provider.js';
import {
  type ClusterObjects,
  countOrphans,
  deleteOrphans,
  findOrphans,
  findStrayFiles,
  orphanCountsByPlugin,
  removeStrayFiles,
} from '../../../src/controller/orphan-monitor/orphans.js';
import { backingName } from '../../../src/plugins/naming.js';
import type { DeleteRequest, ProvisionedVolume, VolumePlugin } from '../../../src/plugins/api/core.js';
import type { BackingVolume } from '../../../src/plugins/api/capabilities/backing-volumes.js';
import type { StrayFile } from '../../../src/plugins/api/capabilities/stray-files.js';

/** A backend in memory: listBackingVolumes returns what is stored, delete removes by backing name. */
class MemoryPlugin implements VolumePlugin {
  readonly volumes = new Map<string, BackingVolume>();
  readonly deleted: string[] = [];
  failListing = false;
  failDelete = false;
  ignoreDelete = false;

  constructor(
    readonly name: string,
    readonly maxBackingNameLength = 255,
  ) {}

  put(volume: BackingVolume): void {
    this.volumes.set(volume.id, volume);
  }
  validateParameters() {
    return [];
  }
  handles(): boolean {
    return false;
  }
  provision(): Promise<ProvisionedVolume> {
    return Promise.reject(new Error('not used'));
  }
  async delete(req: DeleteRequest): Promise<void> {
    if (this.failDelete) throw new Error('backend refused');
    this.deleted.push(req.backingName);
    if (this.ignoreDelete) return;
    for (const [id, v] of this.volumes) if (v.backingName === req.backingName) this.volumes.delete(id);
  }
  metricsFor(): MetricsProvider {
    return new NilMetricsProvider('memory');
  }
  async listBackingVolumes(): Promise<BackingVolume[]> {
    if (this.failListing) throw new Error('cloud unreachable');
    return [...this.volumes.values()].map((v) => ({ ...v }));
  }
}

/** Claims and PVs as a live API would answer, with the order of reads recorded. */
class FakeCluster implements ClusterObjects {
  claims: PersistentVolumeClaim[] = [];
  volumes: PersistentVolume[] = [];
  readonly reads: string[] = [];
  async listClaims() {
    this.reads.push('claims');
    return structuredClone(this.claims);
  }
  async listVolumes() {
    this.reads.push('volumes');
    return structuredClone(this.volumes);
  }
}

const CLUSTER = 'kubernetes';
const pv = (name: string, spec: PersistentVolume['spec'] = {}): PersistentVolume => ({ metadata: { name }, spec });
const provisioningClaim = (uid: string, finalizers = [FINALIZER_PROVISIONING]): PersistentVolumeClaim => ({
  metadata: { name: `claim-${uid}`, namespace: 'default', uid, finalizers },
  spec: {},
});
const dynamic = (pvName: string, id = `vol-${pvName}`, extra: Partial<BackingVolume> = {}): BackingVolume => ({
  backingName: backingName(CLUSTER, pvName),
  id,
  ...extra,
});
const names = (volumes: { volume: BackingVolume }[]) => volumes.map((o) => o.volume.backingName).sort();

describe('findOrphans', () => {
  it('reports only the backing volumes that no PV and no provisioning claim accounts for', async () => {
    const plugin = new MemoryPlugin('kubernetes.io/aws-ebs');
    plugin.put(dynamic('pvc-by-name'));
    plugin.put({ backingName: 'handmade', id: 'vol-0abc' });
    plugin.put({ backingName: 'kubernetes-dynamic-pvc-tag-only', id: 'vol-tag', pvName: 'pvc-tagged' });
    plugin.put(dynamic('pvc-provisioning-uid'));
    plugin.put(dynamic('pvc-left-behind'));
    plugin.put(dynamic('pvc-claim-without-finalizer'));
    const cluster = new FakeCluster();
    cluster.volumes = [
      pv('pvc-by-name'),
      pv('static', { awsElasticBlockStore: { volumeID: 'aws://us-east-1a/vol-0abc' } }),
      pv('pvc-tagged'),
    ];
    cluster.claims = [provisioningClaim('provisioning-uid'), provisioningClaim('claim-without-finalizer', [])];
    const scan = await findOrphans([plugin], CLUSTER, cluster);
    assert.deepEqual(names(scan.orphans), [backingName(CLUSTER, 'pvc-claim-without-finalizer'), backingName(CLUSTER, 'pvc-left-behind')]);
    assert.deepEqual(scan.failures, []);
    assert.deepEqual(scan.scannedPlugins, ['kubernetes.io/aws-ebs']);
  });

  it('a PV that names its disk in a csi source (a cloud volume with a VolumeAttributesClass) accounts for it', async () => {
    const plugin = new MemoryPlugin('kubernetes.io/aws-ebs');
    plugin.put({ backingName: 'handmade', id: 'vol-0csi' });
    const cluster = new FakeCluster();
    cluster.volumes = [pv('static-csi', { csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-0csi' } })];
    const scan = await findOrphans([plugin], CLUSTER, cluster);
    assert.deepEqual(names(scan.orphans), []);
  });

  it('matches PVs by disk name, Cinder id and host path, and uses the plugin name-length limit for provisioning claims', async () => {
    const gce = new MemoryPlugin('kubernetes.io/gce-pd', 63);
    const longUid = '0b7c5b1e-6f0e-4c55-9d2c-3c2b7c1f9a01';
    const shortened = backingName('a-long-cluster-name-for-the-test', `pvc-${longUid}`, 63);
    gce.put({ backingName: shortened, id: `zones/us-central1-a/disks/${shortened}` });
    gce.put({ backingName: 'static-disk', id: 'zones/us-central1-a/disks/static-disk' });
    gce.put({ backingName: 'lonely-disk', id: 'zones/us-central1-a/disks/lonely-disk' });
    const cinder = new MemoryPlugin('kubernetes.io/cinder');
    cinder.put({ backingName: 'vol-a', id: '7d1c-aaaa' });
    const hostPath = new MemoryPlugin('kubernetes.io/host-path');
    hostPath.put({ backingName: 'dir-a', id: '/srv/volumes/dir-a' });
    const cluster = new FakeCluster();
    cluster.claims = [provisioningClaim(longUid)];
    cluster.volumes = [
      pv('p1', { gcePersistentDisk: { pdName: 'static-disk' } }),
      pv('p2', { cinder: { volumeID: '7d1c-aaaa' } }),
      pv('p3', { hostPath: { path: '/srv/volumes/dir-a' } }),
    ];
    const scan = await findOrphans([gce, cinder, hostPath], 'a-long-cluster-name-for-the-test', cluster);
    assert.deepEqual(scan.orphans.map((o) => [o.plugin, o.volume.backingName]), [['kubernetes.io/gce-pd', 'lonely-disk']]);
  });

  it('lists backing volumes before claims and claims before PVs, so a volume mid-provisioning is never taken for an orphan', async () => {
    const plugin = new MemoryPlugin('kubernetes.io/aws-ebs');
    const cluster = new FakeCluster();
    plugin.listBackingVolumes = async () => {
      cluster.reads.push('backing');
      return [];
    };
    await findOrphans([plugin], CLUSTER, cluster);
    assert.deepEqual(cluster.reads, ['backing', 'claims', 'volumes']);
  });

  it('reports a plugin whose listing fails and still scans the others; counts include zero', async () => {
    const broken = new MemoryPlugin('kubernetes.io/cinder');
    broken.failListing = true;
    const fine = new MemoryPlugin('kubernetes.io/aws-ebs');
    fine.put(dynamic('pvc-x'));
    const empty = new MemoryPlugin('kubernetes.io/gce-pd');
    const cluster = new FakeCluster();
    const scan = await findOrphans([broken, fine, empty], CLUSTER, cluster);
    assert.deepEqual(scan.failures, [{ plugin: 'kubernetes.io/cinder', message: 'cloud unreachable' }]);
    assert.deepEqual([...orphanCountsByPlugin(scan)], [['kubernetes.io/aws-ebs', 1], ['kubernetes.io/gce-pd', 0]]);
    assert.deepEqual([...(await countOrphans([fine], CLUSTER, cluster))], [['kubernetes.io/aws-ebs', 1]]);
  });

  it('skips plugins that cannot list backing volumes', async () => {
    const plugin = new MemoryPlugin('example.com/no-listing');
    (plugin as { listBackingVolumes?: unknown }).listBackingVolumes = undefined;
    const scan = await findOrphans([plugin], CLUSTER, new FakeCluster());
    assert.deepEqual(scan, { orphans: [], scannedPlugins: [], failures: [] });
  });
});

describe('deleteOrphans', () => {
  it('deletes the orphans by backing name and skips one that a PV created since the scan refers to', async () => {
    const plugin = new MemoryPlugin('kubernetes.io/aws-ebs');
    plugin.put(dynamic('pvc-a'));
    plugin.put(dynamic('pvc-b'));
    const cluster = new FakeCluster();
    const scan = await findOrphans([plugin], CLUSTER, cluster);
    assert.equal(scan.orphans.length, 2);
    cluster.volumes = [pv('pvc-b')];
    const results = await deleteOrphans(scan.orphans, [plugin], CLUSTER, cluster);
    assert.deepEqual(results.map((r) => [r.orphan.volume.backingName, r.outcome, r.detail]), [
      [backingName(CLUSTER, 'pvc-a'), 'deleted', undefined],
      [backingName(CLUSTER, 'pvc-b'), 'referenced', 'PV "pvc-b"'],
    ]);
    assert.deepEqual(plugin.deleted, [backingName(CLUSTER, 'pvc-a')]);
    assert.deepEqual([...plugin.volumes.keys()], ['vol-pvc-b']);
  });

  it('skips an orphan whose claim started provisioning it since the scan', async () => {
    const plugin = new MemoryPlugin('kubernetes.io/aws-ebs');
    plugin.put(dynamic('pvc-late-uid'));
    const cluster = new FakeCluster();
    const scan = await findOrphans([plugin], CLUSTER, cluster);
    cluster.claims = [provisioningClaim('late-uid')];
    const [result] = await deleteOrphans(scan.orphans, [plugin], CLUSTER, cluster);
    assert.equal(result.outcome, 'referenced');
    assert.match(result.detail ?? '', /claim "default\/claim-late-uid" \(provisioning\)/);
    assert.deepEqual(plugin.deleted, []);
  });

  it('reports a failed delete and one the plugin could not find, and carries on with the rest', async () => {
    const failing = new MemoryPlugin('kubernetes.io/cinder');
    failing.put(dynamic('pvc-f'));
    failing.failDelete = true;
    const ignoring = new MemoryPlugin('kubernetes.io/host-path');
    ignoring.put({ backingName: 'unrecorded', id: '/srv/unrecorded' });
    ignoring.ignoreDelete = true;
    const fine = new MemoryPlugin('kubernetes.io/aws-ebs');
    fine.put(dynamic('pvc-ok'));
    const cluster = new FakeCluster();
    const plugins = [failing, ignoring, fine];
    const scan = await findOrphans(plugins, CLUSTER, cluster);
    const results = await deleteOrphans(scan.orphans, plugins, CLUSTER, cluster);
    assert.deepEqual(results.map((r) => [r.orphan.plugin, r.outcome]), [
      ['kubernetes.io/aws-ebs', 'deleted'],
      ['kubernetes.io/cinder', 'failed'],
      ['kubernetes.io/host-path', 'still-present'],
    ]);
    assert.equal(results[1].detail, 'backend refused');
  });

  it('fails an orphan whose plugin is not registered without touching anything', async () => {
    const [result] = await deleteOrphans([{ plugin: 'gone', volume: dynamic('pvc-z') }], [], CLUSTER, new FakeCluster());
    assert.equal(result.outcome, 'failed');
    assert.match(result.detail ?? '', /not registered/);
  });
});

/** A plugin whose backend holds stray files: removeStrayFiles takes the removable ones. */
class StrayFilePlugin extends MemoryPlugin {
  strays: StrayFile[] = [];
  failStrays = false;

  async listStrayFiles(): Promise<StrayFile[]> {
    if (this.failStrays) throw new Error('record directory unreadable');
    return this.strays.map((f) => ({ ...f }));
  }
  async removeStrayFiles(): Promise<StrayFile[]> {
    if (this.failStrays) throw new Error('record directory unreadable');
    const removed = this.strays.filter((f) => f.removable);
    this.strays = this.strays.filter((f) => !f.removable);
    return removed;
  }
}

describe('stray files', () => {
  const old: StrayFile = { path: '/r/.pv-controller/a.json.0123abcd', modifiedAt: new Date(0), removable: true };
  const fresh: StrayFile = { path: '/r/.pv-controller/b.json.89abcdef', modifiedAt: new Date(), removable: false };

  it('are listed from every plugin that has them; a failing one is reported and the others still listed', async () => {
    const a = new StrayFilePlugin('a');
    a.strays = [old, fresh];
    const broken = new StrayFilePlugin('broken');
    broken.failStrays = true;
    const scan = await findStrayFiles([a, broken, new MemoryPlugin('cloud')]);
    assert.deepEqual(scan.files, [{ plugin: 'a', file: old }, { plugin: 'a', file: fresh }]);
    assert.deepEqual(scan.failures, [{ plugin: 'broken', message: 'record directory unreadable' }]);
  });

  it('removing leaves what may belong to a write in progress and reports what it removed', async () => {
    const a = new StrayFilePlugin('a');
    a.strays = [old, fresh];
    const removed = await removeStrayFiles([a]);
    assert.deepEqual(removed, { files: [{ plugin: 'a', file: old }], failures: [] });
    assert.deepEqual(a.strays, [fresh]);
  });
});
