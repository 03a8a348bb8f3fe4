import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GO_JSON_MAX_DEPTH, inspectValue, objectBodyFormat, parseRequestBody, type BodyRole } from '@pv-controller/apiserver/decode/request-body.js';
import { MAX_NESTING_DEPTH } from '@pv-controller/apiserver/decode/typed-decoder.js';
import { warningHeaders } from '@pv-controller/apiserver/decode/field-validation.js';
import { ApiError } from '@pv-controller/kube/errors.js';

const PV_ROLE: BodyRole = { role: 'object', kind: 'PersistentVolume' };

function failure(fn: () => unknown): { code: number; message: string } {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    return { code: err.code, message: err.message };
  }
  assert.fail('expected an ApiError');
}

const deepJson = (levels: number, open = '{"a":', close = '}'): string => open.repeat(levels) + '1' + close.repeat(levels);

test('the nesting limit counts the top-level value as depth 1 and is found without recursion at any depth', () => {
  let v: unknown = 1;
  for (let i = 0; i < MAX_NESTING_DEPTH; i++) v = [v];
  assert.equal(inspectValue(v, MAX_NESTING_DEPTH), undefined);
  assert.equal(inspectValue([v], MAX_NESTING_DEPTH)?.kind, 'depth');
  const veryDeep = JSON.parse('['.repeat(200_000) + ']'.repeat(200_000)) as unknown;
  assert.equal(inspectValue(veryDeep, MAX_NESTING_DEPTH)?.kind, 'depth');
});

test('JSON object bodies may nest to Go\'s 10,000 levels, patch bodies to MAX_NESTING_DEPTH; past that kube-apiserver\'s errors', () => {
  const body = (levels: number) => Buffer.from(`{"apiVersion":"v1","kind":"PersistentVolume","spec":${deepJson(levels)}}`);
  assert.equal(typeof parseRequestBody(body(GO_JSON_MAX_DEPTH - 1), PV_ROLE), 'object');
  assert.deepEqual(failure(() => parseRequestBody(body(GO_JSON_MAX_DEPTH), PV_ROLE)), {
    code: 400,
    message: 'the object provided is unrecognized (must be of type PersistentVolume): couldn\'t get version/kind; ' +
      'json parse error: invalid character \'{\' exceeded max depth ({"apiVersion":"v1","kind":"Per ...)',
  });
  assert.deepEqual(failure(() => parseRequestBody(Buffer.from(deepJson(GO_JSON_MAX_DEPTH + 1, '[', ']')), { role: 'options' })), {
    code: 400, message: 'couldn\'t get version/kind; json parse error: invalid character \'[\' exceeded max depth',
  });
  assert.equal(typeof parseRequestBody(Buffer.from(deepJson(MAX_NESTING_DEPTH)), { role: 'patch' }), 'object');
  assert.deepEqual(failure(() => parseRequestBody(Buffer.from(deepJson(MAX_NESTING_DEPTH + 1)), { role: 'patch' })),
    { code: 400, message: 'invalid JSON patch' });
});

test('malformed and non-object bodies get kube-apiserver\'s decode errors for their role', () => {
  assert.equal(failure(() => parseRequestBody(Buffer.alloc(0), PV_ROLE)).message,
    'the object provided is unrecognized (must be of type PersistentVolume): couldn\'t get version/kind; json parse error: unexpected end of JSON input (<empty>)');
  assert.equal(failure(() => parseRequestBody(Buffer.from('[1]'), PV_ROLE)).message,
    'the object provided is unrecognized (must be of type PersistentVolume): couldn\'t get version/kind; json parse error: json: cannot unmarshal ' +
    'array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" } (5b315d)');
  assert.equal(failure(() => parseRequestBody(Buffer.from('{"apiVersion":5}'), PV_ROLE)).message,
    'the object provided is unrecognized (must be of type PersistentVolume): couldn\'t get version/kind; json parse error: json: cannot unmarshal ' +
    'number into Go struct field .apiVersion of type string ({"apiVersion":5})');
  assert.equal(failure(() => parseRequestBody(Buffer.from('{"kind":'), { role: 'patch' })).message, 'invalid JSON patch');
  assert.deepEqual(parseRequestBody(Buffer.from('null'), PV_ROLE), {});
  assert.equal(parseRequestBody(Buffer.alloc(0), { role: 'options' }), undefined);
});

