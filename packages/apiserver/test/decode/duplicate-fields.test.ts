import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { countKeySeparators, parseWithDuplicates } from '@pv-controller/apiserver/decode/duplicate-fields.js';

function keyCount(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + keyCount(v), 0);
  if (typeof value !== 'object' || value === null) return 0;
  return Object.entries(value).reduce((n, [, v]) => n + 1 + keyCount(v), 0);
}

test('a JSON text without repeated keys has one key separator per key, and parses as JSON.parse parses it', () => {
  fc.assert(fc.property(fc.jsonValue(), (value) => {
    const text = JSON.stringify(value, null, 1);
    assert.equal(countKeySeparators(Buffer.from(text)), keyCount(JSON.parse(text)));
    const parsed = parseWithDuplicates(text);
    assert.deepEqual(parsed.value, JSON.parse(text));
    assert.deepEqual(parsed.duplicates, []);
  }), { numRuns: 300 });
});

test('repeated keys are reported by path in document order; objects merge, anything else is replaced', () => {
  const text = '{"metadata":{"labels":{"a":"1","a":"2"}},"spec":{"list":[{"n":"x","n":"y"}],"s":"a:\\"b","s":"c","m":{"p":1},"m":{"q":2},"l":[1],"l":[2]}}';
  const parsed = parseWithDuplicates(text);
  assert.deepEqual(parsed.value, { metadata: { labels: { a: '2' } }, spec: { list: [{ n: 'y' }], s: 'c', m: { p: 1, q: 2 }, l: [2] } });
  assert.deepEqual(parsed.duplicates.map((d) => d.path), ['metadata.labels.a', 'spec.list[0].n', 'spec.s', 'spec.m', 'spec.l']);
  assert.ok(countKeySeparators(Buffer.from(text)) > keyCount(JSON.parse(text)));
});
