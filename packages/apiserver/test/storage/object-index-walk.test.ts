import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { ObjectIndex } from '@pv-controller/apiserver/storage/object-index.js';

const namespaces = fc.constantFrom('', 'a', 'b', 'kube-system', 'z');
const names = fc.constantFrom('pv-1', 'pv-10', 'pv-2', 'x', 'y', 'zz');
const keyArb = fc.tuple(namespaces, names);

function objectAt(namespace: string, name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Thing', metadata: namespace === '' ? { name } : { namespace, name } } as KubeObject;
}

function keyOf(o: KubeObject): [string, string] {
  return [o.metadata.namespace ?? '', o.metadata.name ?? ''];
}

function isAfter(o: KubeObject, after: readonly [string, string]): boolean {
  const [ns, name] = keyOf(o);
  return ns !== after[0] ? ns > after[0] : name > after[1];
}

test('walkAfter hands out exactly what list gives after the key, in order, stops when asked, and counts all that lie after it', () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.boolean(), keyArb), { maxLength: 40 }),
      fc.option(keyArb, { nil: undefined }),
      fc.option(namespaces, { nil: undefined }),
      fc.nat({ max: 12 }),
      (writes, after, namespace, limit) => {
        const index = new ObjectIndex();
        for (const [put, [ns, name]] of writes) {
          const key = { resource: 'things', namespace: ns, name };
          if (put) index.put(key, objectAt(ns, name));
          else index.remove(key);
        }
        const expected = index.list('things', namespace).filter((o) => after === undefined || isAfter(o, after));
        const taken: KubeObject[] = [];
        const count = index.walkAfter('things', namespace, after, (o) => {
          taken.push(o);
          return taken.length < limit;
        });
        assert.equal(count, expected.length);
        // `take` is asked once more after it answers true, so at least one object is taken when any is there.
        assert.deepEqual(taken.map(keyOf), expected.slice(0, Math.max(1, limit)).map(keyOf));
      },
    ),
    { numRuns: 500 },
  );
});
