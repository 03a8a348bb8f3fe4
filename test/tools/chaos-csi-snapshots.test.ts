/**
 * The chaos suite's `csi-snapshots` invariant on recorded states: every snapshot the driver holds
 * belongs to exactly one VolumeSnapshotContent or is being deleted (or cut), and every ready
 * VolumeSnapshot's content names a snapshot the driver holds; and the CreateSnapshot names the
 * mock's log gives each driver snapshot; the snapshot part of the workload.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { VolumeSnapshot, VolumeSnapshotContent } from '@pv-controller/kube/snapshot-types.js';
import { checkCsiSnapshots, snapshotUidOf, type DriverSnapshot } from '../../tools/chaos/csi-snapshot-invariant.js';
import { CSI_DRIVER_NAME, snapshotsMadeByName } from '../../tools/chaos/csi.js';
import type { RecordingClient } from '../../tools/chaos/history.js';
import { Prng } from '../../tools/chaos/prng.js';
import { createSnapshotClass, SnapshotWorkload } from '../../tools/chaos/snapshot-workload.js';
import { NAMESPACE } from '../../tools/chaos/world.js';

const VS_UID = '5a1f0c3e-1111-4b4b-8d8d-000000000001';

interface ContentOpts {
  handle?: string;
  preProvisioned?: boolean;
  deleting?: boolean;
  driver?: string;
  snapshotUid?: string;
}

function content(name: string, o: ContentOpts = {}): VolumeSnapshotContent {
  const source = o.preProvisioned ? { snapshotHandle: o.handle } : { volumeHandle: 'vol-1' };
  return {
    metadata: { name, ...(o.deleting ? { deletionTimestamp: '2026-12-02T09:00:00Z' } : {}) },
    spec: { driver: o.driver ?? CSI_DRIVER_NAME, deletionPolicy: 'Delete', source, volumeSnapshotRef: { namespace: 'default', name: `vs-${name}`, ...(o.snapshotUid ? { uid: o.snapshotUid } : {}) } },
    ...(o.handle !== undefined && !o.preProvisioned ? { status: { snapshotHandle: o.handle, readyToUse: true } } : {}),
  } as VolumeSnapshotContent;
}

function ready(name: string, contentName: string): VolumeSnapshot {
  return { metadata: { namespace: 'default', name }, spec: { source: { persistentVolumeClaimName: 'c' } }, status: { readyToUse: true, boundVolumeSnapshotContentName: contentName } } as VolumeSnapshot;
}

const snap = (id: string, name?: string): DriverSnapshot => ({ id, sourceVolumeId: 'vol-1', ...(name ? { name } : {}) });

test('csi-snapshots: driver snapshots each named by one content (dynamic, pre-provisioned or being deleted) and ready snapshots whose handles the driver holds are no violation', () => {
  const result = checkCsiSnapshots({
    driver: CSI_DRIVER_NAME,
    driverSnapshots: [snap('1'), snap('2'), snap('3')],
    contents: [content('c1', { handle: '1' }), content('c2', { handle: '2', preProvisioned: true }), content('c3', { handle: '3', deleting: true })],
    snapshots: [ready('a', 'c1'), ready('b', 'c2')],
  });
  assert.deepEqual(result.violations, []);
  assert.equal(result.checked, 5);
});

test('csi-snapshots: a driver snapshot no content names is leaked, unless its CreateSnapshot name is that of a snapshot whose content awaits its handle', () => {
  const leaked = checkCsiSnapshots({ driver: CSI_DRIVER_NAME, driverSnapshots: [snap('7', `snapshot-${VS_UID}`)], contents: [], snapshots: [] });
  assert.equal(leaked.violations.length, 1);
  assert.match(leaked.violations[0]!, /driver snapshot 7 .* belongs to no VolumeSnapshotContent .*: leaked/);
  const cutting = checkCsiSnapshots({ driver: CSI_DRIVER_NAME, driverSnapshots: [snap('7', `snapshot-${VS_UID}`)], contents: [content('c7', { snapshotUid: VS_UID })], snapshots: [] });
  assert.deepEqual(cutting.violations, []);
  const otherDriver = checkCsiSnapshots({ driver: CSI_DRIVER_NAME, driverSnapshots: [snap('8')], contents: [content('c8', { handle: '8', driver: 'other.csi.io' })], snapshots: [] });
  assert.equal(otherDriver.violations.length, 1, "another driver's content does not account for this driver's snapshot");
});

test('csi-snapshots: a driver snapshot named by two contents is a violation', () => {
  const result = checkCsiSnapshots({ driver: CSI_DRIVER_NAME, driverSnapshots: [snap('4')], contents: [content('c4', { handle: '4' }), content('c4b', { handle: '4', preProvisioned: true })], snapshots: [] });
  assert.deepEqual(result.violations, ['driver snapshot 4 (of volume vol-1) belongs to 2 VolumeSnapshotContents: c4, c4b']);
});

test("csi-snapshots: a ready snapshot whose content is gone, or names a snapshot the driver does not hold, is a violation", () => {
  const result = checkCsiSnapshots({
    driver: CSI_DRIVER_NAME,
    driverSnapshots: [],
    contents: [content('c5', { handle: '5' })],
    snapshots: [ready('gone', 'c-missing'), ready('dangling', 'c5'), { ...ready('not-ready', 'c-missing'), status: { readyToUse: false } } as VolumeSnapshot],
  });
  assert.deepEqual(result.violations, [
    'ready VolumeSnapshot default/gone is bound to content "c-missing", which does not exist',
    'ready VolumeSnapshot default/dangling: its content c5 names driver snapshot "5", which the driver does not hold',
  ]);
});

test("the mock's call log names each driver snapshot's CreateSnapshot name, from its OK answers only", () => {
  const log = [
    JSON.stringify({ method: '/csi.v1.Controller/CreateSnapshot', code: 'OK', request: { name: `snapshot-${VS_UID}`, sourceVolumeId: '4' }, response: { snapshot: { snapshotId: '9' } } }),
    JSON.stringify({ method: '/csi.v1.Controller/CreateSnapshot', code: 'Unavailable', request: { name: 'snapshot-x' }, response: null }),
    JSON.stringify({ method: '/csi.v1.Controller/CreateVolume', code: 'OK', request: { name: 'pvc-1' }, response: { volume: { volumeId: '5' } } }),
    'csi-mock: serving',
  ].join('\n');
  assert.deepEqual([...snapshotsMadeByName(log)], [['9', `snapshot-${VS_UID}`]]);
});

/** A RecordingClient stand-in: answers every request with `outcome`, and keeps what was sent. */
function stubClient(outcome: 'ok' | 'failed' = 'ok', error?: string): { client: RecordingClient; sent: { op: string; method: string; path: string; body?: unknown }[] } {
  const sent: { op: string; method: string; path: string; body?: unknown }[] = [];
  const client = {
    send: (op: string, method: string, path: string, body?: unknown) => {
      sent.push({ op, method, path, body });
      return Promise.resolve({ outcome, ...(error ? { error } : {}) });
    },
  } as unknown as RecordingClient;
  return { client, sent };
}

