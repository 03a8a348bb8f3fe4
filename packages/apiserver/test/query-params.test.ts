/**
 * One parser per query parameter, each bad value answered in kube-apiserver v1.37's words (every
 * expected message below was read off the real server).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDeleteOptions } from '@pv-controller/apiserver/endpoints/delete-options.js';
import {
  parseListQuery,
  parseWriteQuery,
  queryBool,
  queryInt64,
  queryOptionalBool,
  requireStorageResourceVersion,
} from '@pv-controller/apiserver/api/query-params.js';
import { ApiError } from '@pv-controller/kube/errors.js';
import type { Status } from '@pv-controller/kube/types.js';

const q = (s: string): URLSearchParams => new URLSearchParams(s);

/** The Status a call throws (it must throw an ApiError). */
function statusOf(fn: () => unknown): Status {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    return err.toStatus();
  }
  assert.fail('expected an ApiError');
}

/** The one-line answer: code, reason and message. */
function answer(fn: () => unknown): [number, string | undefined, string | undefined] {
  const s = statusOf(fn);
  return [s.code, s.reason, s.message];
}

function invalidOptions(kind: string, causes: Array<{ reason: string; message: string; field: string }>): Status {
  const list = causes.map((c) => `${c.field}: ${c.message}`);
  const summary = list.length === 1 ? list[0] : `[${list.join(', ')}]`;
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `${kind}.meta.k8s.io "" is invalid: ${summary}`,
    reason: 'Invalid',
    details: { group: 'meta.k8s.io', kind, causes },
    code: 422,
  };
}

test('a bool parameter is false only when absent, "0" or "false" in any case; anything else, "" too, is true', () => {
  assert.equal(queryBool(q(''), 'watch'), false);
  for (const v of ['0', 'false', 'False', 'FALSE']) assert.equal(queryBool(q(`watch=${v}`), 'watch'), false, v);
  for (const v of ['1', 'true', 'abc', 'no', '']) assert.equal(queryBool(q(`watch=${v}`), 'watch'), true, v);
  assert.equal(queryOptionalBool(q(''), 'sendInitialEvents'), undefined);
  assert.equal(queryOptionalBool(q('sendInitialEvents=abc'), 'sendInitialEvents'), true);
  assert.equal(queryBool(q('watch=0&watch=1'), 'watch'), false, 'the first value counts');
});

test('an integer parameter goes through strconv.ParseInt, first value only, with its error text', () => {
  assert.equal(queryInt64(q('limit=-1'), 'limit'), -1n);
  assert.equal(queryInt64(q('limit=%2B7'), 'limit'), 7n);
  assert.equal(queryInt64(q('limit=1&limit=abc'), 'limit'), 1n);
  assert.equal(queryInt64(q('limit=9223372036854775807'), 'limit'), 9223372036854775807n);
  assert.equal(queryInt64(q(''), 'limit'), undefined);
  const cases: Array<[string, string]> = [
    ['abc', 'strconv.ParseInt: parsing "abc": invalid syntax'],
    ['', 'strconv.ParseInt: parsing "": invalid syntax'],
    ['1.5', 'strconv.ParseInt: parsing "1.5": invalid syntax'],
    [' 1', 'strconv.ParseInt: parsing " 1": invalid syntax'],
    ['99999999999999999999', 'strconv.ParseInt: parsing "99999999999999999999": value out of range'],
    ['9223372036854775808', 'strconv.ParseInt: parsing "9223372036854775808": value out of range'],
  ];
  for (const [value, message] of cases) {
    const params = new URLSearchParams();
    params.set('timeoutSeconds', value);
    assert.deepEqual(answer(() => queryInt64(params, 'timeoutSeconds')), [400, 'BadRequest', message], value);
  }
});

