import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiError } from '@pv-controller/kube/errors.js';
import type { KubeObject, PersistentVolumeClaim, StorageClass } from '@pv-controller/kube/types.js';
import { persistentVolumeClaimStrategy as pvc } from '@pv-controller/apiserver/resources/core/persistentvolumeclaims.js';
import { assertCause, create, emptyAdmission, statusUpdate, update, withChanges, type RuleCase } from './helpers.js';

const valid: KubeObject = {
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'c1', namespace: 'ns' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
};

function sc(name: string, created: string, isDefault: boolean): StorageClass {
  return {
    metadata: { name, creationTimestamp: created, annotations: isDefault ? { 'storageclass.kubernetes.io/is-default-class': 'true' } : {} },
    provisioner: 'example.com/p',
  };
}

test('a valid claim reads back Pending, Filesystem, with the pvc-protection finalizer and no class', () => {
  const { obj, causes } = create(pvc, { ...valid, status: { phase: 'Bound' } });
  assert.deepEqual(causes, []);
  const c = obj as PersistentVolumeClaim;
  assert.deepEqual(c.status, { phase: 'Pending' });
  assert.equal(c.spec.volumeMode, 'Filesystem');
  assert.equal(c.spec.storageClassName, undefined);
  assert.deepEqual(c.metadata.finalizers, ['kubernetes.io/pvc-protection']);
});

test('requests and limits are rounded up to milli-units as SetDefaults_ResourceList rounds them', () => {
  const c = create(pvc, withChanges(valid, { 'spec.resources': { requests: { storage: '1500u' }, limits: { storage: '1n' } } })).obj as PersistentVolumeClaim;
  assert.deepEqual(c.spec.resources, { requests: { storage: '2m' }, limits: { storage: '1m' } });
});

test('DefaultStorageClass admission sets the newest default class only on claims without any class', () => {
  const ctx = emptyAdmission({ 'storage.k8s.io/storageclasses': [
    sc('old', '2020-01-01T00:00:00Z', true), sc('new', '2023-01-01T00:00:00Z', true), sc('newest', '2024-01-01T00:00:00Z', false),
  ] });
  assert.equal((create(pvc, valid, ctx).obj as PersistentVolumeClaim).spec.storageClassName, 'new');
  const explicitEmpty = withChanges(valid, { 'spec.storageClassName': '' });
  assert.equal((create(pvc, explicitEmpty, ctx).obj as PersistentVolumeClaim).spec.storageClassName, '');
  const beta = withChanges(valid, { 'metadata.annotations': { 'volume.beta.kubernetes.io/storage-class': 'x' } });
  assert.equal((create(pvc, beta, ctx).obj as PersistentVolumeClaim).spec.storageClassName, undefined);
});

test('dataSource and dataSourceRef mirror each other on create', () => {
  const ds = { kind: 'PersistentVolumeClaim', name: 'src' };
  const { obj, causes } = create(pvc, withChanges(valid, { 'spec.dataSource': ds }));
  assert.deepEqual(causes, []);
  assert.deepEqual((obj as PersistentVolumeClaim).spec.dataSourceRef, { ...ds, apiGroup: null }, 'the core group written as null, as core/v1 does');
  assert.deepEqual((obj as PersistentVolumeClaim).spec.dataSource, { ...ds, apiGroup: null });
});

test('a populator\'s kind in dataSource alone is dropped on create, as kube-apiserver ignores it (KEP-1495); in dataSourceRef it is kept and mirrored', () => {
  const populator = { apiGroup: 'populators.example.com', kind: 'Tarball', name: 'seed' };
  const alone = create(pvc, withChanges(valid, { 'spec.dataSource': populator }));
  assert.deepEqual(alone.causes, []);
  assert.equal((alone.obj as PersistentVolumeClaim).spec.dataSource, undefined);
  assert.equal((alone.obj as PersistentVolumeClaim).spec.dataSourceRef, undefined);
  const asRef = create(pvc, withChanges(valid, { 'spec.dataSourceRef': populator })).obj as PersistentVolumeClaim;
  assert.deepEqual(asRef.spec.dataSource, populator);
  assert.deepEqual(asRef.spec.dataSourceRef, populator);
});

