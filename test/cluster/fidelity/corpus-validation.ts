/** fieldValidation (Strict / Warn / Ignore / default) and 422 Invalid answers with their causes. */
import type { Case } from './case.js';
import { DEPLOYMENT, EVENT, EVENT_V1, LEASE, MERGE, NAMESPACE, NODE, POD, PV, PVC, SC, STRATEGIC, create, defineCase, item, patch, post, put, withQuery, type Kind } from './fixtures.js';

const FIELDS = 'fieldValidation';
const INVALID = 'validation (422)';

function spec(kind: Kind): Record<string, unknown> {
  return kind.sample('x').spec as Record<string, unknown>;
}

/** The sample named `name` with `change` merged into its top level and spec. */
function variant(kind: Kind, name: string, change: { spec?: Record<string, unknown>; metadata?: Record<string, unknown>; top?: Record<string, unknown> }): Record<string, unknown> {
  const base = kind.sample(name);
  return {
    ...base,
    ...change.top,
    metadata: { ...(base.metadata as object), ...change.metadata },
    ...(change.spec ? { spec: { ...spec(kind), ...change.spec } } : {}),
  };
}

const unknownField = variant(PV, 'pv-{id}', { spec: { fidelityUnknown: 1 } });
const duplicateField = `{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"pv-{id}","labels":{"case":"{id}"}},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"storageClassName":"manual","storageClassName":"fast","hostPath":{"path":"/tmp/x"}}}`;

const fieldValidation: Case[] = [
  ...['Strict', 'Warn', 'Ignore'].map((mode) =>
    defineCase(`pv-unknown-field-${mode.toLowerCase()}`, FIELDS, `an unknown field with fieldValidation=${mode}`, post(withQuery(PV.collection, `${FIELDS}=${mode}`), unknownField), { resource: PV.resource }),
  ),
  defineCase('pv-unknown-field-default', FIELDS, 'an unknown field without fieldValidation', post(PV.collection, unknownField), { resource: PV.resource }),
  ...['Strict', 'Warn'].map((mode) =>
    defineCase(`pv-duplicate-field-${mode.toLowerCase()}`, FIELDS, `a duplicated field with fieldValidation=${mode}`, post(withQuery(PV.collection, `${FIELDS}=${mode}`), duplicateField), { resource: PV.resource }),
  ),
  defineCase('pv-unknown-metadata-field-strict', FIELDS, 'an unknown metadata field with Strict', post(withQuery(PV.collection, `${FIELDS}=Strict`), variant(PV, 'pv-{id}', { metadata: { fidelity: 'x' } })), { resource: PV.resource }),
  defineCase('pvc-merge-patch-unknown-strict', FIELDS, 'a merge patch with an unknown field and Strict', patch(withQuery(item(PVC, 'claim'), `${FIELDS}=Strict`), MERGE, { spec: { fidelityUnknown: true } }), {
    resource: PVC.resource,
    setup: [create(PVC, 'claim')],
  }),
  defineCase('pvc-strategic-patch-unknown-warn', FIELDS, 'a strategic patch with an unknown field and Warn', patch(withQuery(item(PVC, 'claim'), `${FIELDS}=Warn`), STRATEGIC, { spec: { fidelityUnknown: true } }), {
    resource: PVC.resource,
    setup: [create(PVC, 'claim')],
  }),
  defineCase('sc-update-unknown-strict', FIELDS, 'an update with an unknown top-level field and Strict', put(withQuery(item(SC, 'sc-{id}'), `${FIELDS}=Strict`), undefined, { edit: { of: 'obj', merge: { fidelityUnknown: 'x' } } }), {
    resource: SC.resource,
    setup: [create(SC, 'sc-{id}')],
  }),
  defineCase('pv-field-validation-bad-value', FIELDS, 'an unknown fieldValidation value', post(withQuery(PV.collection, `${FIELDS}=Loose`), PV.sample('pv-{id}')), { resource: PV.resource }),
  defineCase('pv-create-yaml-body', FIELDS, 'a create sent as YAML', post(PV.collection, 'apiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: pv-{id}\nspec:\n  capacity: {storage: 1Gi}\n  accessModes: [ReadWriteOnce]\n  hostPath: {path: /tmp/y}\n', { contentType: 'application/yaml' }), {
    resource: PV.resource,
  }),
  defineCase('pv-wrong-type-field', FIELDS, 'a field of the wrong type', post(PV.collection, variant(PV, 'pv-{id}', { spec: { accessModes: 'ReadWriteOnce' } })), { resource: PV.resource }),
];

