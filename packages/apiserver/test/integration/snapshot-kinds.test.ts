/**
 * The snapshot.storage.k8s.io kinds over HTTP, served from their CustomResourceDefinitions:
 * create, get, list, watch, update, merge and JSON patch, delete with finalizers; the status
 * subresource; defaulting, pruning and validation (schema and CEL rules); discovery.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startEmbeddedTestApiServer, type EmbeddedTestApiServer } from '../../../../test/helpers/apiserver.js';
import { api, watch } from '../http-client.js';

const GV = 'snapshot.storage.k8s.io/v1';
const SNAPSHOTS = `/apis/${GV}/namespaces/default/volumesnapshots`;
const CONTENTS = `/apis/${GV}/volumesnapshotcontents`;
const CLASSES = `/apis/${GV}/volumesnapshotclasses`;
const MERGE = { 'Content-Type': 'application/merge-patch+json' };

let t: EmbeddedTestApiServer;

before(async () => {
  t = await startEmbeddedTestApiServer();
});

after(async () => {
  await t.stop();
});

const snapshot = (name: string, source: Record<string, unknown> = { persistentVolumeClaimName: 'data' }): Record<string, unknown> => ({
  apiVersion: GV, kind: 'VolumeSnapshot', metadata: { name }, spec: { source, volumeSnapshotClassName: 'csi' },
});

const content = (name: string): Record<string, unknown> => ({
  apiVersion: GV, kind: 'VolumeSnapshotContent', metadata: { name },
  spec: {
    deletionPolicy: 'Delete', driver: 'hostpath.csi.k8s.io', source: { volumeHandle: 'vol-1' },
    volumeSnapshotRef: { name: 'snap', namespace: 'default' },
  },
});

test('a VolumeSnapshot is created, read, listed and deleted, with generation 1 and status dropped on create', async () => {
  const created = await api(t.server, 'POST', SNAPSHOTS, { body: { ...snapshot('crud'), status: { readyToUse: true } } });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.json.metadata.generation, 1);
  assert.equal(created.json.status, undefined);
  assert.equal(created.json.apiVersion, GV);
  const got = await api(t.server, 'GET', `${SNAPSHOTS}/crud`);
  assert.equal(got.status, 200);
  assert.deepEqual(got.json.spec, { source: { persistentVolumeClaimName: 'data' }, volumeSnapshotClassName: 'csi' });
  const list = await api(t.server, 'GET', SNAPSHOTS);
  assert.equal(list.json.kind, 'VolumeSnapshotList');
  assert.deepEqual(list.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['crud']);
  const deleted = await api(t.server, 'DELETE', `${SNAPSHOTS}/crud`);
  assert.equal(deleted.status, 200, deleted.text);
  assert.equal((await api(t.server, 'GET', `${SNAPSHOTS}/crud`)).status, 404);
});

test('unknown fields of a VolumeSnapshot are pruned and reported as warnings, and refused under Strict', async () => {
  const body = { ...snapshot('pruned'), spec: { source: { persistentVolumeClaimName: 'data', bogus: 1 }, extra: true }, top: 'x' };
  const created = await api(t.server, 'POST', SNAPSHOTS, { body });
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(created.json.spec, { source: { persistentVolumeClaimName: 'data' } });
  assert.equal(created.json.top, undefined);
  assert.equal(created.headers.warning, [
    '299 - "unknown field \\"spec.extra\\""', '299 - "unknown field \\"spec.source.bogus\\""', '299 - "unknown field \\"top\\""',
  ].join(', '));
  const strict = await api(t.server, 'POST', `${SNAPSHOTS}?fieldValidation=Strict`, { body: { ...body, metadata: { name: 'strict' } } });
  assert.equal(strict.status, 400);
  assert.match(strict.json.message, /strict decoding error: unknown field "spec.extra", unknown field "spec.source.bogus", unknown field "top"/);
});

test('a VolumeSnapshot whose source names both a claim and a content is refused by its CEL rule', async () => {
  const res = await api(t.server, 'POST', SNAPSHOTS, { body: snapshot('both', { persistentVolumeClaimName: 'a', volumeSnapshotContentName: 'b' }) });
  assert.equal(res.status, 422, res.text);
  assert.deepEqual(res.json.details.causes, [{
    reason: 'FieldValueInvalid', field: 'spec.source',
    message: 'Invalid value: exactly one of volumeSnapshotContentName and persistentVolumeClaimName must be set',
  }]);
});

test('the source of a VolumeSnapshot cannot change (transition rule on update)', async () => {
  assert.equal((await api(t.server, 'POST', SNAPSHOTS, { body: snapshot('fixed') })).status, 201);
  const res = await api(t.server, 'PATCH', `${SNAPSHOTS}/fixed`, { headers: MERGE, body: { spec: { source: { persistentVolumeClaimName: 'other' } } } });
  assert.equal(res.status, 422, res.text);
  assert.equal(res.json.details.causes[0].field, 'spec.source.persistentVolumeClaimName');
  assert.match(res.json.details.causes[0].message, /persistentVolumeClaimName is immutable/);
});

test('a VolumeSnapshotClass with a deletionPolicy outside its enum and no driver is refused', async () => {
  const res = await api(t.server, 'POST', CLASSES, { body: { apiVersion: GV, kind: 'VolumeSnapshotClass', metadata: { name: 'bad' }, deletionPolicy: 'Keep' } });
  assert.equal(res.status, 422, res.text);
  assert.deepEqual(res.json.details.causes.map((c: { field: string; message: string }) => [c.field, c.message]), [
    ['deletionPolicy', 'Unsupported value: "Keep": supported values: "Delete", "Retain"'],
    ['driver', 'Required value'],
  ]);
});

test('the status of a VolumeSnapshotContent is written through /status only, and spec changes there are ignored', async () => {
  assert.equal((await api(t.server, 'POST', CONTENTS, { body: content('c1') })).status, 201);
  const main = await api(t.server, 'PATCH', `${CONTENTS}/c1`, { headers: MERGE, body: { status: { readyToUse: true } } });
  assert.equal(main.status, 200, main.text);
  assert.equal(main.json.status, undefined);
  assert.equal(main.json.metadata.generation, 1);
  const status = await api(t.server, 'PATCH', `${CONTENTS}/c1/status`, {
    headers: MERGE, body: { spec: { driver: 'other' }, status: { readyToUse: true, restoreSize: 1024, snapshotHandle: 'snap-1' } },
  });
  assert.equal(status.status, 200, status.text);
  assert.deepEqual(status.json.status, { readyToUse: true, restoreSize: 1024, snapshotHandle: 'snap-1' });
  assert.equal(status.json.spec.driver, 'hostpath.csi.k8s.io');
  assert.equal(status.json.metadata.generation, 1);
  const spec = await api(t.server, 'PATCH', `${CONTENTS}/c1`, { headers: MERGE, body: { spec: { deletionPolicy: 'Retain' } } });
  assert.equal(spec.json.metadata.generation, 2);
  const negative = await api(t.server, 'PATCH', `${CONTENTS}/c1/status`, { headers: MERGE, body: { status: { restoreSize: -1 } } });
  assert.equal(negative.status, 422, negative.text);
  assert.equal(negative.json.details.causes[0].message, 'Invalid value: -1: restoreSize in body should be greater than or equal to 0');
});

test('a VolumeSnapshot with a finalizer stays until the finalizer is removed, and a watch sees every step', async () => {
  const stream = await watch(t.server, `${SNAPSHOTS}?watch=true&fieldSelector=metadata.name%3Dheld`);
  try {
    const body = snapshot('held');
    (body.metadata as Record<string, unknown>).finalizers = ['snapshot.storage.kubernetes.io/volumesnapshot-as-source-protection'];
    assert.equal((await api(t.server, 'POST', SNAPSHOTS, { body })).status, 201);
    const del = await api(t.server, 'DELETE', `${SNAPSHOTS}/held`);
    assert.equal(del.status, 200);
    assert.ok(del.json.metadata.deletionTimestamp);
    const cleared = await api(t.server, 'PATCH', `${SNAPSHOTS}/held`, { headers: MERGE, body: { metadata: { finalizers: null } } });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal((await api(t.server, 'GET', `${SNAPSHOTS}/held`)).status, 404);
    const types = [];
    for (let i = 0; i < 3; i++) types.push((await stream.next()).type);
    assert.deepEqual(types, ['ADDED', 'MODIFIED', 'DELETED']);
  } finally {
    stream.close();
  }
});

test('a VolumeSnapshotClass is replaced by PUT with its resourceVersion, and a stale one conflicts', async () => {
  const body = { apiVersion: GV, kind: 'VolumeSnapshotClass', metadata: { name: 'put' }, driver: 'hostpath.csi.k8s.io', deletionPolicy: 'Delete' };
  const created = await api(t.server, 'POST', CLASSES, { body });
  assert.equal(created.status, 201, created.text);
  const replaced = await api(t.server, 'PUT', `${CLASSES}/put`, { body: { ...created.json, parameters: { tier: 'gold' } } });
  assert.equal(replaced.status, 200, replaced.text);
  assert.deepEqual(replaced.json.parameters, { tier: 'gold' });
  assert.equal(replaced.json.metadata.generation, 2);
  const stale = await api(t.server, 'PUT', `${CLASSES}/put`, { body: { ...created.json, parameters: { tier: 'silver' } } });
  assert.equal(stale.status, 409);
});

test('discovery lists the snapshot kinds with their short names, scope and status subresources', async () => {
  const res = await api(t.server, 'GET', `/apis/${GV}`);
  assert.equal(res.status, 200);
  const byName = new Map(res.json.resources.map((r: { name: string }) => [r.name, r]));
  assert.deepEqual((byName.get('volumesnapshots') as { shortNames: string[] }).shortNames, ['vs']);
  assert.equal((byName.get('volumesnapshots') as { namespaced: boolean }).namespaced, true);
  assert.equal((byName.get('volumesnapshotcontents') as { namespaced: boolean }).namespaced, false);
  assert.ok(byName.has('volumesnapshotcontents/status'));
  assert.ok(!byName.has('volumesnapshotclasses/status'));
});
