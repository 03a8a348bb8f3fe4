/** Delete and deletecollection, finalizers, preconditions and graceful deletion. */
import type { Case, HttpStep } from './case.js';
import { ALL_KINDS, MERGE, NAMESPACE, NODE, OWN, POD, PV, PVC, SC, LEASE, create, defineCase, del, get, item, patch, post, tag, withQuery, type Kind, plural, a } from './fixtures.js';

const AREA = 'delete/finalizers';
const HOLD = 'example.com/hold';

function perKind(): Case[] {
  return ALL_KINDS.flatMap((k) => {
    const t = tag(k);
    const name = `${t}-{id}`;
    const out = [
      defineCase(`${t}-delete`, AREA, `delete ${a(k)}`, del(item(k, name)), { resource: k.resource, setup: [create(k, name)] }),
      defineCase(`${t}-delete-then-get`, AREA, `get a deleted ${k.resource}`, get(item(k, name)), { resource: k.resource, setup: [create(k, name), del(item(k, name))] }),
    ];
    if (k !== NAMESPACE) {
      out.push(defineCase(`${t}-deletecollection`, AREA, `deletecollection of ${plural(k)} by label`, del(withQuery(k.collection, OWN)), {
        resource: k.resource,
        setup: [create(k, `${name}-a`), create(k, `${name}-b`)],
      }));
    }
    return out;
  });
}

/** The object with a finalizer nobody removes but the case. */
const held = (kind: Kind, name: string): HttpStep => post(kind.collection, { ...kind.sample(name), metadata: { ...(kind.sample(name).metadata as object), finalizers: [HOLD] } }, { save: { uid: 'metadata.uid' } });

