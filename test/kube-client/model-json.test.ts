import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { ObjectSerializer } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';
import { metaTime, toPlain } from '../../src/kube-client/model-json.js';
import type { CoreEvent, Lease, PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';

interface AttributeType {
  name: string;
  baseName: string;
  type: string;
}
type ModelClass = { getAttributeTypeMap(): AttributeType[] };

const models = k8s as unknown as Record<string, ModelClass | undefined>;

/** Model class names a field type refers to: "Array<V1X>", "{ [key: string]: V1X; }", "V1X". */
function referencedModels(type: string): string[] {
  return [...type.matchAll(/\b((?:V\d\w*|CoreV1\w+))\b/g)].map((m) => m[1]).filter((n) => models[n]?.getAttributeTypeMap);
}

/** Every field reachable from `root` whose model name differs from its wire name. */
function renamedFields(root: string): string[] {
  const renamed: string[] = [];
  const seen = new Set<string>();
  const queue = [root];
  for (let name = queue.shift(); name; name = queue.shift()) {
    if (seen.has(name)) continue;
    seen.add(name);
    for (const attr of models[name]?.getAttributeTypeMap() ?? []) {
      if (attr.name !== attr.baseName) renamed.push(`${name}.${attr.name}`);
      queue.push(...referencedModels(attr.type));
    }
  }
  assert.ok(seen.size > 1, `${root} reaches its nested models`);
  return renamed;
}

const volume: PersistentVolume = {
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: {
    name: 'pv-1',
    uid: 'u-1',
    resourceVersion: '12',
    creationTimestamp: '2026-01-02T03:04:05Z',
    deletionTimestamp: '2026-01-02T03:09:05Z',
    finalizers: ['kubernetes.io/pv-protection'],
    annotations: { 'pv.kubernetes.io/bound-by-controller': 'yes' },
    labels: { tier: 'gold' },
  },
  spec: {
    capacity: { storage: '10Gi' },
    accessModes: ['ReadWriteOnce'],
    persistentVolumeReclaimPolicy: 'Delete',
    storageClassName: 'fast',
    claimRef: { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: 'ns', name: 'c', uid: 'cu', resourceVersion: '9' },
    hostPath: { path: '/srv/pv-1' },
    nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }] } },
  },
  status: { phase: 'Released', lastPhaseTransitionTime: '2026-01-02T03:05:06Z' },
};

const claim: PersistentVolumeClaim = {
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'c', namespace: 'ns', creationTimestamp: '2026-01-02T03:04:05Z' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'fast', volumeName: 'pv-1' },
  status: {
    phase: 'Bound',
    capacity: { storage: '10Gi' },
    conditions: [{ type: 'Resizing', status: 'True', lastTransitionTime: '2026-01-02T03:04:06Z' }],
  },
};

const lease: Lease = {
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name: 'l', namespace: 'kube-system' },
  spec: { holderIdentity: 'me', leaseDurationSeconds: 15, acquireTime: '2026-01-02T03:04:05.123456Z', renewTime: '2026-01-02T03:04:07.000001Z' },
};

const event: CoreEvent = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'c.1', namespace: 'ns' },
  involvedObject: { kind: 'PersistentVolumeClaim', namespace: 'ns', name: 'c', uid: 'cu' },
  reason: 'ProvisioningFailed',
  message: 'boom',
  type: 'Warning',
  count: 1,
  firstTimestamp: '2026-01-02T03:04:05Z',
  lastTimestamp: '2026-01-02T03:04:05Z',
  eventTime: null,
  source: { component: 'persistentvolume-controller' },
};

const cases = [
  { model: 'V1PersistentVolume', obj: volume },
  { model: 'V1PersistentVolumeClaim', obj: claim },
  { model: 'V1Lease', obj: lease },
  { model: 'CoreV1Event', obj: event },
];

test('the kinds the controller exchanges use the wire names as model field names', () => {
  for (const root of ['V1PersistentVolume', 'V1PersistentVolumeClaim', 'V1StorageClass', 'V1Pod', 'CoreV1Event', 'V1Lease', 'V1DeleteOptions']) {
    assert.deepEqual(renamedFields(root), [], root);
  }
  assert.deepEqual(renamedFields('V1PersistentVolumeList'), ['V1ListMeta._continue'], 'the check does find renames');
});

test('a plain object handed to the generated serializer goes on the wire as it is, timestamps included', () => {
  for (const { model, obj } of cases) {
    const wire = JSON.parse(JSON.stringify(ObjectSerializer.serialize(obj, model, ''))) as unknown;
    assert.deepEqual(wire, JSON.parse(JSON.stringify(obj)), model);
  }
});

test('a model deserialized from the server’s JSON turns back into exactly that JSON', () => {
  for (const { model, obj } of cases) {
    const typed: unknown = ObjectSerializer.deserialize(JSON.parse(JSON.stringify(obj)), model, '');
    assert.deepEqual(toPlain(typed), obj, model);
  }
  const typed = ObjectSerializer.deserialize(volume, 'V1PersistentVolume', '') as k8s.V1PersistentVolume;
  assert.ok(typed.metadata?.creationTimestamp instanceof Date, 'the generated code really hands back Dates');
});

test('Lease MicroTimes keep six fractional digits through the generated serializer both ways', () => {
  const wire = ObjectSerializer.serialize(lease, 'V1Lease', '') as Lease;
  assert.equal(wire.spec?.renewTime, '2026-01-02T03:04:07.000001Z');
  const back = toPlain<Lease>(ObjectSerializer.deserialize(wire, 'V1Lease', ''));
  assert.equal(back.spec?.acquireTime, '2026-01-02T03:04:05.123456Z');
});

test('metav1.Time is written with whole seconds, as the API server writes it', () => {
  assert.equal(metaTime(new Date('2026-01-02T03:04:05Z')), '2026-01-02T03:04:05Z');
  assert.equal(metaTime(new Date('2026-01-02T03:04:05.250Z')), '2026-01-02T03:04:05.250Z');
});
