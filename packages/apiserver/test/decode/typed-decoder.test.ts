import { test } from 'node:test';
import assert from 'node:assert/strict';
import { modelForKind, QUANTITY_FIELDS, schemaForKind, type StructSchema, type TypeSchema } from '@pv-controller/apiserver/decode/schema.js';
import { decodeTyped, DecodeError, MAX_NESTING_DEPTH } from '@pv-controller/apiserver/decode/typed-decoder.js';
import { strategies } from '@pv-controller/apiserver/resources/index.js';

const PV = schemaForKind('', 'v1', 'PersistentVolume');
const POD = schemaForKind('', 'v1', 'Pod');

function pv(spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv1', ...metadata },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/x' }, ...spec },
  };
}

function decodeError(body: Record<string, unknown>, schema = PV): string {
  try {
    decodeTyped(body, schema);
  } catch (err) {
    assert.ok(err instanceof DecodeError, String(err));
    return err.message;
  }
  assert.fail('expected a DecodeError');
}

/** {a:{a:...{a:leaf}}} with `levels` objects. */
function nested(levels: number, leaf: unknown = 1): unknown {
  let v = leaf;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

function* schemaStructs(): Generator<StructSchema> {
  const seen = new Set<object>();
  // Every kind the registry serves, so an override of a newly served kind is checked too.
  const todo: TypeSchema[] = [POD, ...strategies.map((s) => schemaForKind(s.info.group, s.info.version, s.info.kind))];
  while (todo.length > 0) {
    const t = todo.pop()!;
    if (seen.has(t)) continue;
    seen.add(t);
    if (t.kind === 'struct') {
      yield t;
      for (const f of t.fields.values()) todo.push(f.type);
    } else if (t.kind === 'array') todo.push(t.items);
    else if (t.kind === 'map') todo.push(t.values);
  }
}

test('every built-in kind the registry serves has a client-node model, so no served kind falls back to free-form', () => {
  // Custom resources (the snapshot kinds) decode free-form and are pruned by their CRD's schema.
  for (const s of strategies.filter((each) => each.info.custom === undefined)) {
    assert.ok(modelForKind(s.info.group, s.info.version, s.info.kind), `${s.info.group}/${s.info.kind}`);
    assert.equal(schemaForKind(s.info.group, s.info.version, s.info.kind).otherFields, undefined);
  }
});

test('every resource.Quantity override names a field the models have', () => {
  for (const [model, fields] of Object.entries(QUANTITY_FIELDS)) {
    for (const field of fields) {
      const schema = [...schemaStructs()].find((s) => s.goName === model.replace(/^V1/, ''));
      assert.ok(schema?.fields.has(field), `${model}.${field}`);
    }
  }
});

test('unknown fields are dropped at every depth and reported with their full path, in document order', () => {
  const body = pv(
    { hostPath: { path: '/x', foo: { bar: 1 } }, zeta: 1,
      nodeAffinity: { required: { nodeSelectorTerms: [
        { matchExpressions: [{ key: 'a', operator: 'In', values: ['x'] }] },
        { matchExpressions: [{ key: 'a', operator: 'In', values: ['x'], zzz: 1 }], yyy: 2 },
      ] } } },
    { qq: 1, ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'n', uid: 'u', zz: 1 }] },
  );
  body.top1 = 1;
  const { value, unknownFields } = decodeTyped(body, PV);
  assert.deepEqual(unknownFields, [
    'metadata.qq', 'metadata.ownerReferences[0].zz', 'spec.hostPath.foo', 'spec.zeta',
    'spec.nodeAffinity.required.nodeSelectorTerms[1].matchExpressions[0].zzz', 'spec.nodeAffinity.required.nodeSelectorTerms[1].yyy',
    'top1',
  ]);
  const spec = value.spec as Record<string, unknown>;
  assert.deepEqual(spec.hostPath, { path: '/x' });
  assert.equal('zeta' in spec, false);
  assert.equal('top1' in value, false);
  assert.deepEqual((value.metadata as Record<string, unknown>).ownerReferences, [{ apiVersion: 'v1', kind: 'X', name: 'n', uid: 'u' }]);
});

