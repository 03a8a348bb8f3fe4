/**
 * Foreground deletion waits only for dependents whose reference has blockOwnerDeletion, as
 * kube-controller-manager's garbage collector does: ownership cycles (blocking or not) and
 * self-owners end, and a non-blocking dependent held by a finalizer of its own does not hold
 * its owner. Each case then deletes the namespace, which must go too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type EmbeddedTestApiServer, withEmbeddedTestApiServer as withServer } from '../../../test/helpers/apiserver.js';
import { waitFor } from '../../../test/helpers/wait.js';
import { api } from './http-client.js';

const HOLD = 'example.com/hold';
const leases = (ns: string): string => `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`;

interface Owner {
  name: string;
  uid: string;
  block?: boolean;
}

async function createNamespace(t: EmbeddedTestApiServer, ns: string): Promise<void> {
  assert.equal((await api(t.server, 'POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status, 201);
}

const referencesTo = (owners: Owner[]): unknown[] =>
  owners.map((o) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', name: o.name, uid: o.uid, blockOwnerDeletion: o.block }));

async function createLease(t: EmbeddedTestApiServer, ns: string, name: string, owners: Owner[] = [], finalizers?: string[]): Promise<string> {
  const ownerReferences = referencesTo(owners);
  const body = { metadata: { name, finalizers, ownerReferences: ownerReferences.length > 0 ? ownerReferences : undefined }, spec: {} };
  const res = await api(t.server, 'POST', leases(ns), { body });
  assert.equal(res.status, 201, res.text);
  return res.json.metadata.uid as string;
}

/** Points `name`'s ownerReferences at `owners` (a cycle needs both uids first). */
async function setOwners(t: EmbeddedTestApiServer, ns: string, name: string, owners: Owner[]): Promise<void> {
  const ownerReferences = referencesTo(owners);
  const res = await api(t.server, 'PATCH', `${leases(ns)}/${name}`, { body: { metadata: { ownerReferences } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
  assert.equal(res.status, 200, res.text);
}

const gone = (t: EmbeddedTestApiServer, path: string) => async (): Promise<boolean> => (await api(t.server, 'GET', path)).status === 404;

async function deleteForeground(t: EmbeddedTestApiServer, ns: string, name: string): Promise<void> {
  const res = await api(t.server, 'DELETE', `${leases(ns)}/${name}?propagationPolicy=Foreground`);
  assert.equal(res.status, 200, res.text);
}

async function namespaceGoes(t: EmbeddedTestApiServer, ns: string): Promise<void> {
  assert.equal((await api(t.server, 'DELETE', `/api/v1/namespaces/${ns}`)).status, 200);
  await waitFor(gone(t, `/api/v1/namespaces/${ns}`), `namespace ${ns} to go`);
}

for (const block of [true, false]) {
  test(`an ownership cycle (${block ? 'blocking' : 'not blocking'}) deleted in the foreground ends with both objects and the namespace gone`, () =>
    withServer(async (t) => {
      const ns = 'cycle';
      await createNamespace(t, ns);
      const a = await createLease(t, ns, 'a');
      const b = await createLease(t, ns, 'b', [{ name: 'a', uid: a, block }]);
      await setOwners(t, ns, 'a', [{ name: 'b', uid: b, block }]);
      await deleteForeground(t, ns, 'a');
      await waitFor(gone(t, `${leases(ns)}/a`), 'the owner in the cycle to go');
      await waitFor(gone(t, `${leases(ns)}/b`), 'its dependent in the cycle to go');
      await namespaceGoes(t, ns);
    }));
}

test('an object that owns itself with blockOwnerDeletion stays Terminating as with kube-controller-manager, and deleting its namespace ends it', () =>
  withServer(async (t) => {
    const ns = 'self';
    await createNamespace(t, ns);
    const uid = await createLease(t, ns, 'me');
    await setOwners(t, ns, 'me', [{ name: 'me', uid, block: true }]);
    await deleteForeground(t, ns, 'me');
    const loose = await createLease(t, ns, 'loose-self');
    await setOwners(t, ns, 'loose-self', [{ name: 'loose-self', uid: loose, block: false }]);
    await deleteForeground(t, ns, 'loose-self');
    await waitFor(gone(t, `${leases(ns)}/loose-self`), 'a non-blocking self-owner to go');
    assert.deepEqual((await api(t.server, 'GET', `${leases(ns)}/me`)).json.metadata.finalizers, ['foregroundDeletion']);
    await namespaceGoes(t, ns);
  }));

test('a non-blocking dependent held by its own finalizer does not hold its owner; a blocking one does', () =>
  withServer(async (t) => {
    const ns = 'held';
    await createNamespace(t, ns);
    const owner = await createLease(t, ns, 'owner');
    await createLease(t, ns, 'loose', [{ name: 'owner', uid: owner }], [HOLD]);
    await deleteForeground(t, ns, 'owner');
    await waitFor(gone(t, `${leases(ns)}/owner`), 'the owner to go while its non-blocking dependent is held');
    const loose = await api(t.server, 'GET', `${leases(ns)}/loose`);
    assert.ok(loose.json.metadata.deletionTimestamp, 'the dependent was deleted and waits for its own finalizer');

    const boss = await createLease(t, ns, 'boss');
    await createLease(t, ns, 'tied', [{ name: 'boss', uid: boss, block: true }], [HOLD]);
    await deleteForeground(t, ns, 'boss');
    await waitFor(async () => (await api(t.server, 'GET', `${leases(ns)}/tied`)).json.metadata.deletionTimestamp, 'the blocking dependent to be deleted');
    assert.deepEqual((await api(t.server, 'GET', `${leases(ns)}/boss`)).json.metadata.finalizers, ['foregroundDeletion'], 'a blocking dependent holds its owner');

    const release = { body: { metadata: { finalizers: null } }, headers: { 'Content-Type': 'application/merge-patch+json' } };
    for (const name of ['loose', 'tied']) assert.equal((await api(t.server, 'PATCH', `${leases(ns)}/${name}`, release)).status, 200);
    await waitFor(gone(t, `${leases(ns)}/boss`), 'the owner to go once its blocking dependent has');
    await namespaceGoes(t, ns);
  }));
