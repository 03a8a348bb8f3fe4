/** Create, get, list and update of every resource: what is defaulted, kept and answered. */
import type { Case } from './case.js';
import { ALL_KINDS, DEPLOYMENT, LEASE, NAMESPACE, OWN, PV, PVC, SC, create, defineCase, get, item, post, put, tag, withQuery, EVENT, plural, a } from './fixtures.js';

const AREA = 'create/get/list/update';

function perKind(): Case[] {
  return [...ALL_KINDS, DEPLOYMENT].flatMap((k) => {
    const t = tag(k);
    const name = `${t}-{id}`;
    return [
      defineCase(`${t}-create`, AREA, `create ${a(k)}`, create(k, name), { resource: k.resource }),
      defineCase(`${t}-get`, AREA, `get ${a(k)}`, get(item(k, name)), { resource: k.resource, setup: [create(k, name)] }),
      defineCase(`${t}-list`, AREA, `list ${plural(k)} by label`, get(withQuery(k.collection, OWN)), {
        resource: k.resource,
        setup: [create(k, `${name}-a`), create(k, `${name}-b`)],
      }),
      defineCase(`${t}-update`, AREA, `read-modify-write update of ${a(k)}`, put(item(k, name), undefined, { edit: { of: 'obj', merge: k.edit } }), {
        resource: k.resource,
        setup: [create(k, name), get(item(k, name), { save: { obj: '.' } })],
      }),
    ];
  });
}

const extras: Case[] = [
  defineCase('pv-create-generate-name', AREA, 'create a PersistentVolume with generateName', post(PV.collection, { ...PV.sample(''), metadata: { generateName: 'pv-gen-', labels: { case: '{id}' } } }), {
    resource: PV.resource,
  }),
  defineCase('pvc-create-default-class', AREA, 'a claim without a class gets the default StorageClass', post(PVC.collection, { ...PVC.sample('claim'), spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }), {
    resource: PVC.resource,
    setup: [post(SC.collection, { ...SC.sample('default-{id}'), metadata: { name: 'default-{id}', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } })],
  }),
  defineCase('pvc-create-no-default-class', AREA, 'a claim without a class and no default class keeps none', post(PVC.collection, { ...PVC.sample('claim'), spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }), {
    resource: PVC.resource,
  }),
  defineCase('pv-create-full-spec', AREA, 'create a PersistentVolume with every common field', post(PV.collection, {
    ...PV.sample('pv-{id}'),
    spec: {
      capacity: { storage: '10Gi' },
      accessModes: ['ReadWriteOnce', 'ReadOnlyMany'],
      persistentVolumeReclaimPolicy: 'Recycle',
      storageClassName: 'manual',
      mountOptions: ['noatime'],
      volumeMode: 'Block',
      nfs: { server: 'nfs.example', path: '/exports/a', readOnly: true },
      claimRef: { namespace: 'default', name: 'claim' },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] } },
    },
  }), { resource: PV.resource }),
  defineCase('sc-create-all-fields', AREA, 'create a StorageClass with every field', post(SC.collection, {
    ...SC.sample('sc-{id}'),
    reclaimPolicy: 'Retain',
    volumeBindingMode: 'WaitForFirstConsumer',
    allowVolumeExpansion: true,
    mountOptions: ['ro'],
    allowedTopologies: [{ matchLabelExpressions: [{ key: 'zone', values: ['a', 'b'] }] }],
  }), { resource: SC.resource }),
  defineCase('ns-get-default', AREA, 'get the default namespace', get(item(NAMESPACE, 'default')), { resource: NAMESPACE.resource, view: { kind: 'shape', paths: ['metadata name', 'metadata labels', 'spec finalizers', 'status phase'] } }),
  defineCase('lease-put-create', AREA, 'PUT to a Lease that does not exist', put(item(LEASE, 'lease-{id}'), LEASE.sample('lease-{id}')), { resource: LEASE.resource }),
  defineCase('event-put-create', AREA, 'PUT to an Event that does not exist', put(item(EVENT, 'event-{id}'), EVENT.sample('event-{id}')), { resource: EVENT.resource }),
  defineCase('pv-update-no-rv', AREA, 'update without a resourceVersion', put(item(PV, 'pv-{id}'), { ...PV.sample('pv-{id}'), spec: { ...(PV.sample('pv-{id}').spec as object), persistentVolumeReclaimPolicy: 'Delete' } }), {
    resource: PV.resource,
    setup: [create(PV, 'pv-{id}')],
  }),
  defineCase('pvc-update-status-ignored', AREA, 'a status sent to the main resource is ignored', put(item(PVC, 'claim'), undefined, { edit: { of: 'obj', merge: { status: { phase: 'Bound' } } } }), {
    resource: PVC.resource,
    setup: [create(PVC, 'claim')],
  }),
  defineCase('pv-list-all-namespaces-empty', AREA, 'list PersistentVolumes selected by a label nobody has', get(withQuery(PV.collection, 'labelSelector=case%3Dnobody-{id}')), { resource: PV.resource }),
  defineCase('pvc-list-all-namespaces', AREA, 'list claims across namespaces', get('/api/v1/persistentvolumeclaims?labelSelector=case%3D{id}'), {
    resource: PVC.resource,
    setup: [create(PVC, 'claim')],
  }),
];

export const crudCases: Case[] = [...perKind(), ...extras];