const invalid: Case[] = [
  defineCase('pv-invalid-no-capacity', INVALID, 'a PersistentVolume without capacity', post(PV.collection, variant(PV, 'pv-{id}', { spec: { capacity: undefined } })), { resource: PV.resource }),
  defineCase('pv-invalid-no-access-modes', INVALID, 'a PersistentVolume without access modes', post(PV.collection, variant(PV, 'pv-{id}', { spec: { accessModes: [] } })), { resource: PV.resource }),
  defineCase('pv-invalid-two-sources', INVALID, 'a PersistentVolume with two volume sources', post(PV.collection, variant(PV, 'pv-{id}', { spec: { nfs: { server: 'nfs.example', path: '/a' } } })), { resource: PV.resource }),
  defineCase('pv-invalid-reclaim-policy', INVALID, 'an unknown reclaim policy', post(PV.collection, variant(PV, 'pv-{id}', { spec: { persistentVolumeReclaimPolicy: 'Keep' } })), { resource: PV.resource }),
  defineCase('pv-invalid-quantity', INVALID, 'a capacity that is no quantity', post(PV.collection, variant(PV, 'pv-{id}', { spec: { capacity: { storage: '1Gx' } } })), { resource: PV.resource }),
  defineCase('pv-invalid-name-uppercase', INVALID, 'a name with capitals', post(PV.collection, variant(PV, 'PV-{id}', {})), { resource: PV.resource }),
  defineCase('pv-invalid-label-value', INVALID, 'a label value with a space', post(PV.collection, variant(PV, 'pv-{id}', { metadata: { labels: { case: '{id}', bad: 'a b' } } })), { resource: PV.resource }),
  defineCase('pv-invalid-no-name', INVALID, 'an object without a name', post(PV.collection, variant(PV, '', {})), { resource: PV.resource }),
  defineCase('pvc-invalid-empty-spec', INVALID, 'a claim with an empty spec', post(PVC.collection, { ...PVC.sample('claim'), spec: {} }), { resource: PVC.resource }),
  defineCase('pvc-invalid-access-mode', INVALID, 'a claim with an unknown access mode', post(PVC.collection, variant(PVC, 'claim', { spec: { accessModes: ['ReadWriteSometimes'] } })), { resource: PVC.resource }),
  defineCase('pvc-update-immutable-spec', INVALID, 'changing an immutable field of a claim', patch(item(PVC, 'claim'), MERGE, { spec: { storageClassName: 'other' } }), { resource: PVC.resource, setup: [create(PVC, 'claim')] }),
  defineCase('sc-invalid-no-provisioner', INVALID, 'a StorageClass without a provisioner', post(SC.collection, { ...SC.sample('sc-{id}'), provisioner: '' }), { resource: SC.resource }),
  defineCase('sc-update-parameters-forbidden', INVALID, 'changing the parameters of a StorageClass', patch(item(SC, 'sc-{id}'), MERGE, { parameters: { speed: 'slow' } }), { resource: SC.resource, setup: [create(SC, 'sc-{id}')] }),
  defineCase('sc-invalid-binding-mode', INVALID, 'an unknown volume binding mode', post(SC.collection, { ...SC.sample('sc-{id}'), volumeBindingMode: 'Later' }), { resource: SC.resource }),
  defineCase('ns-invalid-name', INVALID, 'a namespace name with an underscore', post(NAMESPACE.collection, NAMESPACE.sample('bad_{id}')), { resource: NAMESPACE.resource }),
  defineCase('lease-invalid-duration', INVALID, 'a Lease with a negative duration', post(LEASE.collection, variant(LEASE, 'lease-{id}', { spec: { leaseDurationSeconds: -1 } })), { resource: LEASE.resource }),
  defineCase('event-invalid-namespace-mismatch', INVALID, 'an Event about an object in another namespace', post(EVENT.collection, { ...EVENT.sample('event-{id}'), involvedObject: { kind: 'Pod', namespace: 'elsewhere', name: 'p' } }), {
    resource: EVENT.resource,
  }),
  defineCase('eventv1-invalid-no-reporting-controller', INVALID, 'an events.k8s.io Event without reportingController', post(EVENT_V1.collection, { ...EVENT_V1.sample('event-{id}'), reportingController: undefined }), {
    resource: EVENT_V1.resource,
  }),
  defineCase('node-invalid-taint-effect', INVALID, 'a Node taint with an unknown effect', post(NODE.collection, { ...NODE.sample('node-{id}'), spec: { taints: [{ key: 'a', effect: 'Sometimes' }] } }), { resource: NODE.resource }),
  defineCase('pod-invalid-no-containers', INVALID, 'a Pod without containers', post(POD.collection, { ...POD.sample('pod-{id}'), spec: { containers: [] } }), { resource: POD.resource }),
  defineCase('pod-invalid-restart-policy', INVALID, 'a Pod with an unknown restart policy', post(POD.collection, variant(POD, 'pod-{id}', { spec: { restartPolicy: 'Sometimes' } })), { resource: POD.resource }),
  defineCase('pv-update-immutable-source', INVALID, 'changing the volume source of a PersistentVolume', patch(item(PV, 'pv-{id}'), MERGE, { spec: { hostPath: { path: '/tmp/elsewhere' } } }), {
    resource: PV.resource,
    setup: [create(PV, 'pv-{id}')],
  }),
  defineCase('eventv1-update-immutable-note', INVALID, 'changing the note of an events.k8s.io Event', patch(item(EVENT_V1, 'event-{id}'), MERGE, { note: 'changed' }), {
    resource: EVENT_V1.resource,
    setup: [create(EVENT_V1, 'event-{id}')],
  }),
  defineCase('deploy-invalid-selector-mismatch', INVALID, 'a Deployment whose selector does not match its template, with negative replicas', post(DEPLOYMENT.collection,
    variant(DEPLOYMENT, 'deploy-{id}', { spec: { replicas: -1, selector: { matchLabels: { app: 'other' } } } })), { resource: DEPLOYMENT.resource }),
  defineCase('deploy-invalid-no-selector', INVALID, 'a Deployment without a selector, restarting Never', post(DEPLOYMENT.collection, variant(DEPLOYMENT, 'deploy-{id}', {
    spec: { selector: undefined, template: { metadata: { labels: { app: 'web' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'app' }] } } },
  })), { resource: DEPLOYMENT.resource }),
  defineCase('deploy-update-immutable-selector', INVALID, 'changing the selector of a Deployment', patch(item(DEPLOYMENT, 'deploy-{id}'), MERGE, {
    spec: { selector: { matchLabels: { app: 'new' } }, template: { metadata: { labels: { app: 'new' } } } },
  }), { resource: DEPLOYMENT.resource, setup: [create(DEPLOYMENT, 'deploy-{id}')] }),
  defineCase('pod-update-immutable-spec', INVALID, 'changing an immutable field of a Pod', patch(item(POD, 'pod-{id}'), MERGE, { spec: { restartPolicy: 'Never' } }), { resource: POD.resource, setup: [create(POD, 'pod-{id}')] }),
];

export const validationCases: Case[] = [...fieldValidation, ...invalid];
