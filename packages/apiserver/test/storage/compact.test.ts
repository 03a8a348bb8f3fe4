/**
 * What storage keeps of a written object: the same values, in shapes objects written alike
 * share (hidden classes, field-set trees), frozen when asked, with an own `__proto__` key kept as
 * a key.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { pino } from 'pino';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { MemoryStorage } from '@pv-controller/apiserver/storage/index.js';
import { compactStored } from '@pv-controller/apiserver/storage/compact.js';
import { managedFieldsAfterWrite } from '@pv-controller/apiserver/registry/apply/ownership.js';
import { persistentVolumeStrategy } from '@pv-controller/apiserver/resources/core/persistentvolumes.js';
import { pvKey } from './conformance.js';

const silent = pino({ level: 'silent' });

setFlagsFromString('--allow-natives-syntax');
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

function volume(name: string): KubeObject {
  return JSON.parse(JSON.stringify({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, uid: `uid-${name}`, labels: { app: 'x' }, finalizers: ['kubernetes.io/pv-protection'] },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/data/${name}` } },
    status: { phase: 'Pending' },
  })) as KubeObject;
}

for (const freezeObjects of [true, false]) {
  test(`objects stored alike share one hidden class for the object and its metadata (freezeObjects ${freezeObjects})`, async () => {
    const storage = new MemoryStorage({ logger: silent, freezeObjects });
    // Enough writes for V8's property-copy fast path to be taken, which is where shapes diverge.
    for (let i = 0; i < 200; i++) await storage.write({ type: 'create', key: pvKey(`p${i}`), object: volume(`p${i}`) }).durable;
    const a = storage.get(pvKey('p150'))!;
    const b = storage.get(pvKey('p151'))!;
    assert.ok(haveSameMap(a, b), 'top level');
    assert.ok(haveSameMap(a.metadata, b.metadata), 'metadata');
    await storage.close();
  });
}

test('storage keeps the values it was given: arrays equal, frozen when asked', () => {
  const object = volume('p');
  const stored = compactStored(structuredClone(object), true);
  assert.deepEqual(stored, object);
  assert.ok(Object.isFrozen(stored.spec) && Object.isFrozen((stored.spec as { accessModes: string[] }).accessModes));
  assert.equal(Object.isFrozen(compactStored(structuredClone(object), false).spec), false);
});

test('an own __proto__ key is kept as a key, and the prototype stays Object.prototype', () => {
  const object = JSON.parse('{"metadata":{"name":"p"},"spec":{"__proto__":{"polluted":["yes"]}}}') as KubeObject;
  const stored = compactStored(object, true);
  const spec = stored.spec as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(spec), Object.prototype);
  assert.ok(Object.hasOwn(spec, '__proto__'));
  assert.deepEqual(Object.getOwnPropertyDescriptor(spec, '__proto__')?.value, { polluted: ['yes'] });
});

test('objects written alike by the same manager share one frozen fieldsV1 tree', () => {
  const req = { manager: 'kubectl', now: '2026-01-01T00:00:00Z' };
  const [a, b] = ['a', 'b'].map((name) => managedFieldsAfterWrite(persistentVolumeStrategy.info, undefined, volume(name), undefined, req)!);
  assert.notEqual(a, b);
  assert.equal(a[0].fieldsV1, b[0].fieldsV1);
  assert.ok(Object.isFrozen(a[0].fieldsV1));
});
