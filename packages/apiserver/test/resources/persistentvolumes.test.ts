import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BadRequestError } from '@pv-controller/kube/errors.js';
import type { KubeObject, PersistentVolume } from '@pv-controller/kube/types.js';
import { persistentVolumeStrategy as pv } from '@pv-controller/apiserver/resources/core/persistentvolumes.js';
import { assertCause, create, NOW, statusUpdate, update, withChanges, type RuleCase } from './helpers.js';

const valid: KubeObject = {
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name: 'pv1' },
  spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/pv1' } },
};

test('a valid PV is defaulted, gets Pending, a transition time and the pv-protection finalizer', () => {
  const { obj, causes } = create(pv, { ...valid, status: { phase: 'Bound', message: 'client lies' } });
  assert.deepEqual(causes, []);
  const p = obj as PersistentVolume;
  assert.equal(p.spec.persistentVolumeReclaimPolicy, 'Retain');
  assert.equal(p.spec.volumeMode, 'Filesystem');
  assert.deepEqual(p.status, { phase: 'Pending', lastPhaseTransitionTime: NOW });
  assert.deepEqual(p.metadata.finalizers, ['kubernetes.io/pv-protection']);
});

test('capacity is rounded up to milli-units as SetDefaults_ResourceList rounds it (1n and 1u become 1m, 1500u 2m)', () => {
  for (const [given, stored] of [['1n', '1m'], ['0.000000001', '1m'], ['1u', '1m'], ['1500u', '2m'], ['0.5m', '1m'], ['1m', '1m'], ['1Gi', '1Gi']]) {
    const p = create(pv, withChanges(valid, { 'spec.capacity': { storage: given } })).obj as PersistentVolume;
    assert.equal(p.spec.capacity?.storage, stored, given);
  }
});

test('a hostPath source gets type "" when it names none, as kube-apiserver defaults it; a named type stays', () => {
  assert.equal((create(pv, valid).obj as PersistentVolume).spec.hostPath?.type, '');
  const typed = create(pv, withChanges(valid, { 'spec.hostPath': { path: '/tmp/pv1', type: 'DirectoryOrCreate' } })).obj as PersistentVolume;
  assert.equal(typed.spec.hostPath?.type, 'DirectoryOrCreate');
});

test('other valid PV shapes pass: nfs, local with affinity, csi, gce, several access modes', () => {
  const local = {
    local: { path: '/mnt/disk' },
    hostPath: undefined,
    nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['n1'] }] }] } },
  };
  const shapes: Record<string, unknown>[] = [
    { 'spec.hostPath': undefined, 'spec.nfs': { server: 'nfs.example.com', path: '/exports/a' } },
    Object.fromEntries(Object.entries(local).map(([k, v]) => [`spec.${k}`, v])),
    { 'spec.hostPath': undefined, 'spec.csi': { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-1' } },
    { 'spec.hostPath': undefined, 'spec.gcePersistentDisk': { pdName: 'disk-1', partition: 1 } },
    { 'spec.accessModes': ['ReadWriteOnce', 'ReadOnlyMany', 'ReadWriteMany'], 'spec.persistentVolumeReclaimPolicy': 'Delete' },
    { 'spec.storageClassName': 'fast.example.com', 'spec.volumeMode': 'Block', 'spec.mountOptions': ['noatime'] },
  ];
  for (const set of shapes) assert.deepEqual(create(pv, withChanges(valid, set)).causes, [], JSON.stringify(set));
});