test('create/update bodies are JSON, YAML or protobuf by Content-Type; anything else is 415', () => {
  assert.equal(objectBodyFormat(undefined), 'json');
  assert.equal(objectBodyFormat('application/json; charset=utf-8'), 'json');
  assert.equal(objectBodyFormat('application/yaml'), 'yaml');
  assert.equal(objectBodyFormat('application/vnd.kubernetes.protobuf'), 'protobuf');
  for (const type of ['text/plain', 'application/x-yaml', 'application/vnd.kubernetes.protobuf-x']) {
    assert.deepEqual(failure(() => objectBodyFormat(type)), {
      code: 415,
      message: 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    });
  }
});

test('a YAML body is its first document, read as YAML 1.1 (keys too) with timestamps and base 60 left as strings', () => {
  const yaml = 'apiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: a\n  labels: {x: yes, t: 2001-12-14, n: "5", i: 1:20}\n---\nmetadata: {name: b}\n';
  assert.deepEqual(parseRequestBody(Buffer.from(yaml), PV_ROLE, 'yaml'),
    { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'a', labels: { x: true, t: '2001-12-14', false: '5', i: '1:20' } } });
  assert.equal(failure(() => parseRequestBody(Buffer.from('a: ['), PV_ROLE, 'yaml')).message.startsWith(
    'the object provided is unrecognized (must be of type PersistentVolume): yaml: line 1: '), true);
});

test('YAML nesting and alias expansion are bounded before and after composing the document', () => {
  const deep = `metadata:\n  name: ${'['.repeat(5000)}${']'.repeat(5000)}\n`;
  assert.equal(failure(() => parseRequestBody(Buffer.from(deep), PV_ROLE, 'yaml')).message,
    `the object provided is unrecognized (must be of type PersistentVolume): yaml: line 2: exceeded max depth of ${MAX_NESTING_DEPTH} (6d657461646174613a0a20206e616d653a205b5b5b5b5b5b5b5b5b5b5b5b ...)`);
  const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
  for (const name of 'bcdefgh') levels.push(`${name}: &${name} [${Array(10).fill(`*${String.fromCharCode(name.charCodeAt(0) - 1)}`).join(', ')}]`);
  assert.match(failure(() => parseRequestBody(Buffer.from(levels.join('\n')), PV_ROLE, 'yaml')).message,
    /^the object provided is unrecognized \(must be of type PersistentVolume\): yaml: document contains excessive aliasing \(/);
  const wide = `big: &big "${'x'.repeat(100_000)}"\nl: [${Array(60).fill('*big').join(', ')}]\n`;
  assert.match(failure(() => parseRequestBody(Buffer.from(wide), PV_ROLE, 'yaml')).message, /yaml: document contains excessive aliasing/);
});

test('a YAML value JSON cannot carry is refused', () => {
  assert.match(failure(() => parseRequestBody(Buffer.from('metadata: {name: .inf}'), PV_ROLE, 'yaml')).message,
    /json: unsupported value: \+Inf/);
  assert.match(failure(() => parseRequestBody(Buffer.from('metadata: !!set {a, b}'), PV_ROLE, 'yaml')).message,
    /json: unsupported type: /);
});

test('Warning headers escape like kube-apiserver, carry UTF-8 bytes, and are bounded like its warning recorder', () => {
  assert.deepEqual(warningHeaders(['unknown field "spec.f€o"']), [Buffer.from('299 - "unknown field \\"spec.f€o\\""').toString('latin1')]);
  const long = Array.from({ length: 30 }, (_, i) => `unknown field "spec.k${String(i).padStart(3, '0')}${'x'.repeat(300)}"`);
  const cut = warningHeaders(long);
  assert.equal(cut.length, 16);
  assert.ok(cut.every((h) => h.length === '299 - ""'.length + 256 + 1));
  const many = Array.from({ length: 100 }, (_, i) => `unknown field "spec.nodeAffinity.required.nodeSelectorTerms[${i}].zz${i}"`);
  assert.equal(warningHeaders(many).length, 60);
  assert.equal(warningHeaders(['a', 'a', 'b']).length, 2);
});
