/**
 * Deletion propagation: the finalizer a delete's propagationPolicy puts on the object (the
 * answer kube-apiserver gives), and the embedded garbage collector acting on it as
 * kube-controller-manager's would.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type EmbeddedTestApiServer, withEmbeddedTestApiServer as withServer } from '../../../test/helpers/apiserver.js';
import { waitFor } from '../../../test/helpers/wait.js';
import { api } from './http-client.js';

const LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases';

async function createLease(t: EmbeddedTestApiServer, name: string, owner?: { name: string; uid: string }): Promise<string> {
  const ownerReferences = owner ? [{ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', ...owner }] : undefined;
  const res = await api(t.server, 'POST', LEASES, { body: { metadata: { name, ownerReferences }, spec: { holderIdentity: 'a' } } });
  assert.equal(res.status, 201, res.text);
  return res.json.metadata.uid as string;
}

const gone = (t: EmbeddedTestApiServer, name: string) => async (): Promise<boolean> => (await api(t.server, 'GET', `${LEASES}/${name}`)).status === 404;

test('a Foreground or Orphan delete answers the object held by the garbage collector\'s finalizer, as kube-apiserver does', () =>
  withServer(async (t) => {
    await createLease(t, 'fg');
    await createLease(t, 'or');
    const fg = await api(t.server, 'DELETE', `${LEASES}/fg?propagationPolicy=Foreground`);
    assert.equal(fg.status, 200, fg.text);
    assert.deepEqual([fg.json.kind, fg.json.metadata.finalizers, fg.json.metadata.deletionGracePeriodSeconds], ['Lease', ['foregroundDeletion'], 0]);
    assert.ok(fg.json.metadata.deletionTimestamp);
    const or = await api(t.server, 'DELETE', `${LEASES}/or`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Orphan' } });
    assert.deepEqual(or.json.metadata.finalizers, ['orphan']);
    assert.deepEqual((await api(t.server, 'GET', `${LEASES}/or`)).json.metadata.finalizers, ['orphan'], 'without a garbage collector it stays');
    const bg = await api(t.server, 'DELETE', `${LEASES}/or?propagationPolicy=Background`);
    assert.equal(bg.json.kind, 'Status', 'a Background delete takes the finalizer off again, which lets the object go');
  }, { garbageCollector: false }));

test('the garbage collector lets an owner without dependents go, orphans dependents, and deletes them first in the foreground', () =>
  withServer(async (t) => {
    await createLease(t, 'alone');
    await api(t.server, 'DELETE', `${LEASES}/alone?propagationPolicy=Foreground`);
    await waitFor(gone(t, 'alone'), 'the owner without dependents to go');

    const parent = await createLease(t, 'parent');
    await createLease(t, 'kept', { name: 'parent', uid: parent });
    assert.deepEqual((await api(t.server, 'DELETE', `${LEASES}/parent?propagationPolicy=Orphan`)).json.metadata.finalizers, ['orphan']);
    await waitFor(gone(t, 'parent'), 'the orphaning owner to go');
    const kept = await api(t.server, 'GET', `${LEASES}/kept`);
    assert.equal(kept.status, 200);
    assert.equal(kept.json.metadata.ownerReferences, undefined, 'the dependent no longer names its owner');

    const root = await createLease(t, 'root');
    await createLease(t, 'leaf', { name: 'root', uid: root });
    await api(t.server, 'DELETE', `${LEASES}/root?propagationPolicy=Foreground`);
    await waitFor(gone(t, 'leaf'), 'the dependent to be deleted first');
    await waitFor(gone(t, 'root'), 'the owner to go once its dependents have');
  }));
