import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { messageNamed, messages, nestingDepth } from '@pv-controller/apiserver/protobuf/descriptor.js';
import { decodeObject, encodeObject, ProtobufDecodeError, watchFrame } from '@pv-controller/apiserver/protobuf/envelope.js';

const PV = {
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: {
    name: 'pv1',
    uid: '0f5e2a51-1111-2222-3333-444455556666',
    resourceVersion: '12',
    creationTimestamp: '2026-01-02T03:04:05Z',
    deletionTimestamp: '2026-01-02T03:04:06Z',
    labels: { b: '2', a: '1', '10': 'x', '9': 'y' },
    finalizers: ['kubernetes.io/pv-protection'],
    managedFields: [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', time: '2026-01-02T03:04:05Z', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:capacity': {} } } }],
  },
  spec: {
    capacity: { storage: '5Gi' },
    accessModes: ['ReadWriteOnce', 'ReadOnlyMany'],
    persistentVolumeReclaimPolicy: 'Retain',
    hostPath: { path: '/tmp/pv1', type: '' },
    volumeMode: 'Filesystem',
    claimRef: { namespace: 'default', name: 'c1' },
  },
  status: { phase: 'Available' },
};

/** JSON as compared across encoders: keys sorted (Go writes struct order, we write field order). */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1))) : x);
}

function roundTrip(obj: Record<string, unknown>): Record<string, unknown> {
  return decodeObject(encodeObject(obj), { apiVersion: String(obj.apiVersion), kind: String(obj.kind) }).value;
}

test('a PersistentVolume survives a protobuf round trip field for field', () => {
  const back = roundTrip(PV);
  // hostPath.type "" is a pointer set to the empty string: kept; omitempty zeros elsewhere are left out as Go writes them.
  assert.equal(canonical(back), canonical(PV));
});

test('the envelope is k8s\\0 and a runtime.Unknown naming apiVersion and kind', () => {
  const body = encodeObject(PV);
  assert.deepEqual([...body.subarray(0, 4)], [0x6b, 0x38, 0x73, 0x00]);
  const unknown = messageNamed('k8s.io/apimachinery/pkg/runtime.Unknown').type.decode(body.subarray(4)) as unknown as Record<string, unknown>;
  assert.deepEqual({ ...(unknown.typeMeta as object) }, { apiVersion: 'v1', kind: 'PersistentVolume' });
  assert.equal(unknown.contentType, '');
});

test('map entries are written in Go key-byte order, integer-like keys included', () => {
  const body = encodeObject(PV).toString('latin1');
  const order = ['10', '9', 'a', 'b'].map((k) => body.indexOf(`\n${String.fromCharCode(k.length)}${k}\u0012`));
  assert.ok(order.every((at) => at > 0), String(order));
  assert.deepEqual([...order].sort((x, y) => x - y), order);
});

test('unset pointers are left out while empty non-pointer strings are written', () => {
  const ref = messageNamed('k8s.io/api/core/v1.ObjectReference');
  const bytes = ref.type.encode({ kind: '', namespace: '', name: 'n', uid: '', apiVersion: '', resourceVersion: '', fieldPath: '' }).finish();
  // seven string fields, each a tag and a length: 2 bytes each plus the one-byte name.
  assert.equal(bytes.length, 15);
  const obj = { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'x' }, spec: {} };
  const back = roundTrip(obj);
  assert.equal((back.spec as Record<string, unknown>).claimRef, undefined);
  assert.equal((back.spec as Record<string, unknown>).volumeMode, undefined);
});

test('Time keeps whole seconds, MicroTime six digits, and the zero time stays unset', () => {
  const lease = {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'l', namespace: 'default', creationTimestamp: '2026-01-02T03:04:05Z' },
    spec: { holderIdentity: 'me', acquireTime: '2026-01-02T03:04:05.123456Z', renewTime: '2026-01-02T04:04:05.000001+01:00', leaseDurationSeconds: 15 },
  };
  const back = roundTrip(lease);
  const spec = back.spec as Record<string, unknown>;
  assert.equal(spec.acquireTime, '2026-01-02T03:04:05.123456Z');
  assert.equal(spec.renewTime, '2026-01-02T03:04:05.000001Z');
  assert.equal((back.metadata as Record<string, unknown>).creationTimestamp, '2026-01-02T03:04:05Z');
  const noTime = roundTrip({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' } });
  assert.equal((noTime.metadata as Record<string, unknown>).creationTimestamp, undefined);
});

test('Quantity is a string, IntOrString keeps its kind, bytes are base64', () => {
  const svc = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 's', namespace: 'default' },
    spec: { ports: [{ port: 80, targetPort: 'http' }, { port: 81, targetPort: 8081 }] },
  };
  const ports = ((roundTrip(svc).spec as Record<string, unknown>).ports as Array<Record<string, unknown>>).map((p) => p.targetPort);
  assert.deepEqual(ports, ['http', 8081]);
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default' }, data: { k: Buffer.from('hello').toString('base64') } };
  assert.deepEqual(roundTrip(secret).data, { k: 'aGVsbG8=' });
  const claim = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c', namespace: 'd' }, spec: { resources: { requests: { storage: '1500m' } } } };
  assert.deepEqual(((roundTrip(claim).spec as Record<string, unknown>).resources as Record<string, unknown>).requests, { storage: '1500m' });
});

