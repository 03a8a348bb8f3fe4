import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { type EmbeddedTestApiServer, withEmbeddedTestApiServer } from '../../../test/helpers/apiserver.js';
import type { ApiServerOptions } from '@pv-controller/apiserver/server.js';
import { api, type ApiResponse } from './http-client.js';

const withServer = (opts: Partial<ApiServerOptions>, fn: (t: EmbeddedTestApiServer) => Promise<void>): Promise<void> => withEmbeddedTestApiServer(fn, opts);

const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const claim = (name: string): unknown => ({
  apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
});

/** Polls `path` until `done` holds for its answer (the namespace controller works asynchronously). */
async function until(t: EmbeddedTestApiServer, path: string, done: (r: ApiResponse) => boolean): Promise<ApiResponse> {
  for (;;) {
    const r = await api(t.server, 'GET', path);
    if (done(r)) return r;
    await sleep(20);
  }
}

test('a deleted namespace is Terminating; it is emptied, waits for its objects\' finalizers, then goes', { timeout: 30_000 }, () =>
  withServer({}, async (t) => {
    const { server } = t;
    assert.equal((await api(server, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'team' } } })).status, 201);
    const claims = '/api/v1/namespaces/team/persistentvolumeclaims';
    const leases = '/apis/coordination.k8s.io/v1/namespaces/team/leases';
    await api(server, 'POST', leases, { body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'free' }, spec: {} } });
    // The claim's admission adds kubernetes.io/pvc-protection, which holds it until removed here.
    await api(server, 'POST', claims, { body: claim('held') });
    const deleted = await api(server, 'DELETE', '/api/v1/namespaces/team');
    assert.equal(deleted.status, 200);
    assert.equal(deleted.json.status.phase, 'Terminating');
    assert.ok(deleted.json.metadata.deletionTimestamp);
    assert.deepEqual(deleted.json.spec.finalizers, ['kubernetes']);
    const refused = await api(server, 'POST', claims, { body: claim('late') });
    assert.equal(refused.status, 403);
    assert.equal(refused.json.message, 'persistentvolumeclaims "late" is forbidden: unable to create new content in namespace team because it is being terminated');
    assert.deepEqual(refused.json.details.causes, [{ reason: 'NamespaceTerminating', message: 'namespace team is being terminated', field: 'metadata.namespace' }]);
    await until(t, `${leases}/free`, (r) => r.status === 404);
    const held = await until(t, `${claims}/held`, (r) => r.json?.metadata?.deletionTimestamp !== undefined);
    assert.equal(held.status, 200);
    assert.equal((await api(server, 'GET', '/api/v1/namespaces/team')).json.status.phase, 'Terminating');
    await api(server, 'PATCH', `${claims}/held`, { body: { metadata: { finalizers: null } }, headers: MERGE });
    await until(t, '/api/v1/namespaces/team', (r) => r.status === 404);
  }));

test('without the namespace controller a deleted namespace stays Terminating, as on kube-apiserver alone; finalize lets it go', () =>
  withServer({ namespaceController: false }, async ({ server }) => {
    await api(server, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'team' } } });
    await api(server, 'DELETE', '/api/v1/namespaces/team');
    const again = await api(server, 'DELETE', '/api/v1/namespaces/team');
    assert.equal(again.json.status.phase, 'Terminating');
    const ns = (await api(server, 'GET', '/api/v1/namespaces/team')).json;
    const badFinalize = await api(server, 'PATCH', '/api/v1/namespaces/team/finalize', { body: {}, headers: MERGE });
    assert.equal(badFinalize.status, 405);
    const finalized = await api(server, 'PUT', '/api/v1/namespaces/team/finalize', { body: { ...ns, spec: { finalizers: [] } } });
    assert.equal(finalized.status, 200);
    assert.equal((await api(server, 'GET', '/api/v1/namespaces/team')).status, 404);
  }));

test('deleting an Event, Lease or Node answers a Success Status; a PUT to a missing Lease or Event creates it', () =>
  withServer({}, async ({ server }) => {
    const node = await api(server, 'POST', '/api/v1/nodes', { body: { metadata: { name: 'n1' } } });
    const gone = await api(server, 'DELETE', '/api/v1/nodes/n1');
    assert.deepEqual(gone.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'n1', kind: 'nodes', uid: node.json.metadata.uid } });
    const leases = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
    const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l1' }, spec: { holderIdentity: 'a' } };
    const created = await api(server, 'PUT', `${leases}/l1`, { body: lease });
    assert.equal(created.status, 201);
    assert.equal((await api(server, 'PUT', `${leases}/l1`, { body: { ...created.json, spec: { holderIdentity: 'b' } } })).status, 200);
    const leaseGone = await api(server, 'DELETE', `${leases}/l1`);
    assert.equal(leaseGone.json.details.group, 'coordination.k8s.io');
    assert.equal(leaseGone.json.details.kind, 'leases');
    const claimPut = await api(server, 'PUT', '/api/v1/namespaces/default/persistentvolumeclaims/c1', { body: { ...(claim('c1') as object) } });
    assert.equal(claimPut.status, 404, 'claims are not created on update');
  }));
