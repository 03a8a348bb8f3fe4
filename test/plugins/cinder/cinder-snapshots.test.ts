/** Cinder volume snapshots, restore and clone against the Keystone + Cinder emulator (creating → available, lost answers, refusals). */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { canSnapshot, type SnapshotRequest } from '../../../src/plugins/api/capabilities/snapshot.js';
import { PluginError } from '../../../src/plugins/api/errors.js';
import { CinderPlugin, type CinderPluginOptions } from '../../../src/plugins/cinder/cinder-plugin.js';
import { fastCloudOptions, GIB, provisionRequest } from '../../emulators/fixtures.js';
import { OpenStackEmulator, openStackEnv } from '../../emulators/openstack.js';

const CLUSTER_TAG = 'kubernetes.io/cluster/kubernetes';

describe('cinder snapshots against the OpenStack emulator', () => {
  // creatingPolls 0: a new volume or snapshot is `creating` in its create answer, available when next read.
  const os = new OpenStackEmulator({ creatingPolls: 0 });
  const plugin = (options: Partial<CinderPluginOptions> = {}): CinderPlugin =>
    new CinderPlugin({
      env: openStackEnv(os),
      ...fastCloudOptions(),
      ...options,
    });
  before(() => os.start());
  after(() => os.stop());
  beforeEach(() => {
    os.faults.clear();
    os.snapshots.statusAfterCreate = 'available';
  });

  async function sourcePv(pvName: string): Promise<PersistentVolume> {
    const made = await plugin().provision(provisionRequest({ pvName }));
    return { metadata: { name: pvName }, spec: { ...made.source } };
  }

  const volumeIdOf = (pv: PersistentVolume): string => pv.spec.cinder?.volumeID ?? '';

  function snapshotRequest(pv: PersistentVolume, name: string): SnapshotRequest {
    return { snapshotName: name, clusterName: 'kubernetes', pv, parameters: {}, snapshot: { name: 'nightly', namespace: 'shop', contentName: `snapcontent-${name}` } };
  }

  it('claims snapshot and clone, and owns only UUID handles', () => {
    const p = plugin();
    assert.ok(canSnapshot(p));
    assert.equal(p.supportsClone, true);
    assert.equal(p.ownsSnapshot('0b7c5b1e-6f0e-4c55-9d2c-3c2b7c1f9a01'), true);
    for (const bad of ['snap-0123456789abcdef0', '0B7C5B1E-6F0E-4C55-9D2C-3C2B7C1F9A01x', '../0b7c5b1e-6f0e-4c55-9d2c-3c2b7c1f9a01', '']) assert.equal(p.ownsSnapshot(bad), false, bad);
  });

  it('POST /snapshots names it, forces it (the volume may be attached) and carries the tags as metadata; creating is not ready, available is', async () => {
    const pv = await sourcePv('pvc-csnap-a');
    const p = plugin();
    const first = await p.createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-a'));
    assert.deepEqual(os.requests.filter((r) => r.action === 'snapshots.create').map((r) => r.body), [
      {
        snapshot: {
          volume_id: volumeIdOf(pv),
          name: 'kubernetes-snapshot-a',
          description: 'VolumeSnapshot shop/nightly',
          force: true,
          metadata: {
            'kubernetes.io/created-for/volumesnapshot/namespace': 'shop',
            'kubernetes.io/created-for/volumesnapshot/name': 'nightly',
            'kubernetes.io/created-for/volumesnapshotcontent/name': 'snapcontent-kubernetes-snapshot-a',
            [CLUSTER_TAG]: 'owned',
          },
        },
      },
    ]);
    assert.equal(first.readyToUse, false);
    assert.equal(first.sizeBytes, 10n * GIB);
    const later = await p.createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-a'));
    assert.equal(later.snapshotId, first.snapshotId);
    assert.equal(later.readyToUse, true);
  });

  it('a lost create answer: the retry finds the snapshot by name and metadata, one in all', async () => {
    const pv = await sourcePv('pvc-csnap-lost');
    os.faults.inject('snapshots.create', 'lostResponse');
    const info = await plugin().createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-lost'));
    assert.deepEqual(os.snapshots.all().filter((s) => s.name === 'kubernetes-snapshot-lost').map((s) => s.id), [info.snapshotId]);
  });

  it('throttled and failing snapshot calls are retried: one snapshot', async () => {
    const pv = await sourcePv('pvc-csnap-throttle');
    os.faults.inject('snapshots.create', 'throttle', 2);
    os.faults.inject('snapshots.list', 'serverError');
    const info = await plugin().createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-throttle'));
    assert.deepEqual(os.snapshots.all().filter((s) => s.name === 'kubernetes-snapshot-throttle').map((s) => s.id), [info.snapshotId]);
  });

  it("lists this cluster's snapshots only (another cluster's of the same name is not ours)", async () => {
    const pv = await sourcePv('pvc-csnap-list');
    const mine = await plugin().createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-list'));
    const theirs = os.snapshots.add({ volumeId: volumeIdOf(pv), name: 'kubernetes-snapshot-list', metadata: { 'kubernetes.io/cluster/other': 'owned' } });
    const listed = await plugin().listSnapshots('kubernetes');
    assert.ok(listed.some((s) => s.snapshotId === mine.snapshotId));
    assert.ok(!listed.some((s) => s.snapshotId === theirs.id));
    assert.equal((await plugin().createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-list'))).snapshotId, mine.snapshotId);
  });

  it("deletes ours (waiting until it is gone) and again is success; refuses another cluster's, a non-UUID handle, or no cluster", async () => {
    const pv = await sourcePv('pvc-csnap-del');
    const { snapshotId } = await plugin().createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-del'));
    await plugin().createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-del'));
    await plugin().deleteSnapshot({ snapshotId, clusterName: 'kubernetes' });
    assert.equal(os.snapshots.all().some((s) => s.id === snapshotId), false);
    await plugin().deleteSnapshot({ snapshotId, clusterName: 'kubernetes' });
    const decoy = os.snapshots.add({ volumeId: volumeIdOf(pv), name: 'decoy', metadata: { 'kubernetes.io/cluster/other': 'owned' } });
    const before = os.requests.length;
    const unsafe = (e: unknown) => e instanceof PluginError && e.code === 'Unsafe' && !e.retryable;
    await assert.rejects(plugin().deleteSnapshot({ snapshotId: decoy.id, clusterName: 'kubernetes' }), unsafe);
    await assert.rejects(plugin().deleteSnapshot({ snapshotId: decoy.id }), unsafe);
    await assert.rejects(plugin().deleteSnapshot({ snapshotId: `${decoy.id}/../x`, preProvisioned: true }), unsafe);
    assert.equal(os.requests.slice(before).filter((r) => r.action === 'snapshots.delete').length, 0);
    await plugin().deleteSnapshot({ snapshotId: decoy.id, preProvisioned: true });
    assert.equal(os.snapshots.all().some((s) => s.id === decoy.id), false);
  });

  it('a snapshot a volume is still being created from is InUse and stays', async () => {
    const pv = await sourcePv('pvc-csnap-busy');
    const busy = os.snapshots.add({ volumeId: volumeIdOf(pv), name: 'busy', metadata: { [CLUSTER_TAG]: 'owned' } });
    os.addVolume({ name: 'restoring', status: 'creating', snapshotId: busy.id });
    await assert.rejects(plugin().deleteSnapshot({ snapshotId: busy.id, clusterName: 'kubernetes' }), (e: unknown) => e instanceof PluginError && e.code === 'InUse' && e.retryable);
    assert.ok(os.snapshots.all().some((s) => s.id === busy.id));
  });

  it("restore creates the volume with snapshot_id in the snapshot's zone, never smaller; clone with source_volid", async () => {
    const pv = await sourcePv('pvc-csnap-src');
    const p = plugin();
    await p.createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-r'));
    const { snapshotId } = await p.createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-r'));
    const restored = await p.provisionFromSnapshot(provisionRequest({ pvName: 'pvc-crestored', requestBytes: GIB }), { snapshotId });
    const restore = os.requests.filter((r) => r.action === 'volumes.create').at(-1)?.body as { volume: Record<string, unknown> };
    assert.equal(restore.volume.snapshot_id, snapshotId);
    assert.equal(restore.volume.size, 10);
    assert.equal(restored.capacity, '10Gi');
    await p.provisionClone(provisionRequest({ pvName: 'pvc-ccloned' }), pv);
    const clone = os.requests.filter((r) => r.action === 'volumes.create').at(-1)?.body as { volume: Record<string, unknown> };
    assert.equal(clone.volume.source_volid, volumeIdOf(pv));
    assert.equal(clone.volume.availability_zone, os.zones[0]);
  });

  it('a restore for a node in another zone is refused before any volume is created; a non-UUID handle is refused', async () => {
    const pv = await sourcePv('pvc-csnap-zone');
    const { snapshotId } = await plugin().createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-z'));
    const zoned = plugin({ topology: { zoneOfNode: async () => os.zones[1] } });
    const before = os.requests.length;
    await assert.rejects(zoned.provisionFromSnapshot(provisionRequest({ pvName: 'pvc-cz' }, { selectedNode: 'n2' }), { snapshotId }), (e: unknown) => e instanceof PluginError && e.code === 'InvalidParameter');
    await assert.rejects(plugin().provisionFromSnapshot(provisionRequest({ pvName: 'pvc-cz2' }), { snapshotId: 'snap-01234567' }), (e: unknown) => e instanceof PluginError && e.code === 'Unsafe');
    assert.equal(os.requests.slice(before).filter((r) => r.action === 'volumes.create').length, 0);
  });

  it('a volume with snapshots is not deleted (Cinder refuses): InUse, retryable', async () => {
    const pv = await sourcePv('pvc-csnap-keep');
    await plugin().createSnapshot(snapshotRequest(pv, 'kubernetes-snapshot-keep'));
    await assert.rejects(plugin().delete({ backingName: 'x', pv }), (e: unknown) => e instanceof PluginError && e.code === 'InUse' && e.retryable);
  });
});
