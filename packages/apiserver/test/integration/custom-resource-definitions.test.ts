/**
 * CustomResourceDefinitions over HTTP on the embedded server: the snapshot CRDs stored at start,
 * a user's CRD established and served, a CRD delete held until its instances are gone, and the
 * snapshot kinds covered by namespace deletion and the garbage collector.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startEmbeddedTestApiServer, type EmbeddedTestApiServer } from '../../../../test/helpers/apiserver.js';
import { waitFor } from '../../../../test/helpers/wait.js';
import { api } from '../http-client.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const GADGETS = '/apis/example.com/v1/namespaces/default/gadgets';
const MERGE = { 'Content-Type': 'application/merge-patch+json' };
const WAIT = { timeoutMs: 10_000, intervalMs: 20 };

let t: EmbeddedTestApiServer;

before(async () => {
  t = await startEmbeddedTestApiServer();
});

after(async () => {
  await t.stop();
});

const gadgets = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gadgets.example.com' },
  spec: {
    group: 'example.com', scope: 'Namespaced', names: { plural: 'gadgets', kind: 'Gadget' },
    versions: [{
      name: 'v1', served: true, storage: true, subresources: { status: {} },
      schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { color: { type: 'string', default: 'blue' } } }, status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } },
    }],
  },
};

test('the snapshot CRDs are stored and Established at start', async () => {
  const res = await api(t.server, 'GET', `${CRDS}/volumesnapshots.snapshot.storage.k8s.io`);
  assert.equal(res.status, 200, res.text);
  const conditions = res.json.status.conditions.map((c: { type: string; status: string }) => `${c.type}=${c.status}`);
  assert.deepEqual(conditions, ['NamesAccepted=True', 'Established=True']);
  assert.deepEqual(res.json.status.storedVersions, ['v1']);
  assert.equal(res.json.status.acceptedNames.kind, 'VolumeSnapshot');
});

test('a CRD whose name is not plural.group is refused', async () => {
  const res = await api(t.server, 'POST', CRDS, { body: { ...gadgets, metadata: { name: 'wrong.example.com' } } });
  assert.equal(res.status, 422, res.text);
  assert.equal(res.json.details.causes[0].field, 'metadata.name');
  assert.equal(res.json.details.causes[0].message, 'Invalid value: "wrong.example.com": must be spec.names.plural+"."+spec.group');
});

test('a user\'s CRD is defaulted, Established, served with its schema defaults, and listed in discovery', async () => {
  const created = await api(t.server, 'POST', CRDS, { body: gadgets });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.json.spec.names.singular, 'gadget');
  assert.equal(created.json.spec.names.listKind, 'GadgetList');
  assert.deepEqual(created.json.spec.conversion, { strategy: 'None' });
  await waitFor(async () => (await api(t.server, 'GET', `${CRDS}/gadgets.example.com`)).json.status?.conditions?.length === 2, 'the CRD to be Established', WAIT);
  const gadget = await api(t.server, 'POST', GADGETS, { body: { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g1' }, spec: {} } });
  assert.equal(gadget.status, 201, gadget.text);
  assert.deepEqual(gadget.json.spec, { color: 'blue' });
  const discovery = await api(t.server, 'GET', '/apis/example.com/v1');
  assert.deepEqual(discovery.json.resources.map((r: { name: string }) => r.name), ['gadgets', 'gadgets/status']);
});

test('a deleted CRD stays Terminating while an instance holds a finalizer, and goes with it', async () => {
  await api(t.server, 'POST', GADGETS, { body: { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'held', finalizers: ['example.com/hold'] }, spec: {} } });
  const deleted = await api(t.server, 'DELETE', `${CRDS}/gadgets.example.com`);
  assert.equal(deleted.status, 200, deleted.text);
  assert.deepEqual(deleted.json.metadata.finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
  assert.ok(deleted.json.status.conditions.some((c: { type: string; reason: string }) => c.type === 'Terminating' && c.reason === 'InstanceDeletionPending'));
  await waitFor(async () => (await api(t.server, 'GET', `${GADGETS}/g1`)).status === 404, 'the instance without finalizers to be deleted', WAIT);
  assert.equal((await api(t.server, 'GET', `${CRDS}/gadgets.example.com`)).status, 200);
  const released = await api(t.server, 'PATCH', `${GADGETS}/held`, { headers: MERGE, body: { metadata: { finalizers: null } } });
  assert.equal(released.status, 200, released.text);
  await waitFor(async () => (await api(t.server, 'GET', `${CRDS}/gadgets.example.com`)).status === 404, 'the CRD to go', WAIT);
  assert.equal((await api(t.server, 'GET', GADGETS)).status, 404);
});

test('deleting a namespace deletes its VolumeSnapshots', async () => {
  assert.equal((await api(t.server, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'doomed' } } })).status, 201);
  const snapshots = '/apis/snapshot.storage.k8s.io/v1/namespaces/doomed/volumesnapshots';
  const body = { apiVersion: 'snapshot.storage.k8s.io/v1', kind: 'VolumeSnapshot', metadata: { name: 's' }, spec: { source: { persistentVolumeClaimName: 'data' } } };
  assert.equal((await api(t.server, 'POST', snapshots, { body })).status, 201);
  assert.equal((await api(t.server, 'DELETE', '/api/v1/namespaces/doomed')).status, 200);
  await waitFor(async () => (await api(t.server, 'GET', '/api/v1/namespaces/doomed')).status === 404, 'the namespace to be finalized', WAIT);
  assert.equal((await api(t.server, 'GET', `${snapshots}/s`)).status, 404);
});

test('a VolumeSnapshotContent owned by a VolumeSnapshotClass is collected with it', async () => {
  const classes = '/apis/snapshot.storage.k8s.io/v1/volumesnapshotclasses';
  const owner = await api(t.server, 'POST', classes, { body: { apiVersion: 'snapshot.storage.k8s.io/v1', kind: 'VolumeSnapshotClass', metadata: { name: 'owner' }, driver: 'd', deletionPolicy: 'Delete' } });
  assert.equal(owner.status, 201, owner.text);
  const contents = '/apis/snapshot.storage.k8s.io/v1/volumesnapshotcontents';
  const dependent = await api(t.server, 'POST', contents, { body: {
    apiVersion: 'snapshot.storage.k8s.io/v1', kind: 'VolumeSnapshotContent',
    metadata: { name: 'owned', ownerReferences: [{ apiVersion: 'snapshot.storage.k8s.io/v1', kind: 'VolumeSnapshotClass', name: 'owner', uid: owner.json.metadata.uid }] },
    spec: { deletionPolicy: 'Delete', driver: 'd', source: { snapshotHandle: 'h' }, volumeSnapshotRef: { name: 's', namespace: 'default' } },
  } });
  assert.equal(dependent.status, 201, dependent.text);
  assert.equal((await api(t.server, 'DELETE', `${classes}/owner`, { body: { propagationPolicy: 'Foreground' } })).status, 200);
  await waitFor(async () => (await api(t.server, 'GET', `${contents}/owned`)).status === 404, 'the dependent to be collected', WAIT);
  await waitFor(async () => (await api(t.server, 'GET', `${classes}/owner`)).status === 404, 'the owner to go', WAIT);
});
