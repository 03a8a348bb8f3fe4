import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type EmbeddedTestApiServer, withEmbeddedTestApiServer } from '../../../test/helpers/apiserver.js';
import { api } from './http-client.js';

const withServer = (fn: (t: EmbeddedTestApiServer) => Promise<void>): Promise<void> => withEmbeddedTestApiServer(fn);

const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const PVS = '/api/v1/persistentvolumes';
const pv = (name: string, extra: Record<string, unknown> = {}): unknown => ({
  apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name, labels: { set: 'a' } },
  spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/tmp/${name}` }, ...extra },
});

test('a Recycle PV is accepted with kube-apiserver\'s deprecation warning on a server-side apply to it, as on create and update', () =>
  withServer(async ({ server }) => {
    assert.equal((await api(server, 'POST', PVS, { body: pv('r0', { persistentVolumeReclaimPolicy: 'Recycle' }) })).status, 201);
    const applied = await api(server, 'PATCH', `${PVS}/r0?fieldManager=applier&force=true`, {
      rawBody: JSON.stringify({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'r0', labels: { applied: 'yes' } } }),
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
    });
    assert.equal(applied.status, 200, applied.text);
    assert.match(String(applied.headers.warning), /Recycle reclaim policy is deprecated/);
  }));

test('a Recycle PV is accepted with kube-apiserver\'s deprecation warning, on create and update', () =>
  withServer(async ({ server }) => {
    const created = await api(server, 'POST', PVS, { body: pv('r1', { persistentVolumeReclaimPolicy: 'Recycle' }) });
    assert.equal(created.status, 201);
    assert.equal(created.headers.warning,
      '299 - "spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning."');
    const patched = await api(server, 'PATCH', `${PVS}/r1`, { body: { metadata: { labels: { b: 'c' } } }, headers: MERGE });
    assert.match(String(patched.headers.warning), /Recycle reclaim policy is deprecated/);
  }));

test('deletecollection answers the objects as they were before the delete; a new finalizer on a deleting object is named', () =>
  withServer(async ({ server }) => {
    await api(server, 'POST', PVS, { body: pv('d1') });
    const gone = await api(server, 'DELETE', `${PVS}?labelSelector=set%3Da`);
    assert.equal(gone.status, 200);
    assert.equal(gone.json.items[0].metadata.deletionTimestamp, undefined, 'the pv-protection finalizer holds it, but the answer is the object before');
    assert.equal(gone.json.items[0].kind, undefined, 'list items carry no kind of their own');
    const late = await api(server, 'PATCH', `${PVS}/d1`, { body: { metadata: { finalizers: ['kubernetes.io/pv-protection', 'example.com/late'] } }, headers: MERGE });
    assert.equal(late.status, 422);
    assert.equal(late.json.details.causes[0].message,
      'Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/late"}');
  }));

test('a Table without objects has null row objects; an events.k8s.io update may change only the series', () =>
  withServer(async ({ server }) => {
    await api(server, 'POST', PVS, { body: pv('t1') });
    const table = await api(server, 'GET', `${PVS}?includeObject=None`, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    assert.equal(table.json.rows[0].object, null);
    const events = '/apis/events.k8s.io/v1/namespaces/default/events';
    const ev = { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e1' }, eventTime: '2026-01-01T00:00:00.000000Z',
      reportingController: 'example.com/c', reportingInstance: 'c-1', action: 'Provision', reason: 'Done', note: 'first', type: 'Normal',
      regarding: { kind: 'PersistentVolume', name: 't1' } };
    const created = await api(server, 'POST', events, { body: ev });
    assert.equal(created.json.deprecatedSource && JSON.stringify(created.json.deprecatedSource), '{}');
    const changed = await api(server, 'PUT', `${events}/e1`, { body: { ...created.json, note: 'changed' } });
    assert.equal(changed.status, 422);
    assert.equal(changed.json.message, 'Event "e1" is invalid: message: Invalid value: "changed": field is immutable');
    assert.equal(changed.json.details.group, undefined, 'validated as the core Event it is stored as');
  }));

test('a Pod is deleted gracefully: a scheduled one is kept its grace period, an unscheduled one goes at once with the deletion marks', () =>
  withServer(async ({ server }) => {
    const pods = '/api/v1/namespaces/default/pods';
    const pod = (name: string, nodeName?: string): unknown => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name },
      spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'app', image: 'app:1' }] } });
    await api(server, 'POST', pods, { body: pod('running', 'node-1') });
    const graceful = await api(server, 'DELETE', `${pods}/running`);
    assert.equal(graceful.json.metadata.deletionGracePeriodSeconds, 30);
    assert.equal(graceful.json.metadata.generation, 2, 'the start of deletion counts in generation');
    const { creationTimestamp, deletionTimestamp } = graceful.json.metadata;
    assert.ok(Date.parse(deletionTimestamp) - Date.parse(creationTimestamp) >= 30_000, 'deletionTimestamp is the end of the grace period');
    assert.equal((await api(server, 'GET', `${pods}/running`)).status, 200);
    await api(server, 'DELETE', `${pods}/running?gracePeriodSeconds=0`);
    assert.equal((await api(server, 'GET', `${pods}/running`)).status, 404);
    await api(server, 'POST', pods, { body: pod('pending') });
    const immediate = await api(server, 'DELETE', `${pods}/pending`);
    assert.equal(immediate.json.metadata.deletionGracePeriodSeconds, 0);
    assert.ok(immediate.json.metadata.deletionTimestamp);
    assert.equal((await api(server, 'GET', `${pods}/pending`)).status, 404);
  }));