test('timeoutSeconds and limit that do not parse are 400 for a watch and a list alike; a negative limit is no limit', () => {
  assert.deepEqual(answer(() => parseListQuery(q('watch=1&timeoutSeconds=abc'))), [400, 'BadRequest', 'strconv.ParseInt: parsing "abc": invalid syntax']);
  assert.deepEqual(answer(() => parseListQuery(q('limit=abc&timeoutSeconds=x'))), [400, 'BadRequest', 'strconv.ParseInt: parsing "x": invalid syntax']);
  assert.equal(parseListQuery(q('limit=-1')).limit, -1n);
  assert.equal(parseListQuery(q('watch=1&timeoutSeconds=-1')).timeoutSeconds, -1n);
});

test('selector syntax errors are 400 after the integer conversions and before option validation', () => {
  assert.deepEqual(answer(() => parseListQuery(q('labelSelector=!!'))), [400, 'BadRequest', "unable to parse requirement: found '!', expected: identifier"]);
  assert.deepEqual(answer(() => parseListQuery(q('labelSelector=a=b=c'))), [400, 'BadRequest', "found '=', expected: ',' or 'end of string'"]);
  assert.deepEqual(answer(() => parseListQuery(q('fieldSelector=foo'))), [400, 'BadRequest', "invalid selector: 'foo'; can't understand 'foo'"]);
  assert.deepEqual(answer(() => parseListQuery(q('fieldSelector=metadata.name%3D%3Dx%3D%3D'))), [400, 'BadRequest', 'invalid field selector: unescaped character in value: 61']);
  assert.equal(answer(() => parseListQuery(q('timeoutSeconds=abc&labelSelector=!!')))[2], 'strconv.ParseInt: parsing "abc": invalid syntax');
  assert.equal(answer(() => parseListQuery(q('labelSelector=!!&resourceVersionMatch=foo')))[0], 400);
});