test('an unknown field is dropped without being walked, however deep it is nested', () => {
  const { value, unknownFields } = decodeTyped(pv({ hostPath: { path: '/x', foo: nested(50_000) } }), PV);
  assert.deepEqual(unknownFields, ['spec.hostPath.foo']);
  assert.deepEqual((value.spec as Record<string, unknown>).hostPath, { path: '/x' });
});

test('the decoded object is a fresh copy and the input is left as it was', () => {
  const body = Object.freeze(pv({ zeta: 1 })) as Record<string, unknown>;
  const { value } = decodeTyped(body, PV);
  assert.notEqual(value, body);
  assert.notEqual(value.spec, body.spec);
  assert.equal((body.spec as Record<string, unknown>).zeta, 1);
});

test('a value of the wrong JSON type is refused with Go\'s text, naming the Go struct, path and type', () => {
  assert.equal(decodeError(pv({}, { labels: { a: 5 } })),
    'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string');
  assert.equal(decodeError(pv({}, { labels: ['a'] })),
    'json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string');
  assert.equal(decodeError({ ...pv(), spec: [] }),
    'json: cannot unmarshal array into Go struct field PersistentVolume.spec of type v1.PersistentVolumeSpec');
  assert.equal(decodeError({ ...pv(), metadata: 'x' }),
    'json: cannot unmarshal string into Go struct field PersistentVolume.metadata of type v1.ObjectMeta');
  assert.equal(decodeError(pv({ hostPath: 'x' })),
    'json: cannot unmarshal string into Go struct field PersistentVolumeSpec.spec.PersistentVolumeSource.hostPath of type v1.HostPathVolumeSource');
  assert.equal(decodeError(pv({ hostPath: { path: 5 } })),
    'json: cannot unmarshal number into Go struct field HostPathVolumeSource.spec.PersistentVolumeSource.hostPath.path of type string');
  assert.equal(decodeError(pv({ mountOptions: [true] })),
    'json: cannot unmarshal bool into Go struct field PersistentVolumeSpec.spec.mountOptions of type string');
  assert.equal(decodeError(pv({ nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'a', operator: 'In', values: [1] }] }] } } })),
    'json: cannot unmarshal number into Go struct field NodeSelectorRequirement.spec.nodeAffinity.required.nodeSelectorTerms.matchExpressions.values of type string');
});

test('integers are held to their Go width and must be whole', () => {
  assert.equal(decodeError(pv({}, { generation: 1.5 })),
    'json: cannot unmarshal number 1.5 into Go struct field ObjectMeta.metadata.generation of type int64');
  assert.equal(decodeError(pv({}, { generation: 1e30 })),
    'json: cannot unmarshal number 1e+30 into Go struct field ObjectMeta.metadata.generation of type int64');
  assert.equal(decodeError(pv({}, { deletionGracePeriodSeconds: 'x' })),
    'json: cannot unmarshal string into Go struct field ObjectMeta.metadata.deletionGracePeriodSeconds of type int64');
  const pod = { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 3_000_000_000 }] }] } };
  assert.equal(decodeError(pod, POD),
    'json: cannot unmarshal number 3000000000 into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32');
});

test('the first plain type mismatch is reported even when unknown fields come first', () => {
  assert.equal(decodeError(pv({ foo: 1, hostPath: { path: 5 } }, { labels: { a: 5 }, annotations: { b: 6 } })),
    'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string');
});

test('quantities accept numbers and strings and come back canonical; anything else is the quantity error', () => {
  const spec = (capacity: unknown) => decodeTyped(pv({ capacity: { storage: capacity } }), PV).value.spec as { capacity: unknown };
  assert.deepEqual(spec(5).capacity, { storage: '5' });
  assert.deepEqual(spec(1.5).capacity, { storage: '1500m' });
  assert.deepEqual(spec('1.5Gi').capacity, { storage: '1536Mi' });
  assert.deepEqual(spec('9999999999999999999999Ei').capacity, { storage: '9223372036854775807' });
  const message = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  assert.equal(decodeError(pv({ capacity: { storage: true } })), message);
  assert.equal(decodeError(pv({ capacity: { storage: 'lots' } })), message);
});