test('a dataSourceRef naming a namespace is dropped on create (CrossNamespaceVolumeDataSource is off)', () => {
  const ref = { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 's1', namespace: 'other' };
  const { obj, causes } = create(pvc, withChanges(valid, { 'spec.dataSourceRef': ref }));
  assert.deepEqual(causes, []);
  assert.equal((obj as PersistentVolumeClaim).spec.dataSourceRef, undefined);
  assert.equal((obj as PersistentVolumeClaim).spec.dataSource, undefined);
});

test('an update that omits dataSourceRef (an older client) gets it back and passes the immutability check', () => {
  const prev = storedClaim({ 'spec.dataSource': { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 's1' } });
  const prepared = create(pvc, prev).obj;
  const next = withChanges(prepared, { 'spec.dataSourceRef': undefined, 'metadata.labels': { tier: 'gold' } });
  const { obj, causes } = update(pvc, next, prepared);
  assert.deepEqual(causes, []);
  assert.deepEqual((obj as PersistentVolumeClaim).spec.dataSourceRef, { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 's1' });
});

test('an empty apiGroup on one side and none on the other do not match (upstream compares the pointers)', () => {
  const changes = { 'spec.dataSource': { kind: 'PersistentVolumeClaim', name: 'a' }, 'spec.dataSourceRef': { apiGroup: '', kind: 'PersistentVolumeClaim', name: 'a' } };
  assertCause(create(pvc, withChanges(valid, changes)).causes, 'spec', 'FieldValueInvalid', 'Invalid value: {}: must match dataSourceRef');
});

test('valid claim variants pass: selector, class, block mode, snapshot data source', () => {
  const variants: Record<string, unknown>[] = [
    { 'spec.selector': { matchLabels: { zone: 'a' }, matchExpressions: [{ key: 'speed', operator: 'In', values: ['fast'] }] } },
    { 'spec.storageClassName': 'gold', 'spec.volumeMode': 'Block', 'spec.volumeName': 'anything at all' },
    { 'spec.dataSource': { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 's1' } },
  ];
  for (const set of variants) assert.deepEqual(create(pvc, withChanges(valid, set)).causes, [], JSON.stringify(set));
});

const createRules: RuleCase[] = [
  { name: 'namespace required', set: { 'metadata.namespace': undefined }, field: 'metadata.namespace', reason: 'FieldValueRequired' },
  { name: 'namespace is a DNS label', set: { 'metadata.namespace': 'a.b' }, field: 'metadata.namespace', reason: 'FieldValueInvalid' },
  { name: 'access modes required', set: { 'spec.accessModes': undefined }, field: 'spec.accessModes', reason: 'FieldValueRequired',
    message: 'Required value: at least 1 access mode is required' },
  { name: 'access modes supported', set: { 'spec.accessModes': ['RWO'] }, field: 'spec.accessModes', reason: 'FieldValueNotSupported' },
  { name: 'storage request required', set: { 'spec.resources': {} }, field: 'spec.resources[storage]', reason: 'FieldValueRequired' },
  { name: 'storage request positive', set: { 'spec.resources': { requests: { storage: '-1Gi' } } }, field: 'spec.resources[storage]',
    reason: 'FieldValueInvalid', message: 'Invalid value: "-1Gi": must be greater than zero' },
  { name: 'class is a subdomain', set: { 'spec.storageClassName': 'Gold' }, field: 'spec.storageClassName', reason: 'FieldValueInvalid' },
  { name: 'volume mode supported', set: { 'spec.volumeMode': 'raw' }, field: 'spec.volumeMode', reason: 'FieldValueNotSupported' },
  { name: 'selector operator valid', set: { 'spec.selector': { matchExpressions: [{ key: 'a', operator: 'Equals', values: ['b'] }] } },
    field: 'spec.selector.matchExpressions[0].operator', reason: 'FieldValueInvalid' },
  { name: 'selector In needs values', set: { 'spec.selector': { matchExpressions: [{ key: 'a', operator: 'In' }] } },
    field: 'spec.selector.matchExpressions[0].values', reason: 'FieldValueRequired' },
  { name: 'selector Exists takes no values', set: { 'spec.selector': { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['b'] }] } },
    field: 'spec.selector.matchExpressions[0].values', reason: 'FieldValueForbidden' },
  { name: 'selector label keys valid', set: { 'spec.selector': { matchLabels: { 'bad key': 'v' } } }, field: 'spec.selector.matchLabels',
    reason: 'FieldValueInvalid' },
  { name: 'data source kind for the core group', set: { 'spec.dataSourceRef': { kind: 'Pod', name: 'p' } }, field: 'spec.dataSourceRef',
    reason: 'FieldValueInvalid', message: "Invalid value: \"Pod\": must be 'PersistentVolumeClaim' when referencing the default apiGroup" },
  { name: 'data source name required', set: { 'spec.dataSource': { kind: 'PersistentVolumeClaim' } }, field: 'spec.dataSource.name',
    reason: 'FieldValueRequired' },
  { name: 'dataSource must match dataSourceRef', set: {
    'spec.dataSource': { kind: 'PersistentVolumeClaim', name: 'a' }, 'spec.dataSourceRef': { kind: 'PersistentVolumeClaim', name: 'b' },
  }, field: 'spec', reason: 'FieldValueInvalid', message: 'Invalid value: {}: must match dataSourceRef' },
];