test('ListOptions for a list: resourceVersionMatch and sendInitialEvents rules, all causes in one 422', () => {
  assert.deepEqual(statusOf(() => parseListQuery(q('resourceVersionMatch=foo'))), invalidOptions('ListOptions', [
    { reason: 'FieldValueForbidden', message: 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided', field: 'resourceVersionMatch' },
    { reason: 'FieldValueNotSupported', message: 'Unsupported value: "foo": supported values: "Exact", "NotOlderThan", ""', field: 'resourceVersionMatch' },
  ]));
  assert.deepEqual(statusOf(() => parseListQuery(q('resourceVersionMatch=Exact&resourceVersion=0'))), invalidOptions('ListOptions', [
    { reason: 'FieldValueForbidden', message: 'Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"', field: 'resourceVersionMatch' },
  ]));
  assert.deepEqual(statusOf(() => parseListQuery(q('sendInitialEvents=false'))), invalidOptions('ListOptions', [
    { reason: 'FieldValueForbidden', message: 'Forbidden: sendInitialEvents is forbidden for list', field: 'sendInitialEvents' },
  ]));
  const ok = parseListQuery(q('resourceVersionMatch=NotOlderThan&resourceVersion=0&limit=5&continue=&allowWatchBookmarks=abc'));
  assert.equal(ok.limit, 5n);
  assert.equal(ok.allowWatchBookmarks, true);
});

test('ListOptions for a watch: a watch from now defaults to sending its initial events, and the watch rules apply', () => {
  const plain = parseListQuery(q('watch=1'));
  assert.equal(plain.sendInitialEvents, true);
  assert.equal(plain.resourceVersionMatch, 'NotOlderThan');
  assert.equal(parseListQuery(q('watch=1&resourceVersion=5')).sendInitialEvents, undefined);
  assert.deepEqual(statusOf(() => parseListQuery(q('watch=1&continue=x'))), invalidOptions('ListOptions', [
    { reason: 'FieldValueForbidden', message: 'Forbidden: resourceVersionMatch is forbidden when continue is provided', field: 'resourceVersionMatch' },
  ]));
  assert.deepEqual(statusOf(() => parseListQuery(q('watch=1&sendInitialEvents=true'))), invalidOptions('ListOptions', [
    { reason: 'FieldValueForbidden', message: 'Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan', field: 'resourceVersionMatch' },
  ]));
  assert.deepEqual(statusOf(() => parseListQuery(q('watch=1&resourceVersionMatch=Exact&resourceVersion=5'))), invalidOptions('ListOptions', [
    { reason: 'FieldValueForbidden', message: 'Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided', field: 'resourceVersionMatch' },
    { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Exact": supported values: "NotOlderThan"', field: 'resourceVersionMatch' },
  ]));
  assert.equal(parseListQuery(q('watch=yes&sendInitialEvents=abc&resourceVersionMatch=NotOlderThan')).sendInitialEvents, true);
});

test('a resourceVersion that is no uint64 is a 500 without a reason on get and watch, as storage answers', () => {
  for (const [rv, problem] of [['abc', 'invalid syntax'], ['-1', 'invalid syntax'], ['18446744073709551616', 'value out of range']]) {
    assert.deepEqual(statusOf(() => requireStorageResourceVersion(rv)), {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: `resourceVersion: Invalid value: "${rv}": strconv.ParseUint: parsing "${rv}": ${problem}`,
      code: 500,
    });
  }
  requireStorageResourceVersion('');
  requireStorageResourceVersion('18446744073709551615');
});

test('dryRun: every value must be exactly All, for create, update, patch and delete', () => {
  const cause = (values: string) => ({ reason: 'FieldValueNotSupported', message: `Unsupported value: ${values}: supported values: "All"`, field: 'dryRun' });
  for (const kind of ['CreateOptions', 'UpdateOptions', 'PatchOptions'] as const) {
    assert.deepEqual(statusOf(() => parseWriteQuery(q('dryRun=all'), kind)), invalidOptions(kind, [cause('["all"]')]));
  }
  assert.deepEqual(statusOf(() => parseWriteQuery(q('dryRun=All&dryRun=foo'), 'CreateOptions')), invalidOptions('CreateOptions', [cause('["All","foo"]')]));
  assert.deepEqual(statusOf(() => parseDeleteOptions(undefined, q('dryRun='))), invalidOptions('DeleteOptions', [cause('[""]')]));
  assert.deepEqual(statusOf(() => parseDeleteOptions({ dryRun: ['all'] }, q(''))), invalidOptions('DeleteOptions', [cause('["all"]')]));
  assert.equal(parseWriteQuery(q('dryRun=All&dryRun=All'), 'UpdateOptions').dryRun, true);
  assert.equal(parseWriteQuery(q(''), 'UpdateOptions').dryRun, false);
  assert.equal(parseDeleteOptions(undefined, q('dryRun=All')).dryRun, true);
});

test('a DELETE body replaces the query entirely: its options are read from one or the other, never both', () => {
  assert.equal(parseDeleteOptions({ dryRun: ['All'] }, q('dryRun=all')).dryRun, true);
  assert.equal(parseDeleteOptions(null, q('dryRun=all')).dryRun, false, 'a null body is empty options');
  assert.equal(parseDeleteOptions({}, q('dryRun=All')).dryRun, false);
});

test('fieldManager, fieldValidation and force are validated like upstream, causes in its order', () => {
  assert.deepEqual(statusOf(() => parseWriteQuery(q('fieldValidation=foo&fieldManager=%01'), 'PatchOptions')), invalidOptions('PatchOptions', [
    { reason: 'FieldValueInvalid', message: 'Invalid value: "\\x01": invalid character U+0001 (at position 0)', field: 'fieldManager' },
    { reason: 'FieldValueNotSupported', message: 'Unsupported value: "foo": supported values: "", "Ignore", "Strict", "Warn"', field: 'fieldValidation' },
  ]));
  assert.deepEqual(statusOf(() => parseWriteQuery(q(`fieldManager=${'a'.repeat(129)}`), 'CreateOptions')), invalidOptions('CreateOptions', [
    { reason: 'FieldValueTooLong', message: 'Too long: may not be more than 128 bytes', field: 'fieldManager' },
  ]));
  assert.equal(statusOf(() => parseWriteQuery(q('fieldManager=%E2%82%AC%7f'), 'CreateOptions')).details?.causes?.[0].message,
    'Invalid value: "€\\x7f": invalid character U+007F (at position 3)', 'positions count bytes');
  assert.deepEqual(statusOf(() => parseWriteQuery(q('force=false'), 'PatchOptions')), invalidOptions('PatchOptions', [
    { reason: 'FieldValueForbidden', message: 'Forbidden: may not be specified for non-apply patch', field: 'force' },
  ]));
  assert.equal(parseWriteQuery(q('force=true'), 'CreateOptions').dryRun, false, 'force is no create option');
  assert.equal(parseWriteQuery(q('fieldValidation='), 'CreateOptions').fieldValidation, 'Warn');
  assert.equal(parseWriteQuery(q('fieldValidation=Strict'), 'CreateOptions').fieldValidation, 'Strict');
  assert.equal(statusOf(() => parseWriteQuery(q('fieldValidation=strict'), 'UpdateOptions')).code, 422);
});

test('propagationPolicy, orphanDependents and gracePeriodSeconds: conversion 400s, then validation 422s', () => {
  assert.deepEqual(answer(() => parseDeleteOptions(undefined, q('gracePeriodSeconds=1.5'))), [400, 'BadRequest', 'strconv.ParseInt: parsing "1.5": invalid syntax']);
  assert.deepEqual(statusOf(() => parseDeleteOptions(undefined, q('propagationPolicy='))), invalidOptions('DeleteOptions', [
    { reason: 'FieldValueNotSupported', message: 'Unsupported value: "": supported values: "Foreground", "Background", "Orphan", "nil"', field: 'propagationPolicy' },
  ]));
  assert.deepEqual(statusOf(() => parseDeleteOptions({ orphanDependents: true, propagationPolicy: 'Orphan' }, q(''))), invalidOptions('DeleteOptions', [
    { reason: 'FieldValueInvalid', message: 'Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set', field: 'propagationPolicy' },
  ]));
  assert.equal(parseDeleteOptions(undefined, q('propagationPolicy=Orphan&gracePeriodSeconds=-1&pretty=x')).propagationPolicy, 'Orphan');
  assert.equal(parseDeleteOptions(undefined, q('orphanDependents=abc')).dryRun, false);
});

test('a DeleteOptions body of the wrong types is a 400 in encoding/json words', () => {
  const cases: Array<[unknown, string]> = [
    [{ dryRun: 'All' }, 'json: cannot unmarshal string into Go struct field DeleteOptions.dryRun of type []string'],
    [{ propagationPolicy: 5 }, 'json: cannot unmarshal number into Go struct field DeleteOptions.propagationPolicy of type v1.DeletionPropagation'],
    [{ gracePeriodSeconds: 'x' }, 'json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64'],
    [{ gracePeriodSeconds: 1.5 }, 'json: cannot unmarshal number 1.5 into Go struct field DeleteOptions.gracePeriodSeconds of type int64'],
    [{ preconditions: { uid: 5 } }, 'json: cannot unmarshal number into Go struct field Preconditions.preconditions.uid of type types.UID'],
    [{ preconditions: 'x' }, 'json: cannot unmarshal string into Go struct field DeleteOptions.preconditions of type v1.Preconditions'],
    [[], 'couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'],
  ];
  for (const [body, message] of cases) assert.deepEqual(answer(() => parseDeleteOptions(body, q(''))), [400, 'BadRequest', message], JSON.stringify(body));
  assert.deepEqual(parseDeleteOptions({ dryRun: ['All'], preconditions: { uid: 'u1' }, foo: 1 }, q('')), { dryRun: true, preconditions: { uid: 'u1', resourceVersion: undefined } });
});