test('the snapshot workload snapshots a claim, restores from a snapshot it made, and forgets a snapshot it deleted', async () => {
  const { client, sent } = stubClient();
  const w = new SnapshotWorkload(client);
  const random = new Prng(1);
  assert.equal(w.pick(random), undefined, 'nothing to restore from before a snapshot');
  assert.equal(await w.snapshot('claim-3'), 'ok');
  assert.deepEqual(sent[0], {
    op: 'snapshot',
    method: 'POST',
    path: `/apis/snapshot.storage.k8s.io/v1/namespaces/${NAMESPACE}/volumesnapshots`,
    body: { apiVersion: 'snapshot.storage.k8s.io/v1', kind: 'VolumeSnapshot', metadata: { name: 'snap-1' }, spec: { source: { persistentVolumeClaimName: 'claim-3' } } },
  });
  assert.equal(w.pick(random), 'snap-1');
  assert.deepEqual(w.restoredClaim('restored-9', 'chaos-csi', 'snap-1').spec.dataSource, { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'snap-1' });
  assert.equal(await w.remove(random), 'ok');
  assert.equal(sent[1]?.method, 'DELETE');
  assert.equal(w.pick(random), undefined);
  assert.deepEqual(w.counts, { snapshot: 1, unsnapshot: 1, restore: 1 });
});

test('a chaos run with --snapshots against a server without the snapshot kinds stops at once, saying so', async () => {
  const { client } = stubClient('failed', 'POST /apis/snapshot.storage.k8s.io/v1/volumesnapshotclasses: HTTP 404');
  await assert.rejects(createSnapshotClass(client), /does it serve snapshot\.storage\.k8s\.io\/v1\?/);
});

test('a CreateSnapshot name gives back its VolumeSnapshot uid, external-snapshotter\'s form and ours, and nothing else does', () => {
  const uid = '0b6d3e0c-3f5e-4b8e-9a51-5f1f0c2d9e11';
  assert.equal(snapshotUidOf(`snapshot-${uid}`), uid);
  assert.equal(snapshotUidOf(`kubernetes-snapshot-${uid}`), uid);
  assert.equal(snapshotUidOf(`kubernetes-dynamic-pvc-${uid}`), undefined);
  assert.equal(snapshotUidOf(`snapshot-${uid}-extra`), undefined);
});
