import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bearerToken } from '@pv-controller/apiserver/http/auth.js';

test('a bearer token is read as kube-apiserver reads it: trimmed, any-case scheme, and a doubled space names no token', () => {
  assert.equal(bearerToken('Bearer abc'), 'abc');
  assert.equal(bearerToken('bearer abc'), 'abc', 'the scheme is case-insensitive');
  assert.equal(bearerToken('  Bearer abc \t'), 'abc', 'the header is trimmed');
  assert.equal(bearerToken('Bearer abc extra'), 'abc', 'only the second part is the token');
  for (const header of ['Bearer  abc', 'Bearer ', 'Bearer', 'Basic YWRtaW46YWRtaW4=', '', undefined]) {
    assert.equal(bearerToken(header), undefined, JSON.stringify(header));
  }
});
