import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { volumeAttributesClassStrategy as vac } from '@pv-controller/apiserver/resources/storage.k8s.io/volumeattributesclasses.js';
import { assertCause, create, update, withChanges } from './helpers.js';

const valid: KubeObject = {
  apiVersion: 'storage.k8s.io/v1',
  kind: 'VolumeAttributesClass',
  metadata: { name: 'fast' },
  driverName: 'ebs.csi.aws.com',
  parameters: { iops: '3000' },
};

test('a valid VolumeAttributesClass is accepted and gets the vac-protection finalizer, as StorageObjectInUseProtection adds it', () => {
  const { obj, causes } = create(vac, valid);
  assert.deepEqual(causes, []);
  assert.deepEqual(obj.metadata.finalizers, ['kubernetes.io/vac-protection']);
});

test('a VolumeAttributesClass needs a DNS-subdomain name, a driverName and no empty parameter key, with kube-apiserver causes', () => {
  const { causes } = create(vac, withChanges(valid, { 'metadata.name': 'Bad_x', driverName: undefined, parameters: { '': 'x' } }));
  assertCause(causes, 'metadata.name', 'FieldValueInvalid');
  assertCause(causes, 'driverName', 'FieldValueRequired', 'Required value');
  assertCause(causes, 'parameters', 'FieldValueInvalid', 'Invalid value: "": field can not be empty.');
});

test('driverName and parameters of a VolumeAttributesClass are immutable, labels are not', () => {
  const stored = create(vac, valid).obj;
  const { causes } = update(vac, withChanges(stored, { driverName: 'x.y', parameters: { iops: '1' } }), stored);
  assertCause(causes, 'driverName', 'FieldValueForbidden', 'Forbidden: updates to driverName are forbidden.');
  assertCause(causes, 'parameters', 'FieldValueForbidden', 'Forbidden: updates to parameters are forbidden.');
  assert.deepEqual(update(vac, withChanges(stored, { 'metadata.labels': { tier: 'gold' } }), stored).causes, []);
});