const createRules: RuleCase[] = [
  { name: 'name must be a DNS subdomain', set: { 'metadata.name': 'Bad_Name' }, field: 'metadata.name', reason: 'FieldValueInvalid',
    message: /^Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of/ },
  { name: 'cluster-scoped: no namespace', set: { 'metadata.namespace': 'ns' }, field: 'metadata.namespace', reason: 'FieldValueForbidden',
    message: 'Forbidden: not allowed on this type' },
  { name: 'label keys are qualified names', set: { 'metadata.labels': { 'a/b/c': 'x' } }, field: 'metadata.labels', reason: 'FieldValueInvalid' },
  { name: 'label values are valid', set: { 'metadata.labels': { a: '-x' } }, field: 'metadata.labels', reason: 'FieldValueInvalid' },
  { name: 'annotation keys are qualified names', set: { 'metadata.annotations': { 'bad key': 'x' } }, field: 'metadata.annotations', reason: 'FieldValueInvalid' },
  { name: 'finalizer names are qualified names', set: { 'metadata.finalizers': ['a/b/c'] }, field: 'metadata.finalizers', reason: 'FieldValueInvalid' },
  { name: 'access modes required', set: { 'spec.accessModes': [] }, field: 'spec.accessModes', reason: 'FieldValueRequired', message: 'Required value' },
  { name: 'access modes supported', set: { 'spec.accessModes': ['ReadWriteSometimes'] }, field: 'spec.accessModes', reason: 'FieldValueNotSupported',
    message: 'Unsupported value: "ReadWriteSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"' },
  { name: 'ReadWriteOncePod is exclusive', set: { 'spec.accessModes': ['ReadWriteOncePod', 'ReadWriteOnce'] }, field: 'spec.accessModes',
    reason: 'FieldValueForbidden', message: 'Forbidden: may not use ReadWriteOncePod with other access modes' },
  { name: 'capacity required', set: { 'spec.capacity': undefined }, field: 'spec.capacity', reason: 'FieldValueRequired' },
  { name: 'a missing capacity is shown as null, as kube-apiserver shows it', set: { 'spec.capacity': undefined }, field: 'spec.capacity',
    reason: 'FieldValueNotSupported', message: 'Unsupported value: null: supported values: "storage"' },
  { name: 'capacity only storage', set: { 'spec.capacity': { storage: '1Gi', cpu: '1' } }, field: 'spec.capacity', reason: 'FieldValueNotSupported' },
  { name: 'capacity positive', set: { 'spec.capacity': { storage: '0' } }, field: 'spec.capacity[storage]', reason: 'FieldValueInvalid',
    message: 'Invalid value: "0": must be greater than zero' },
  { name: 'reclaim policy supported', set: { 'spec.persistentVolumeReclaimPolicy': 'Keep' }, field: 'spec.persistentVolumeReclaimPolicy',
    reason: 'FieldValueNotSupported', message: 'Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"' },
  { name: 'volume mode supported', set: { 'spec.volumeMode': 'Raw' }, field: 'spec.volumeMode', reason: 'FieldValueNotSupported' },
  { name: 'storage class is a subdomain', set: { 'spec.storageClassName': 'Gold!' }, field: 'spec.storageClassName', reason: 'FieldValueInvalid' },
  { name: 'a volume type is required', set: { 'spec.hostPath': undefined }, field: 'spec', reason: 'FieldValueRequired',
    message: 'Required value: must specify a volume type' },
  { name: 'one volume type only', set: { 'spec.nfs': { server: 's', path: '/p' } }, field: 'spec.nfs', reason: 'FieldValueForbidden',
    message: 'Forbidden: may not specify more than 1 volume type' },
  { name: 'hostPath path required', set: { 'spec.hostPath': { path: '' } }, field: 'spec.hostPath.path', reason: 'FieldValueRequired' },
  { name: 'hostPath no backsteps', set: { 'spec.hostPath': { path: '/a/../etc' } }, field: 'spec.hostPath.path', reason: 'FieldValueInvalid',
    message: 'Invalid value: "/a/../etc": must not contain \'..\'' },
  { name: 'hostPath / may not be recycled', set: { 'spec.hostPath': { path: '/' }, 'spec.persistentVolumeReclaimPolicy': 'Recycle' },
    field: 'spec.persistentVolumeReclaimPolicy', reason: 'FieldValueForbidden', message: "Forbidden: may not be 'recycle' for a hostPath mount of '/'" },
  { name: 'nfs path absolute', set: { 'spec.hostPath': undefined, 'spec.nfs': { server: 's', path: 'rel' } }, field: 'spec.nfs.path',
    reason: 'FieldValueInvalid', message: 'Invalid value: "rel": must be an absolute path' },
  { name: 'nfs server required', set: { 'spec.hostPath': undefined, 'spec.nfs': { path: '/p' } }, field: 'spec.nfs.server', reason: 'FieldValueRequired' },
  { name: 'gce pdName required', set: { 'spec.hostPath': undefined, 'spec.gcePersistentDisk': { pdName: '' } }, field: 'spec.persistentDisk.pdName',
    reason: 'FieldValueRequired' },
  { name: 'aws partition range', set: { 'spec.hostPath': undefined, 'spec.awsElasticBlockStore': { volumeID: 'v', partition: 300 } },
    field: 'spec.awsElasticBlockStore.partition', reason: 'FieldValueInvalid' },
  { name: 'csi driver required', set: { 'spec.hostPath': undefined, 'spec.csi': { volumeHandle: 'h' } }, field: 'spec.csi.driver', reason: 'FieldValueRequired' },
  { name: 'csi volumeHandle required', set: { 'spec.hostPath': undefined, 'spec.csi': { driver: 'd.example.com' } }, field: 'spec.csi.volumeHandle',
    reason: 'FieldValueRequired' },
  { name: 'csi secret ref needs a namespace', set: { 'spec.hostPath': undefined,
    'spec.csi': { driver: 'd.example.com', volumeHandle: 'h', nodePublishSecretRef: { name: 's' } } },
  field: 'spec.csi.nodePublishSecretRef.namespace', reason: 'FieldValueRequired' },
  { name: 'local needs node affinity', set: { 'spec.hostPath': undefined, 'spec.local': { path: '/mnt' } }, field: 'spec.nodeAffinity',
    reason: 'FieldValueRequired', message: 'Required value: Local volume requires node affinity' },
  { name: 'node affinity needs required', set: { 'spec.nodeAffinity': {} }, field: 'spec.nodeAffinity.required', reason: 'FieldValueRequired',
    message: 'Required value: must specify required node constraints' },
  { name: 'node selector needs terms', set: { 'spec.nodeAffinity': { required: { nodeSelectorTerms: [] } } },
    field: 'spec.nodeAffinity.required.nodeSelectorTerms', reason: 'FieldValueRequired' },
  { name: 'node selector operator valid', set: { 'spec.nodeAffinity': { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'Near' }] }] } } },
    field: 'spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].operator', reason: 'FieldValueInvalid' },
  { name: 'mount-options annotation only on supporting types', set: { 'metadata.annotations': { 'volume.beta.kubernetes.io/mount-options': 'ro' } },
    field: 'metadata.annotations.volume.beta.kubernetes.io/mount-options', reason: 'FieldValueForbidden' },
  { name: 'volumeAttributesClassName needs csi', set: { 'spec.volumeAttributesClassName': 'gold' }, field: 'spec.csi', reason: 'FieldValueRequired' },
];

