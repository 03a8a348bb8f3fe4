import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memoizedJson } from '@pv-controller/apiserver/endpoints/json-memo.js';

test('memoizedJson returns the JSON text of an object, reusing it while the object is among the recent ones', () => {
  const obj: { metadata: { name: string } } = { metadata: { name: 'a' } };
  assert.equal(memoizedJson(obj), JSON.stringify(obj));
  obj.metadata.name = 'changed'; // never done to stored objects; shows the text is reused
  assert.equal(memoizedJson(obj), '{"metadata":{"name":"a"}}');
});

test('memoizedJson keeps only a bounded number of recent objects, so old ones are serialised afresh', () => {
  const obj: { metadata: { name: string } } = { metadata: { name: 'old' } };
  memoizedJson(obj);
  for (let i = 0; i < 1000; i++) memoizedJson({ i });
  obj.metadata.name = 'new';
  assert.equal(memoizedJson(obj), '{"metadata":{"name":"new"}}');
});