test('a body without the k8s\\0 prefix is refused as Go words it', () => {
  assert.throws(() => decodeObject(Buffer.from('garbage'), { apiVersion: 'v1', kind: 'Namespace' }), {
    message: 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]',
  });
});

test('a truncated envelope or object is unexpected EOF', () => {
  assert.throws(() => decodeObject(Buffer.from([0x6b, 0x38, 0x73, 0x00, 0xff, 0xff]), { apiVersion: 'v1', kind: 'Namespace' }), (err: unknown) =>
    err instanceof ProtobufDecodeError && err.message === 'unexpected EOF' && !err.inObject);
  const inner = Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x12, 0x02, 0xff, 0xff]);
  assert.throws(() => decodeObject(inner, { apiVersion: 'v1', kind: 'Namespace' }), (err: unknown) =>
    err instanceof ProtobufDecodeError && err.message === 'unexpected EOF' && err.inObject);
});

test('deeply nested unknown groups are refused, not a crash', () => {
  const depth = 200_000;
  const raw = Buffer.concat([Buffer.alloc(depth, 0x7b), Buffer.alloc(depth, 0x7c)]); // field 15 start/end group
  const unknown = messageNamed('k8s.io/apimachinery/pkg/runtime.Unknown').type.encode({ raw }).finish();
  const body = Buffer.concat([Buffer.from('k8s\0', 'latin1'), unknown]);
  assert.throws(() => decodeObject(body, { apiVersion: 'v1', kind: 'Namespace' }), ProtobufDecodeError);
});

test('the schema has no recursive message, so decoding depth is bounded', () => {
  let deepest = 0;
  for (const name of messages().keys()) deepest = Math.max(deepest, nestingDepth(name));
  assert.ok(deepest < 20, `deepest chain of messages: ${deepest}`);
});

test('an envelope without apiVersion and kind takes the endpoint kind', () => {
  const ns = messageNamed('k8s.io/api/core/v1.Namespace').type.encode({ metadata: { name: 'n' } }).finish();
  const unknown = messageNamed('k8s.io/apimachinery/pkg/runtime.Unknown').type.encode({ raw: ns }).finish();
  const out = decodeObject(Buffer.concat([Buffer.from('k8s\0', 'latin1'), unknown]), { apiVersion: 'v1', kind: 'Namespace' });
  assert.deepEqual(out.value, { kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'n' }, spec: {}, status: {} });
});

test('a watch frame is a big-endian length and a WatchEvent holding the enveloped object', () => {
  const object = encodeObject(PV);
  const frame = watchFrame('ADDED', object);
  assert.equal(frame.readUInt32BE(0), frame.length - 4);
  const event = messageNamed('k8s.io/apimachinery/pkg/apis/meta/v1.WatchEvent').type.decode(frame.subarray(4)) as unknown as Record<string, unknown>;
  assert.equal(event.type, 'ADDED');
  assert.ok(Buffer.from((event.object as { raw: Uint8Array }).raw).equals(object));
});

test('Status errors encode with meta.k8s.io/v1 Status under apiVersion v1', () => {
  const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'x', reason: 'NotFound', details: { name: 'n', kind: 'persistentvolumes' }, code: 404 };
  assert.equal(canonical(roundTrip(status)), canonical(status));
});

test('a scalar whose Go struct tag says "rep" is one value on the wire: a Pod\'s qosClass and a rules review\'s incomplete round-trip', () => {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] }, status: { phase: 'Pending', qosClass: 'BestEffort' } };
  assert.deepEqual(roundTrip(pod).status, { phase: 'Pending', qosClass: 'BestEffort' });
  const bytes = encodeObject(pod);
  // field 9 of PodStatus, length-delimited, then the string itself
  assert.ok(bytes.includes(Buffer.concat([Buffer.from([(9 << 3) | 2, 'BestEffort'.length]), Buffer.from('BestEffort')])));
  const review = { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', metadata: {}, spec: {}, status: { resourceRules: [], nonResourceRules: [], incomplete: true } };
  assert.equal((roundTrip(review).status as { incomplete?: boolean }).incomplete, true);
});