test('Time and MicroTime are parsed as Go parses RFC 3339 and written back in UTC', () => {
  const meta = (ts: unknown) => decodeTyped(pv({}, { creationTimestamp: ts }), PV).value.metadata as { creationTimestamp: unknown };
  assert.equal(meta('2024-05-01T12:00:00.5+02:00').creationTimestamp, '2024-05-01T10:00:00Z');
  assert.equal(decodeError(pv({}, { creationTimestamp: 'yesterday' })),
    'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"');
  assert.equal(decodeError(pv({}, { creationTimestamp: 5 })),
    'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string');
  const lease = schemaForKind('coordination.k8s.io', 'v1', 'Lease');
  const spec = decodeTyped({ metadata: { name: 'l' }, spec: { renewTime: '2024-05-01T10:00:00.123456+01:00' } }, lease).value.spec;
  assert.deepEqual(spec, { renewTime: '2024-05-01T09:00:00.123456Z' });
  assert.equal(decodeError({ metadata: { name: 'l' }, spec: { renewTime: '2020-01-01T00:00:00Z' } }, lease),
    'parsing time "2020-01-01T00:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"');
});

test('null leaves a field unset and is the element\'s zero value inside maps and lists', () => {
  const { value } = decodeTyped(pv({ claimRef: null, mountOptions: [null] }, { labels: { a: null } }), PV);
  const spec = value.spec as Record<string, unknown>;
  assert.equal('claimRef' in spec, false);
  assert.deepEqual(spec.mountOptions, ['']);
  assert.deepEqual((value.metadata as Record<string, unknown>).labels, { a: '' });
});

test('"__proto__" stays an ordinary key in maps and never becomes a prototype', () => {
  const body = JSON.parse('{"metadata":{"name":"x","labels":{"__proto__":"v"}},"__proto__":{"polluted":true}}') as Record<string, unknown>;
  const { value, unknownFields } = decodeTyped(body, PV);
  assert.deepEqual(unknownFields, ['__proto__']);
  const labels = (value.metadata as Record<string, unknown>).labels as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(labels), Object.prototype);
  assert.deepEqual(Object.entries(labels), [['__proto__', 'v']]);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('free-form fields are kept as they are within the depth limit and refused past it', () => {
  const entry = (fieldsV1: unknown) => pv({}, { managedFields: [{ manager: 'm', fieldsType: 'FieldsV1', fieldsV1 }] });
  // metadata(2) > managedFields(3) > entry(4) > fieldsV1(5): the free-form value starts at depth 5.
  const ok = nested(MAX_NESTING_DEPTH - 4, 'leaf');
  const decoded = decodeTyped(entry(ok), PV).value.metadata as { managedFields: Array<{ fieldsV1: unknown }> };
  assert.deepEqual(decoded.managedFields[0].fieldsV1, ok);
  assert.equal(decodeError(entry(nested(MAX_NESTING_DEPTH - 3, 'leaf'))), "invalid character '{' exceeded max depth");
});

test('repair mode drops what cannot be decoded instead of refusing it, and names each dropped path', () => {
  const body = pv({ capacity: { storage: 'lots' }, foo: 1 }, { labels: { a: 5, b: 'ok' },
    managedFields: [{ manager: 'm', fieldsV1: nested(MAX_NESTING_DEPTH) }] });
  const { value, unknownFields, dropped } = decodeTyped(body, PV, true);
  assert.deepEqual(unknownFields, ['spec.foo']);
  assert.deepEqual(dropped.map((p) => p.split('.').slice(0, 3).join('.')).sort(),
    ['metadata.labels.a', 'metadata.managedFields[0].fieldsV1', 'spec.capacity.storage']);
  assert.deepEqual((value.metadata as Record<string, unknown>).labels, { b: 'ok' });
  assert.doesNotThrow(() => JSON.stringify(value));
});
