import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANN_BETA_DEFAULT_STORAGE_CLASS, ANN_BETA_STORAGE_CLASS, ANN_BOUND_BY_CONTROLLER, ANN_DEFAULT_STORAGE_CLASS } from '@pv-controller/kube/annotations.js';
import { QuantityParseError } from '@pv-controller/kube/quantity.js';
import type { PersistentVolume, PersistentVolumeClaim, StorageClass } from '@pv-controller/kube/types.js';
import {
  accessModesContain,
  accessModesFromKey,
  accessModesKey,
  claimRefFor,
  claimRequestBytes,
  defaultStorageClass,
  hasAnnotation,
  isDefaultStorageClass,
  isVolumeBoundToClaim,
  storageClassOfClaim,
  storageClassOfVolume,
  volumeCapacityBytes,
  volumeModeOf,
  volumeWithoutBinding,
} from '@pv-controller/kube/volume-helpers.js';

function pv(spec: PersistentVolume['spec'], annotations?: Record<string, string>): PersistentVolume {
  return { metadata: { name: 'pv1', ...(annotations ? { annotations } : {}) }, spec };
}
function pvc(spec: PersistentVolumeClaim['spec'], annotations?: Record<string, string>): PersistentVolumeClaim {
  return { metadata: { name: 'c1', namespace: 'ns', uid: 'u1', resourceVersion: '7', ...(annotations ? { annotations } : {}) }, spec };
}
function sc(name: string, created: string, annotations: Record<string, string> = {}): StorageClass {
  return { metadata: { name, creationTimestamp: created, annotations }, provisioner: 'x' };
}

test('a volume\'s class is the beta annotation when present, even empty, else the spec field', () => {
  assert.equal(storageClassOfVolume(pv({ storageClassName: 'gold' })), 'gold');
  assert.equal(storageClassOfVolume(pv({})), '');
  assert.equal(storageClassOfVolume(pv({ storageClassName: 'gold' }, { [ANN_BETA_STORAGE_CLASS]: 'silver' })), 'silver');
  assert.equal(storageClassOfVolume(pv({ storageClassName: 'gold' }, { [ANN_BETA_STORAGE_CLASS]: '' })), '');
});

test('a claim\'s class keeps nil apart from explicit empty', () => {
  assert.equal(storageClassOfClaim(pvc({})), undefined);
  assert.equal(storageClassOfClaim(pvc({ storageClassName: '' })), '');
  assert.equal(storageClassOfClaim(pvc({ storageClassName: 'gold' })), 'gold');
  assert.equal(storageClassOfClaim(pvc({}, { [ANN_BETA_STORAGE_CLASS]: 'old' })), 'old');
  assert.equal(storageClassOfClaim(pvc({ storageClassName: 'gold' }, { [ANN_BETA_STORAGE_CLASS]: '' })), '');
});

test('a volume is bound to a claim by name and namespace, with an empty or equal uid', () => {
  const claim = pvc({});
  assert.equal(isVolumeBoundToClaim(pv({}), claim), false);
  assert.equal(isVolumeBoundToClaim(pv({ claimRef: { name: 'c1', namespace: 'ns' } }), claim), true);
  assert.equal(isVolumeBoundToClaim(pv({ claimRef: { name: 'c1', namespace: 'ns', uid: 'u1' } }), claim), true);
  assert.equal(isVolumeBoundToClaim(pv({ claimRef: { name: 'c1', namespace: 'ns', uid: 'u2' } }), claim), false);
  assert.equal(isVolumeBoundToClaim(pv({ claimRef: { name: 'c1', namespace: 'other' } }), claim), false);
  assert.equal(isVolumeBoundToClaim(pv({ claimRef: { name: 'c2', namespace: 'ns' } }), claim), false);
});

test('access modes key is de-duplicated in the fixed RWO,ROX,RWX,RWOP order', () => {
  assert.equal(accessModesKey(['ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOnce']), 'RWO,RWX');
  assert.equal(accessModesKey(['ReadWriteOncePod', 'ReadOnlyMany']), 'ROX,RWOP');
  assert.equal(accessModesKey([]), '');
  assert.equal(accessModesKey(undefined), '');
  assert.deepEqual(accessModesFromKey('RWX,RWO'), ['ReadWriteOnce', 'ReadWriteMany']);
});