const extras: Case[] = [
  defineCase('ns-deletecollection', AREA, 'deletecollection of namespaces', del(withQuery(NAMESPACE.collection, OWN)), { resource: NAMESPACE.resource, setup: [create(NAMESPACE, 'ns-{id}')] }),
  defineCase('pvc-deletecollection-then-list', AREA, 'the list after a deletecollection', get(withQuery(PVC.collection, OWN)), {
    resource: PVC.resource,
    setup: [create(PVC, 'a'), create(PVC, 'b'), del(withQuery(PVC.collection, OWN))],
  }),
  defineCase('pv-delete-missing', AREA, 'delete a PersistentVolume that does not exist', del(item(PV, 'pv-{id}')), { resource: PV.resource }),
  defineCase('pv-delete-protected-then-get', AREA, 'a PersistentVolume kept by its protection finalizer', get(item(PV, 'pv-{id}')), { resource: PV.resource, setup: [create(PV, 'pv-{id}'), del(item(PV, 'pv-{id}'))] }),
  defineCase('sc-delete-finalizer-held', AREA, 'delete an object a finalizer holds', del(item(SC, 'sc-{id}')), { resource: SC.resource, setup: [held(SC, 'sc-{id}')] }),
  defineCase('sc-finalizer-held-get', AREA, 'get an object a finalizer holds after delete', get(item(SC, 'sc-{id}')), { resource: SC.resource, setup: [held(SC, 'sc-{id}'), del(item(SC, 'sc-{id}'))] }),
  defineCase('sc-finalizer-removed-deletes', AREA, 'removing the last finalizer completes the deletion', patch(item(SC, 'sc-{id}'), MERGE, { metadata: { finalizers: null } }), {
    resource: SC.resource,
    setup: [held(SC, 'sc-{id}'), del(item(SC, 'sc-{id}'))],
  }),
  defineCase('sc-finalizer-removed-then-get', AREA, 'get after the last finalizer is removed', get(item(SC, 'sc-{id}')), {
    resource: SC.resource,
    setup: [held(SC, 'sc-{id}'), del(item(SC, 'sc-{id}')), patch(item(SC, 'sc-{id}'), MERGE, { metadata: { finalizers: null } })],
  }),
  defineCase('lease-finalizer-add-while-deleting', AREA, 'adding a finalizer to an object being deleted', patch(item(LEASE, 'lease-{id}'), MERGE, { metadata: { finalizers: [HOLD, 'example.com/other'] } }), {
    resource: LEASE.resource,
    setup: [held(LEASE, 'lease-{id}'), del(item(LEASE, 'lease-{id}'))],
  }),
  defineCase('lease-delete-twice-held', AREA, 'a second delete of an object being deleted', del(item(LEASE, 'lease-{id}')), {
    resource: LEASE.resource,
    setup: [held(LEASE, 'lease-{id}'), del(item(LEASE, 'lease-{id}'))],
  }),
  defineCase('pv-delete-precondition-uid', AREA, 'delete with a uid precondition that does not match', del(item(PV, 'pv-{id}'), { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: '00000000-0000-0000-0000-000000000000' } }), {
    resource: PV.resource,
    setup: [create(PV, 'pv-{id}')],
  }),
  defineCase('pv-delete-precondition-rv', AREA, 'delete with a resourceVersion precondition that is stale', del(item(PV, 'pv-{id}'), { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { resourceVersion: '{$rv}' } }), {
    resource: PV.resource,
    setup: [create(PV, 'pv-{id}'), patch(item(PV, 'pv-{id}'), MERGE, { metadata: { labels: { x: 'y' } } })],
  }),
  defineCase('lease-delete-foreground', AREA, 'foreground deletion keeps the object with a finalizer', del(withQuery(item(LEASE, 'lease-{id}'), 'propagationPolicy=Foreground')), { resource: LEASE.resource, setup: [create(LEASE, 'lease-{id}')] }),
  defineCase('lease-delete-orphan', AREA, 'orphan deletion of an object without dependents', del(item(LEASE, 'lease-{id}'), { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Orphan' }), { resource: LEASE.resource, setup: [create(LEASE, 'lease-{id}')] }),
  defineCase('pod-delete-unscheduled', AREA, 'a pod on no node is deleted at once', get(item(POD, 'pod-{id}')), { resource: POD.resource, setup: [create(POD, 'pod-{id}'), del(item(POD, 'pod-{id}'))] }),
  defineCase('pod-delete-graceful', AREA, 'a pod on a node is deleted gracefully', del(item(POD, 'pod-{id}')), {
    resource: POD.resource,
    setup: [create(NODE, 'node-{id}'), post(POD.collection, { ...POD.sample('pod-{id}'), spec: { ...(POD.sample('x').spec as object), nodeName: 'node-{id}' } })],
  }),
  defineCase('pod-delete-graceful-get', AREA, 'get a pod in its grace period', get(item(POD, 'pod-{id}')), {
    resource: POD.resource,
    setup: [post(POD.collection, { ...POD.sample('pod-{id}'), spec: { ...(POD.sample('x').spec as object), nodeName: 'node-{id}' } }), del(item(POD, 'pod-{id}'))],
  }),
  defineCase('pod-delete-grace-zero', AREA, 'a pod on a node deleted with gracePeriodSeconds=0', get(item(POD, 'pod-{id}')), {
    resource: POD.resource,
    setup: [post(POD.collection, { ...POD.sample('pod-{id}'), spec: { ...(POD.sample('x').spec as object), nodeName: 'node-{id}' } }), del(withQuery(item(POD, 'pod-{id}'), 'gracePeriodSeconds=0'))],
  }),
  defineCase('ns-delete-terminating', AREA, 'a deleted namespace is Terminating', get(item(NAMESPACE, 'ns-{id}')), { resource: NAMESPACE.resource, setup: [create(NAMESPACE, 'ns-{id}'), del(item(NAMESPACE, 'ns-{id}'))] }),
  defineCase('ns-terminating-create-inside', AREA, 'creating in a Terminating namespace', post('/api/v1/namespaces/ns-{id}/persistentvolumeclaims', PVC.sample('claim')), {
    resource: NAMESPACE.resource,
    setup: [create(NAMESPACE, 'ns-{id}'), del(item(NAMESPACE, 'ns-{id}'))],
  }),
  defineCase('pvc-delete-dry-run-body', AREA, 'delete with dryRun in DeleteOptions', get(item(PVC, 'claim')), {
    resource: PVC.resource,
    setup: [create(PVC, 'claim'), del(item(PVC, 'claim'), { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'] })],
  }),
];

export const deleteCases: Case[] = [...perKind(), ...extras];