for (const rule of createRules) {
  test(`PV create rule: ${rule.name} (${rule.field})`, () => {
    assertCause(create(pv, withChanges(valid, rule.set)).causes, rule.field, rule.reason, rule.message);
  });
}

test('a malformed capacity quantity is a 400 decode error, a valid one is canonicalised', () => {
  assert.throws(() => create(pv, withChanges(valid, { 'spec.capacity': { storage: '1 GB' } })), BadRequestError);
  const { obj } = create(pv, withChanges(valid, { 'spec.capacity': { storage: '1.5Gi' } }));
  assert.equal((obj as PersistentVolume).spec.capacity?.storage, '1536Mi');
});

function stored(): KubeObject {
  return create(pv, valid).obj;
}

test('updates keep the stored status and allow claimRef, class, capacity, policy, annotations', () => {
  const prev = withChanges(stored(), { 'status.phase': 'Available' });
  const next = withChanges(prev, {
    'status.phase': 'Failed',
    'spec.claimRef': { namespace: 'ns', name: 'c', uid: 'u' },
    'spec.storageClassName': 'gold',
    'spec.capacity': { storage: '2Gi' },
    'spec.persistentVolumeReclaimPolicy': 'Delete',
    'metadata.annotations': { 'pv.kubernetes.io/bound-by-controller': 'yes' },
  });
  const { obj, causes } = update(pv, next, prev);
  assert.deepEqual(causes, []);
  assert.equal((obj as PersistentVolume).status?.phase, 'Available');
});