for (const rule of createRules) {
  test(`PVC create rule: ${rule.name} (${rule.field})`, () => {
    assertCause(create(pvc, withChanges(valid, rule.set)).causes, rule.field, rule.reason, rule.message);
  });
}

function storedClaim(set: Record<string, unknown> = {}): KubeObject {
  return withChanges(create(pvc, valid).obj, set);
}

test('volumeName may be set once, then never changed or cleared', () => {
  const prev = storedClaim();
  assert.deepEqual(update(pvc, withChanges(prev, { 'spec.volumeName': 'pv1' }), prev).causes, []);
  const bound = storedClaim({ 'spec.volumeName': 'pv1' });
  assertCause(update(pvc, withChanges(bound, { 'spec.volumeName': 'pv2' }), bound).causes, 'spec', 'FieldValueForbidden',
    /^Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n/);
  assertCause(update(pvc, withChanges(bound, { 'spec.volumeName': '' }), bound).causes, 'spec', 'FieldValueForbidden');
});

test('annotations, labels and finalizers stay mutable; status is ignored on the main resource', () => {
  const prev = storedClaim();
  const next = withChanges(prev, {
    'metadata.annotations': { 'pv.kubernetes.io/bind-completed': 'yes', 'volume.kubernetes.io/storage-provisioner': 'x.io/p' },
    'metadata.finalizers': [], 'status.phase': 'Bound',
  });
  const { obj, causes } = update(pvc, next, prev);
  assert.deepEqual(causes, []);
  assert.equal((obj as PersistentVolumeClaim).status?.phase, 'Pending');
});

test('storage may grow only while Bound, and come back down only to above status.capacity (KEP-1790)', () => {
  const pending = storedClaim();
  assertCause(update(pvc, withChanges(pending, { 'spec.resources.requests.storage': '2Gi' }), pending).causes, 'spec', 'FieldValueForbidden');
  const bound = storedClaim({ 'status.phase': 'Bound', 'status.capacity': { storage: '1Gi' }, 'spec.volumeName': 'pv1' });
  assert.deepEqual(update(pvc, withChanges(bound, { 'spec.resources.requests.storage': '2Gi' }), bound).causes, []);
  assertCause(update(pvc, withChanges(bound, { 'spec.resources.requests.storage': '512Mi' }), bound).causes,
    'spec.resources.requests.storage', 'FieldValueForbidden', 'Forbidden: field can not be less than status.capacity');
  const grown = storedClaim({ 'status.phase': 'Bound', 'status.capacity': { storage: '1Gi' }, 'spec.volumeName': 'pv1',
    'spec.resources.requests.storage': '4Gi' });
  assert.deepEqual(update(pvc, withChanges(grown, { 'spec.resources.requests.storage': '1536Mi' }), grown).causes, []);
  assertCause(update(pvc, withChanges(grown, { 'spec.resources.requests.storage': '1Gi' }), grown).causes,
    'spec.resources.requests.storage', 'FieldValueForbidden', 'Forbidden: field can not be less than status.capacity');
});

