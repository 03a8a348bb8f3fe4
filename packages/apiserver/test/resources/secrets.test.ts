import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApiError } from '@pv-controller/kube/errors.js';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { secretStrategy as secrets, MAX_SECRET_SIZE } from '@pv-controller/apiserver/resources/core/secrets.js';
import { selectionFor } from '@pv-controller/apiserver/registry/selection.js';
import { assertCause, create, decoded, update, withChanges } from './helpers.js';

const b64 = (text: string): string => Buffer.from(text).toString('base64');

const valid: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds', namespace: 'ns' }, data: { user: b64('admin') } };

test('a Secret without a type is Opaque', () => {
  const { obj, causes } = create(secrets, valid);
  assert.deepEqual(causes, []);
  assert.equal(obj.type, 'Opaque');
});

test('stringData is merged into data as base64, overwriting the same key, and is not kept', () => {
  const { obj, causes } = create(secrets, { ...valid, data: { user: b64('old'), keep: b64('k') }, stringData: { user: 'new', pass: 's3cret' } });
  assert.deepEqual(causes, []);
  assert.deepEqual(obj.data, { user: b64('new'), keep: b64('k'), pass: b64('s3cret') });
  assert.equal(obj.stringData, undefined);
});

test('a data value that is not base64 is refused with Go decoder words and offset', () => {
  const err = (() => {
    try {
      decoded(secrets, { ...valid, data: { user: 'YWJj*' } });
    } catch (e) {
      return e as ApiError;
    }
    return undefined;
  })();
  assert.ok(err);
  assert.equal(err.code, 400);
  assert.equal(err.message, 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 4');
});

test('base64 with line breaks is accepted and stored canonically, as Go re-encodes the bytes', () => {
  const { obj } = create(secrets, { ...valid, data: { user: 'YWRt\naW4=' } });
  assert.deepEqual(obj.data, { user: b64('admin') });
});

test('a data value that is not a string is refused as Go names a []byte', () => {
  assert.throws(() => decoded(secrets, { ...valid, data: { user: 7 } }), /json: cannot unmarshal number into Go struct field Secret\.data of type \[\]uint8/);
});

test('data keys must be config keys, with upstream messages', () => {
  const { causes } = create(secrets, { ...valid, data: { 'a b': b64('x'), '..x': b64('y') } });
  assertCause(causes, 'data[a b]', 'FieldValueInvalid', 'Invalid value: "a b": a valid config key must consist of alphanumeric characters, ' +
    "'-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')");
  assertCause(causes, 'data[..x]', 'FieldValueInvalid', `Invalid value: "..x": must not start with '..'`);
});

test('data over MaxSecretSize bytes in all is too long, and exactly MaxSecretSize is not', () => {
  const half = Buffer.alloc(MAX_SECRET_SIZE / 2, 1).toString('base64');
  assert.deepEqual(create(secrets, { ...valid, data: { a: half, b: half } }).causes, []);
  const { causes } = create(secrets, { ...valid, data: { a: half, b: half }, stringData: { c: 'x' } });
  assertCause(causes, 'data', 'FieldValueTooLong', 'Too long: may not be more than 1048576 bytes');
});

test('each common Secret type requires its keys, as ValidateSecret does', () => {
  const cases: Array<[string, Record<string, string>, string[]]> = [
    ['kubernetes.io/tls', {}, ['data[tls.crt]', 'data[tls.key]']],
    ['kubernetes.io/basic-auth', {}, ['data[username]', 'data[password]']],
    ['kubernetes.io/ssh-auth', { 'ssh-privatekey': '' }, ['data[ssh-privatekey]']],
    ['kubernetes.io/dockercfg', {}, ['data[.dockercfg]']],
    ['kubernetes.io/dockerconfigjson', {}, ['data[.dockerconfigjson]']],
    ['kubernetes.io/service-account-token', {}, ['metadata.annotations[kubernetes.io/service-account.name]']],
  ];
  for (const [type, data, fields] of cases) {
    const { causes } = create(secrets, { ...valid, type, data });
    assert.deepEqual(causes.map((c) => c.field), fields, type);
    for (const c of causes) assert.equal(c.message, 'Required value', type);
  }
  assert.deepEqual(create(secrets, { ...valid, type: 'kubernetes.io/basic-auth', data: { password: '' } }).causes, []);
  assert.deepEqual(create(secrets, { ...valid, type: 'example.com/custom', data: {} }).causes, []);
});

test('a docker config that is not a JSON object is invalid, its contents redacted from the message', () => {
  const { causes } = create(secrets, { ...valid, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{"auths": ') } });
  assertCause(causes, 'data[.dockerconfigjson]', 'FieldValueInvalid', 'Invalid value: "<secret contents redacted>": unexpected end of JSON input');
  const list = create(secrets, { ...valid, type: 'kubernetes.io/dockercfg', data: { '.dockercfg': b64('[1]') } }).causes;
  assertCause(list, 'data[.dockercfg]', 'FieldValueInvalid', 'Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}');
  assert.deepEqual(create(secrets, { ...valid, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{"auths":{}}') } }).causes, []);
});

test('the type of a Secret cannot change', () => {
  const stored = create(secrets, valid).obj;
  const { causes } = update(secrets, withChanges(stored, { type: 'example.com/other' }), stored);
  assertCause(causes, 'type', 'FieldValueInvalid', 'Invalid value: "example.com/other": field is immutable');
});

test('an immutable Secret keeps its data and stays immutable; labels may still change', () => {
  const stored = create(secrets, { ...valid, immutable: true }).obj;
  const { causes } = update(secrets, withChanges(stored, { immutable: false, data: { user: b64('other') } }), stored);
  assertCause(causes, 'immutable', 'FieldValueForbidden', 'Forbidden: field is immutable when `immutable` is set');
  assertCause(causes, 'data', 'FieldValueForbidden', 'Forbidden: field is immutable when `immutable` is set');
  const viaStringData = update(secrets, withChanges(stored, { stringData: { user: 'other' } }), stored).causes;
  assertCause(viaStringData, 'data', 'FieldValueForbidden');
  assert.deepEqual(update(secrets, withChanges(stored, { 'metadata.labels': { a: 'b' } }), stored).causes, []);
});

test('Secrets select on type, metadata.name and metadata.namespace only', () => {
  const obj = create(secrets, { ...valid, type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } }).obj;
  assert.deepEqual(secrets.fields(obj), { type: 'kubernetes.io/tls' });
  assert.throws(() => selectionFor([], [{ field: 'data', operator: 'Equals', value: 'x' }], secrets, 'ns'), /field label not supported: data/);
});

test('kubectl get secrets prints NAME, TYPE, DATA (the number of keys) and AGE', () => {
  const obj = create(secrets, { ...valid, stringData: { pass: 'p' } }).obj;
  assert.deepEqual(secrets.tableColumns.map((c) => c.name), ['Name', 'Type', 'Data', 'Age']);
  assert.deepEqual(secrets.tableRow(obj, new Date('2024-05-01T10:00:30Z')), ['creds', 'Opaque', 2, '30s']);
});