test('the volume source is immutable', () => {
  const prev = stored();
  const { causes } = update(pv, withChanges(prev, { 'spec.hostPath': { path: '/other' } }), prev);
  assertCause(causes, 'spec.persistentvolumesource', 'FieldValueForbidden', /^Forbidden: spec.persistentvolumesource is immutable after creation\n/);
});

test('volumeMode is immutable, reported without the spec. prefix', () => {
  const prev = stored();
  assertCause(update(pv, withChanges(prev, { 'spec.volumeMode': 'Block' }), prev).causes, 'volumeMode', 'FieldValueInvalid',
    'Invalid value: "Block": field is immutable');
});

test('node affinity may be set once but not changed', () => {
  const affinity = (host: string): unknown => ({ required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'h', operator: 'In', values: [host] }] }] } });
  const prev = stored();
  assert.deepEqual(update(pv, withChanges(prev, { 'spec.nodeAffinity': affinity('a') }), prev).causes, []);
  const withAffinity = withChanges(prev, { 'spec.nodeAffinity': affinity('a') });
  assertCause(update(pv, withChanges(withAffinity, { 'spec.nodeAffinity': affinity('b') }), withAffinity).causes, 'nodeAffinity', 'FieldValueInvalid');
});

test('a status write keeps the spec, takes label and finalizer changes as kube-apiserver does, and stamps the phase transition', () => {
  const prev = withChanges(stored(), { 'metadata.labels': { a: 'b' } });
  const next = withChanges(prev, {
    'status.phase': 'Available', 'spec.capacity': { storage: '9Gi' }, 'metadata.labels': { a: 'changed' }, 'metadata.finalizers': [],
  });
  const later = '2024-05-01T11:00:00Z';
  const { obj, causes } = statusUpdate(pv, next, prev, later);
  assert.deepEqual(causes, []);
  const p = obj as PersistentVolume;
  assert.equal(p.spec.capacity?.storage, '1Gi');
  assert.deepEqual(p.metadata.labels, { a: 'changed' });
  assert.deepEqual(p.metadata.finalizers, []);
  assert.deepEqual(p.status, { phase: 'Available', lastPhaseTransitionTime: later });
  const same = statusUpdate(pv, withChanges(obj, { 'status.lastPhaseTransitionTime': undefined, 'status.message': 'm' }), obj, '2030-01-01T00:00:00Z');
  assert.equal((same.obj as PersistentVolume).status?.lastPhaseTransitionTime, later);
});

test('kubectl get pv row matches the real columns', () => {
  const obj = withChanges(stored(), {
    'spec.capacity': { storage: '10Gi' }, 'spec.accessModes': ['ReadWriteMany', 'ReadWriteOnce'], 'status.phase': 'Bound',
    'spec.claimRef': { namespace: 'ns', name: 'c1' }, 'spec.storageClassName': 'gold',
  });
  assert.deepEqual(pv.tableColumns.map((c) => c.name), ['Name', 'Capacity', 'Access Modes', 'Reclaim Policy', 'Status', 'Claim',
    'StorageClass', 'VolumeAttributesClass', 'Reason', 'Age', 'VolumeMode']);
  assert.equal(pv.tableColumns.find((c) => c.name === 'VolumeMode')?.priority, 1);
  assert.deepEqual(pv.tableRow(obj, new Date('2024-05-01T10:05:00Z')),
    ['pv1', '10Gi', 'RWO,RWX', 'Retain', 'Bound', 'ns/c1', 'gold', '<unset>', '', '5m', 'Filesystem']);
  const deleting = withChanges(obj, { 'metadata.deletionTimestamp': NOW });
  assert.equal(pv.tableRow(deleting, new Date(NOW))[4], 'Terminating');
});