test('PersistentVolumeClaimResize admission: growth needs a class that allows expansion, refused with 403 as kube-apiserver', () => {
  const ctx = emptyAdmission({ 'storage.k8s.io/storageclasses': [
    { metadata: { name: 'grows' }, provisioner: 'p', allowVolumeExpansion: true } as StorageClass,
    { metadata: { name: 'fixed' }, provisioner: 'p' } as StorageClass,
  ] });
  const at = (cls: string | undefined): PersistentVolumeClaim => storedClaim({ 'status.phase': 'Bound', 'status.capacity': { storage: '1Gi' },
    'spec.volumeName': 'pv1', 'spec.storageClassName': cls }) as PersistentVolumeClaim;
  const grow = (prev: PersistentVolumeClaim): PersistentVolumeClaim =>
    withChanges(prev, { 'spec.resources.requests.storage': '2Gi' }) as PersistentVolumeClaim;
  assert.doesNotThrow(() => pvc.admitUpdate?.(grow(at('grows')), at('grows'), ctx));
  for (const cls of ['fixed', '', undefined, 'missing']) {
    assert.throws(() => pvc.admitUpdate?.(grow(at(cls)), at(cls), ctx), (err: ApiError) => {
      assert.equal(err.code, 403);
      assert.deepEqual(err.toStatus(), {
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
        message: 'persistentvolumeclaims "c1" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
        details: { name: 'c1', kind: 'persistentvolumeclaims' },
      });
      return true;
    }, String(cls));
  }
  const shrink = withChanges(at('fixed'), { 'spec.resources.requests.storage': '1Gi' }) as PersistentVolumeClaim;
  assert.doesNotThrow(() => pvc.admitUpdate?.(shrink, at('fixed'), ctx));
});

test('status: allocatedResources and allocatedResourceStatuses are checked as kube-apiserver checks them', () => {
  const prev = storedClaim({ 'status.phase': 'Bound' });
  const good = withChanges(prev, { 'status.allocatedResources': { storage: '2Gi' },
    'status.allocatedResourceStatuses': { storage: 'ControllerResizeInProgress' } });
  assert.deepEqual(statusUpdate(pvc, good, prev).causes, []);
  const bad = withChanges(prev, { 'status.allocatedResources': { storage: '-1Gi' },
    'status.allocatedResourceStatuses': { storage: 'Bogus', foo: 'ControllerResizeInProgress' } });
  const causes = statusUpdate(pvc, bad, prev).causes;
  assertCause(causes, 'status.allocatedResources[storage]', 'FieldValueInvalid', 'Invalid value: -1073741824: must be a valid resource quantity');
  const statuses = causes.filter((c) => c.field === 'status.allocatedResourceStatuses').map((c) => c.message).sort();
  assert.deepEqual(statuses, [
    'Unsupported value: "foo": supported values: "storage"',
    'Unsupported value: "storage": supported values: "ControllerResizeInProgress", "ControllerResizeInfeasible", "NodeResizeInProgress", "NodeResizeInfeasible", "NodeResizePending"',
  ]);
});

