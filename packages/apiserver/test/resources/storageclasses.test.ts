import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject, StorageClass } from '@pv-controller/kube/types.js';
import { storageClassStrategy as sc } from '@pv-controller/apiserver/resources/storage.k8s.io/storageclasses.js';
import { Registry } from '@pv-controller/apiserver/registry/registry.js';
import { strategies } from '@pv-controller/apiserver/resources/index.js';
import { MemoryStorage } from '@pv-controller/apiserver/storage/index.js';
import { assertCause, create, update, withChanges, type RuleCase } from './helpers.js';

const valid: KubeObject = {
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name: 'gold' },
  provisioner: 'kubernetes.io/aws-ebs',
  parameters: { type: 'gp3' },
};

test('a valid class defaults to reclaim Delete and binding Immediate', () => {
  const { obj, causes } = create(sc, valid);
  assert.deepEqual(causes, []);
  assert.equal((obj as StorageClass).reclaimPolicy, 'Delete');
  assert.equal((obj as StorageClass).volumeBindingMode, 'Immediate');
  for (const provisioner of ['vendor.com/my-volume', 'mydriver.csi.k8s.io', 'kubernetes.io/no-provisioner', 'Example.COM/Upper']) {
    assert.deepEqual(create(sc, withChanges(valid, { provisioner })).causes, [], provisioner);
  }
  const topo = { allowedTopologies: [{ matchLabelExpressions: [{ key: 'topology.kubernetes.io/zone', values: ['a', 'b'] }] }] };
  assert.deepEqual(create(sc, withChanges(valid, { ...topo, volumeBindingMode: 'WaitForFirstConsumer', reclaimPolicy: 'Retain' })).causes, []);
});

const rules: RuleCase[] = [
  { name: 'provisioner required', set: { provisioner: '' }, field: 'provisioner', reason: 'FieldValueRequired', message: 'Required value' },
  { name: 'provisioner is a qualified name', set: { provisioner: 'a/b/c' }, field: 'provisioner', reason: 'FieldValueInvalid' },
  { name: 'Recycle is not a class reclaim policy', set: { reclaimPolicy: 'Recycle' }, field: 'reclaimPolicy', reason: 'FieldValueNotSupported',
    message: 'Unsupported value: "Recycle": supported values: "Delete", "Retain"' },
  { name: 'binding mode supported', set: { volumeBindingMode: 'Later' }, field: 'volumeBindingMode', reason: 'FieldValueNotSupported' },
  { name: 'parameter keys non-empty', set: { parameters: { '': 'x' } }, field: 'parameters', reason: 'FieldValueInvalid',
    message: 'Invalid value: "": field can not be empty.' },
  { name: 'topology values required', set: { allowedTopologies: [{ matchLabelExpressions: [{ key: 'z', values: [] }] }] },
    field: 'allowedTopologies[0].matchLabelExpressions[0].values', reason: 'FieldValueRequired' },
  { name: 'duplicate topology terms', set: { allowedTopologies: [
    { matchLabelExpressions: [{ key: 'z', values: ['a'] }] }, { matchLabelExpressions: [{ key: 'z', values: ['a'] }] },
  ] }, field: 'allowedTopologies[1].matchLabelExpressions', reason: 'FieldValueDuplicate' },
  { name: 'name is a subdomain', set: { 'metadata.name': 'Gold' }, field: 'metadata.name', reason: 'FieldValueInvalid' },
];
for (const rule of rules) {
  test(`StorageClass rule: ${rule.name} (${rule.field})`, () => {
    assertCause(create(sc, withChanges(valid, rule.set)).causes, rule.field, rule.reason, rule.message);
  });
}

test('parameters, provisioner, reclaimPolicy and binding mode are immutable; expansion and default flag are not', () => {
  const prev = create(sc, valid).obj;
  const cases: [Record<string, unknown>, string, string, string][] = [
    [{ parameters: { type: 'io2' } }, 'parameters', 'FieldValueInvalid', 'Invalid value: null: field is immutable'],
    [{ provisioner: 'x.io/y' }, 'provisioner', 'FieldValueInvalid', 'Invalid value: null: field is immutable'],
    [{ reclaimPolicy: 'Retain' }, 'reclaimPolicy', 'FieldValueInvalid', 'Invalid value: null: field is immutable'],
    [{ volumeBindingMode: 'WaitForFirstConsumer' }, 'volumeBindingMode', 'FieldValueInvalid', 'Invalid value: "WaitForFirstConsumer": field is immutable'],
  ];
  for (const [set, field, reason, message] of cases) assertCause(update(sc, withChanges(prev, set), prev).causes, field, reason, message);
  const ok = withChanges(prev, { allowVolumeExpansion: true, mountOptions: ['ro'],
    'metadata.annotations': { 'storageclass.kubernetes.io/is-default-class': 'true' } });
  assert.deepEqual(update(sc, ok, prev).causes, []);
});

test('kubectl get sc marks the default class and prints its policy columns', () => {
  assert.deepEqual(sc.tableColumns.map((c) => c.name), ['Name', 'Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion', 'Age']);
  // kube-apiserver declares every one of these columns a string, the boolean one too.
  assert.deepEqual(sc.tableColumns.map((c) => c.type), ['string', 'string', 'string', 'string', 'string', 'string']);
  const obj = withChanges(create(sc, valid).obj, { 'metadata.annotations': { 'storageclass.kubernetes.io/is-default-class': 'true' } });
  assert.deepEqual(sc.tableRow(obj, new Date('2024-05-03T10:00:00Z')), ['gold (default)', 'kubernetes.io/aws-ebs', 'Delete', 'Immediate', false, '2d']);
});

test('the registry finds every strategy by group, version and plural', () => {
  const findStrategy = (group: string, version: string, plural: string) =>
    new Registry({ storage: new MemoryStorage(), strategies }).strategyFor(group, version, plural);
  assert.equal(findStrategy('storage.k8s.io', 'v1', 'storageclasses'), sc);
  assert.equal(findStrategy('', 'v1', 'persistentvolumes')?.info.kind, 'PersistentVolume');
  assert.equal(findStrategy('events.k8s.io', 'v1', 'events')?.info.group, 'events.k8s.io');
  assert.equal(findStrategy('coordination.k8s.io', 'v1', 'leases')?.info.namespaced, true);
  assert.equal(findStrategy('', 'v1', 'secrets')?.info.kind, 'Secret');
  assert.equal(findStrategy('', 'v1', 'configmaps'), undefined);
  const keys = strategies.map((s) => `${s.info.group}/${s.info.version}/${s.info.plural}`);
  assert.equal(new Set(keys).size, keys.length);
  for (const s of strategies) {
    assert.equal(s.tableColumns.length > 0, true, s.info.plural);
    assert.equal(s.info.listKind, `${s.info.kind}List`);
  }
});