test('access modes containment needs every wanted mode', () => {
  assert.equal(accessModesContain(['ReadWriteOnce', 'ReadOnlyMany'], ['ReadWriteOnce']), true);
  assert.equal(accessModesContain(['ReadWriteOnce'], ['ReadWriteOnce', 'ReadOnlyMany']), false);
  assert.equal(accessModesContain(['ReadWriteOnce'], []), true);
  assert.equal(accessModesContain(undefined, ['ReadWriteOnce']), false);
});

test('request and capacity are exact bytes, 0 when unset, and malformed values throw', () => {
  assert.equal(claimRequestBytes(pvc({ resources: { requests: { storage: '1.5Gi' } } })), 1610612736n);
  assert.equal(claimRequestBytes(pvc({})), 0n);
  assert.equal(volumeCapacityBytes(pv({ capacity: { storage: '10G' } })), 10_000_000_000n);
  assert.equal(volumeCapacityBytes(pv({})), 0n);
  assert.throws(() => volumeCapacityBytes(pv({ capacity: { storage: '10 GB' } })), QuantityParseError);
});

test('volume mode defaults to Filesystem', () => {
  assert.equal(volumeModeOf(pv({})), 'Filesystem');
  assert.equal(volumeModeOf(pvc({ volumeMode: 'Block' })), 'Block');
});

test('a class is default by the GA or beta annotation set to "true" only', () => {
  assert.equal(isDefaultStorageClass(sc('a', '', { [ANN_DEFAULT_STORAGE_CLASS]: 'true' })), true);
  assert.equal(isDefaultStorageClass(sc('a', '', { [ANN_BETA_DEFAULT_STORAGE_CLASS]: 'true' })), true);
  assert.equal(isDefaultStorageClass(sc('a', '', { [ANN_DEFAULT_STORAGE_CLASS]: 'True' })), false);
  assert.equal(isDefaultStorageClass(sc('a', '')), false);
});

test('the newest default class wins, ties by name ascending', () => {
  const yes = { [ANN_DEFAULT_STORAGE_CLASS]: 'true' };
  assert.equal(defaultStorageClass([sc('plain', '2030-01-01T00:00:00Z')]), undefined);
  const classes = [
    sc('old', '2020-01-01T00:00:00Z', yes),
    sc('zeta', '2024-01-01T00:00:00Z', yes),
    sc('alpha', '2024-01-01T00:00:00Z', yes),
    sc('newest-not-default', '2025-01-01T00:00:00Z'),
  ];
  assert.equal(defaultStorageClass(classes)?.metadata.name, 'alpha');
});

test('hasAnnotation sees empty values and claimRef copies the claim identity', () => {
  assert.equal(hasAnnotation(pvc({}, { a: '' }), 'a'), true);
  assert.equal(hasAnnotation(pvc({}), 'a'), false);
  assert.deepEqual(claimRefFor(pvc({})), {
    kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: 'ns', name: 'c1', uid: 'u1', resourceVersion: '7',
  });
});

test('volumeWithoutBinding drops a claimRef the controller wrote, with its annotation, and leaves the input untouched', () => {
  const pv: PersistentVolume = {
    metadata: { name: 'pv', annotations: { [ANN_BOUND_BY_CONTROLLER]: 'yes', keep: 'me' } },
    spec: { claimRef: { namespace: 'ns', name: 'c', uid: 'u1' } },
  };
  const unbound = volumeWithoutBinding(pv);
  assert.equal(unbound.spec.claimRef, undefined);
  assert.deepEqual(unbound.metadata.annotations, { keep: 'me' });
  assert.equal(pv.spec.claimRef?.uid, 'u1');
  const onlyMarker = volumeWithoutBinding({ ...pv, metadata: { name: 'pv', annotations: { [ANN_BOUND_BY_CONTROLLER]: 'yes' } } });
  assert.equal(onlyMarker.metadata.annotations, undefined);
});

test('volumeWithoutBinding keeps a user\'s pre-binding to the claim name and clears only the uid', () => {
  const pv: PersistentVolume = { metadata: { name: 'pv' }, spec: { claimRef: { namespace: 'ns', name: 'c', uid: 'u1' } } };
  assert.deepEqual(volumeWithoutBinding(pv).spec.claimRef, { namespace: 'ns', name: 'c', uid: '' });
  assert.deepEqual(volumeWithoutBinding({ metadata: { name: 'free' }, spec: {} }), { metadata: { name: 'free' }, spec: {} });
});