test('volumeAttributesClassName may change while Bound, but not to nil or "" once a class was applied', () => {
  const applied = storedClaim({ 'status.phase': 'Bound', 'spec.volumeName': 'pv1', 'spec.volumeAttributesClassName': 'gold',
    'status.currentVolumeAttributesClassName': 'gold' });
  assert.deepEqual(update(pvc, withChanges(applied, { 'spec.volumeAttributesClassName': 'silver' }), applied).causes, []);
  const toNil = update(pvc, withChanges(applied, { 'spec.volumeAttributesClassName': undefined }), applied).causes;
  assert.deepEqual(toNil.map((c) => c.field), ['spec.volumeAttributesClassName'], 'only the removal rule, not spec immutability');
  assertCause(toNil, 'spec.volumeAttributesClassName', 'FieldValueForbidden', 'Forbidden: update to nil is forbidden when status.currentVolumeAttributesClassName is not nil');
  assertCause(update(pvc, withChanges(applied, { 'spec.volumeAttributesClassName': '' }), applied).causes,
    'spec.volumeAttributesClassName', 'FieldValueForbidden', 'Forbidden: update to empty string is forbidden when status.currentVolumeAttributesClassName is not nil');
});

test('storage class: nil may become a value, a set class is immutable, the beta annotation is immutable', () => {
  const nilClass = storedClaim();
  assert.deepEqual(update(pvc, withChanges(nilClass, { 'spec.storageClassName': 'gold' }), nilClass).causes, []);
  const gold = storedClaim({ 'spec.storageClassName': 'gold' });
  assertCause(update(pvc, withChanges(gold, { 'spec.storageClassName': 'silver' }), gold).causes, 'spec', 'FieldValueForbidden');
  const beta = storedClaim({ 'metadata.annotations': { 'volume.beta.kubernetes.io/storage-class': 'gold' } });
  assert.deepEqual(update(pvc, withChanges(beta, { 'spec.storageClassName': 'gold' }), beta).causes, []);
  assertCause(update(pvc, withChanges(beta, { 'spec.storageClassName': 'silver' }), beta).causes, 'spec', 'FieldValueForbidden');
  assertCause(update(pvc, withChanges(beta, { 'metadata.annotations': { 'volume.beta.kubernetes.io/storage-class': 'x' } }), beta).causes,
    'metadata.annotations.volume.beta.kubernetes.io/storage-class', 'FieldValueInvalid');
});

test('volumeMode is immutable, reported at volumeMode', () => {
  const prev = storedClaim();
  assertCause(update(pvc, withChanges(prev, { 'spec.volumeMode': 'Block' }), prev).causes, 'volumeMode', 'FieldValueInvalid');
});

test('a status write keeps the spec but takes label changes (kube-apiserver resets only the spec); capacity must not be negative', () => {
  const prev = storedClaim({ 'metadata.labels': { a: 'b' } });
  const next = withChanges(prev, {
    'status.phase': 'Bound', 'status.capacity': { storage: '1Gi' }, 'status.accessModes': ['ReadWriteOnce'],
    'spec.volumeName': 'sneaky', 'metadata.labels': {},
  });
  const { obj, causes } = statusUpdate(pvc, next, prev);
  assert.deepEqual(causes, []);
  const c = obj as PersistentVolumeClaim;
  assert.equal(c.status?.phase, 'Bound');
  assert.equal(c.spec.volumeName, undefined);
  assert.deepEqual(c.metadata.labels, {});
  assertCause(statusUpdate(pvc, withChanges(prev, { 'status.capacity': { storage: '-1' } }), prev).causes, 'status.capacity[storage]',
    'FieldValueInvalid');
});

test('kubectl get pvc row shows capacity and modes only once bound', () => {
  assert.deepEqual(pvc.tableColumns.map((c) => c.name),
    ['Name', 'Status', 'Volume', 'Capacity', 'Access Modes', 'StorageClass', 'VolumeAttributesClass', 'Age', 'VolumeMode']);
  const now = new Date('2024-05-01T12:00:00Z');
  assert.deepEqual(pvc.tableRow(storedClaim(), now), ['c1', 'Pending', '', '', '', '', '<unset>', '120m', 'Filesystem']);
  const bound = storedClaim({ 'spec.volumeName': 'pv1', 'spec.storageClassName': 'gold', 'status.phase': 'Bound',
    'status.capacity': { storage: '1536Mi' }, 'status.accessModes': ['ReadWriteOnce'] });
  assert.deepEqual(pvc.tableRow(bound, now).slice(0, 6), ['c1', 'Bound', 'pv1', '1536Mi', 'RWO', 'gold']);
});
