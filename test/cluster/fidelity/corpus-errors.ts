/** Error answers: 404, 409, 400, 405, 406, 415 and their Status bodies. */
import type { Case } from './case.js';
import { ALL_KINDS, LEASE, NODE, PV, PVC, SC, create, defineCase, get, http, item, post, put, tag, withQuery, a } from './fixtures.js';

const AREA = 'errors';

function perKind(): Case[] {
  return ALL_KINDS.flatMap((k) => {
    const t = tag(k);
    const name = `${t}-{id}`;
    return [
      defineCase(`${t}-get-missing`, AREA, `get ${a(k)} that does not exist`, get(item(k, name)), { resource: k.resource }),
      defineCase(`${t}-create-exists`, AREA, `create ${a(k)} that exists`, post(k.collection, k.sample(name)), { resource: k.resource, setup: [create(k, name)] }),
    ];
  });
}

const pv = PV.sample('pv-{id}');

const extras: Case[] = [
  defineCase('pv-update-conflict', AREA, 'an update on a stale resourceVersion', put(item(PV, 'pv-{id}'), undefined, { edit: { of: 'obj', merge: { metadata: { labels: { late: 'yes' } } } } }), {
    resource: PV.resource,
    setup: [create(PV, 'pv-{id}'), put(item(PV, 'pv-{id}'), undefined, { edit: { of: 'obj', merge: { metadata: { labels: { early: 'yes' } } } } })],
  }),
  defineCase('pv-update-missing', AREA, 'update a PersistentVolume that does not exist', put(item(PV, 'pv-{id}'), { ...pv, metadata: { name: 'pv-{id}', resourceVersion: '1' } }), { resource: PV.resource }),
  defineCase('pv-update-name-mismatch', AREA, 'an update whose body names another object', put(item(PV, 'pv-{id}'), undefined, { edit: { of: 'obj', merge: { metadata: { name: 'other-{id}' } } } }), {
    resource: PV.resource,
    setup: [create(PV, 'pv-{id}')],
  }),
  defineCase('pvc-create-missing-namespace', AREA, 'create in a namespace that does not exist', post('/api/v1/namespaces/nowhere-{id}/persistentvolumeclaims', PVC.sample('claim')), { resource: PVC.resource }),
  defineCase('pvc-create-namespace-mismatch', AREA, 'a body whose namespace is not the path\'s', post(PVC.collection, { ...PVC.sample('claim'), metadata: { name: 'claim', namespace: 'default' } }), { resource: PVC.resource }),
  defineCase('pv-create-wrong-kind', AREA, 'a body of another kind', post(PV.collection, { ...pv, kind: 'PersistentVolumeClaim' }), { resource: PV.resource }),
  defineCase('pv-create-wrong-api-version', AREA, 'a body of another apiVersion', post(PV.collection, { ...pv, apiVersion: 'storage.k8s.io/v1' }), { resource: PV.resource }),
  defineCase('pv-create-no-kind', AREA, 'a body without apiVersion and kind', post(PV.collection, { metadata: { name: 'pv-{id}' }, spec: pv.spec }), { resource: PV.resource }),
  defineCase('pv-create-bad-json', AREA, 'a body that is not JSON', post(PV.collection, '{"metadata": '), { resource: PV.resource }),
  defineCase('pv-create-empty-body', AREA, 'an empty body', post(PV.collection, ''), { resource: PV.resource }),
  defineCase('pv-create-array-body', AREA, 'a body that is a JSON array', post(PV.collection, '[]'), { resource: PV.resource }),
  defineCase('pv-create-text-plain', AREA, 'a body of an unsupported media type', post(PV.collection, JSON.stringify(pv), { contentType: 'text/plain' }), { resource: PV.resource }),
  defineCase('pv-create-protobuf-garbage', AREA, 'a protobuf body that is no object', post(PV.collection, 'not protobuf', { contentType: 'application/vnd.kubernetes.protobuf' }), { resource: PV.resource }),
  defineCase('pv-collection-patch', AREA, 'a PATCH of a collection', http('PATCH', PV.collection, {}, { contentType: 'application/merge-patch+json' }), { resource: PV.resource }),
  defineCase('pv-collection-put', AREA, 'a PUT of a collection', put(PV.collection, pv), { resource: PV.resource }),
  defineCase('pv-post-item', AREA, 'a POST to an object path', post(item(PV, 'pv-{id}'), pv), { resource: PV.resource }),
  defineCase('pv-accept-xml', AREA, 'an Accept header we cannot serve', get(PV.collection, { accept: 'application/xml' }), { resource: PV.resource }),
  defineCase('resource-unknown', AREA, 'a resource nobody serves', get('/api/v1/widgets')),
  defineCase('resource-unknown-group', AREA, 'a group nobody serves', get('/apis/example.com/v1/widgets')),
  defineCase('subresource-unknown', AREA, 'a subresource that does not exist', get(`${item(NODE, 'node-{id}')}/widgets`), { resource: NODE.resource, setup: [create(NODE, 'node-{id}')] }),
  defineCase('sc-namespaced-path', AREA, 'a cluster-scoped resource under a namespace', get('/apis/storage.k8s.io/v1/namespaces/default/storageclasses'), { resource: SC.resource }),
  defineCase('lease-name-too-long', AREA, 'a name longer than 253 characters', post(LEASE.collection, LEASE.sample(`l${'x'.repeat(253)}`)), { resource: LEASE.resource }),
  defineCase('pv-get-with-bad-limit', AREA, 'a limit that is no number', get(withQuery(PV.collection, 'limit=many')), { resource: PV.resource }),
];

export const errorCases: Case[] = [...perKind(), ...extras];
