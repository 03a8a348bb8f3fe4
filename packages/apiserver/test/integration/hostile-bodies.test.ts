/**
 * Hostile request bodies against the embedded server with a running controller: each answer is
 * kube-apiserver's (code, reason, message, causes), nothing is stored or changed by a refused
 * request, and the controller goes on binding after every one.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_NESTING_DEPTH } from '@pv-controller/apiserver/decode/typed-decoder.js';
import { api, watch } from '../http-client.js';
import { startTestCluster, type TestCluster } from '../../../../test/helpers/cluster.js';
import {
  assertAbsent, assertControllerStillBinds, createSettledPv, deepHostPathPv, nestedJson, PVS, pvBody, sendJsonText, statusOf,
} from './hostile-helpers.js';

const TOO_DEEP = 'the object provided is unrecognized (must be of type PersistentVolume): couldn\'t get version/kind; ' +
  'json parse error: invalid character \'{\' exceeded max depth ({"apiVersion":"v1","kind":"Per ...)';
const CANNOT_HANDLE = 'PersistentVolume in version "v1" cannot be handled as a PersistentVolume: ';
const LABEL_NOT_STRING = 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string';

describe('hostile request bodies', () => {
  let cluster: TestCluster;
  before(async () => {
    cluster = await startTestCluster();
  });
  after(async () => cluster.stop());
  const server = () => cluster.api.server;

  test('an unknown field nested 4,000 deep in spec.hostPath is dropped without being walked; past Go\'s 10,000 the body is refused', async () => {
    const pvWatch = await watch(server(), `${PVS}?watch=true&resourceVersion=0`);
    try {
      const strict = await sendJsonText(server(), 'POST', `${PVS}?fieldValidation=Strict`, deepHostPathPv('deep', 4000));
      assert.deepEqual(statusOf(strict), {
        code: 400, reason: 'BadRequest', message: `${CANNOT_HANDLE}strict decoding error: unknown field "spec.hostPath.foo"`, details: undefined,
      });
      const tooDeep = await sendJsonText(server(), 'POST', PVS, deepHostPathPv('deep', 10_001));
      assert.deepEqual(statusOf(tooDeep), { code: 400, reason: 'BadRequest', message: TOO_DEEP, details: undefined });
      await assertAbsent(server(), `${PVS}/deep`);
      const created = await sendJsonText(server(), 'POST', PVS, deepHostPathPv('deep', 4000));
      assert.equal(created.status, 201);
      assert.equal(created.headers.warning, '299 - "unknown field \\"spec.hostPath.foo\\""');
      const list = await api(server(), 'GET', PVS);
      assert.equal(list.status, 200);
      assert.deepEqual(list.json.items.find((pv: { metadata: { name: string } }) => pv.metadata.name === 'deep').spec.hostPath, { path: '/tmp/deep', type: '' });
      const seen = await pvWatch.next(10_000);
      assert.equal(seen.object.metadata.name, 'deep', 'the watch carries the object without the field');
      assert.equal((await api(server(), 'DELETE', `${PVS}/deep`)).status, 200);
      await assertControllerStillBinds(server());
    } finally {
      pvWatch.close();
    }
  });

  test('an unknown field below the top level is refused under Strict and dropped with a Warning otherwise', async () => {
    const body = pvBody('shallow', { hostPath: { path: '/tmp/shallow', foo: { bar: 1 } } });
    const strict = await api(server(), 'POST', `${PVS}?fieldValidation=Strict`, { body });
    assert.deepEqual(statusOf(strict), {
      code: 400, reason: 'BadRequest', message: `${CANNOT_HANDLE}strict decoding error: unknown field "spec.hostPath.foo"`, details: undefined,
    });
    await assertAbsent(server(), `${PVS}/shallow`);
    const warn = await api(server(), 'POST', PVS, { body });
    assert.equal(warn.status, 201);
    assert.equal(warn.headers.warning, '299 - "unknown field \\"spec.hostPath.foo\\""');
    assert.deepEqual((await api(server(), 'GET', `${PVS}/shallow`)).json.spec.hostPath, { path: '/tmp/shallow', type: '' });
    await assertControllerStillBinds(server());
  });

  test('a label value that is not a string is refused with kube-apiserver\'s 400 by create, update and status update', async () => {
    const bad = pvBody('label5', {}, { labels: { a: 5 } });
    const created = await api(server(), 'POST', PVS, { body: bad });
    assert.deepEqual(statusOf(created), { code: 400, reason: 'BadRequest', message: CANNOT_HANDLE + LABEL_NOT_STRING, details: undefined });
    await assertAbsent(server(), `${PVS}/label5`);
    const good = await createSettledPv(server(), 'label5');
    for (const path of [`${PVS}/label5`, `${PVS}/label5/status`]) {
      const r = await api(server(), 'PUT', path, { body: { ...good.json, metadata: { ...good.json.metadata, labels: { a: 5 } } } });
      assert.deepEqual(statusOf(r), { code: 400, reason: 'BadRequest', message: CANNOT_HANDLE + LABEL_NOT_STRING, details: undefined });
    }
    const now = await api(server(), 'GET', `${PVS}/label5`);
    assert.equal(now.json.metadata.resourceVersion, good.json.metadata.resourceVersion);
    await assertControllerStillBinds(server());
  });

  test('an unknown field named with € is created with 201 and the UTF-8 Warning kube-apiserver sends; Strict stores nothing', async () => {
    const body = pvBody('euro', { 'f€o': 1 });
    const strict = await api(server(), 'POST', `${PVS}?fieldValidation=Strict`, { body });
    assert.deepEqual(statusOf(strict), {
      code: 400, reason: 'BadRequest', message: `${CANNOT_HANDLE}strict decoding error: unknown field "spec.f€o"`, details: undefined,
    });
    await assertAbsent(server(), `${PVS}/euro`);
    const warn = await api(server(), 'POST', PVS, { body });
    assert.equal(warn.status, 201);
    // node hands header bytes over as latin1: these are the UTF-8 bytes of the text.
    assert.equal(warn.headers.warning, Buffer.from('299 - "unknown field \\"spec.f€o\\""').toString('latin1'));
    assert.equal((await api(server(), 'GET', `${PVS}/euro`)).json.spec['f€o'], undefined);
    await assertControllerStillBinds(server());
  });

  test('a YAML body creates and replaces like a JSON one; other media types are 415 and store nothing', async () => {
    const yaml = 'apiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: from-yaml\nspec:\n  capacity: {storage: 1Gi}\n' +
      '  accessModes: [ReadWriteOnce]\n  storageClassName: manual\n  hostPath: {path: /tmp/from-yaml, foo: 1}\n';
    const created = await sendJsonText(server(), 'POST', PVS, yaml, 'application/yaml');
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers.warning, '299 - "unknown field \\"spec.hostPath.foo\\""');
    const replaced = await sendJsonText(server(), 'PUT', `${PVS}/from-yaml`, yaml.replace('{storage: 1Gi}', '{storage: 2Gi}'), 'application/yaml');
    assert.equal(replaced.status, 200, replaced.text);
    assert.equal(replaced.json.spec.capacity.storage, '2Gi');
    const plain = await sendJsonText(server(), 'POST', PVS, yaml.replace('from-yaml', 'from-text'), 'text/plain');
    assert.deepEqual(statusOf(plain), {
      code: 415, reason: 'UnsupportedMediaType', details: undefined,
      message: 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    });
    const bomb = ['apiVersion: v1', 'kind: PersistentVolume', 'metadata: {name: bomb}', 'a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (const n of 'bcdefgh') bomb.push(`${n}: &${n} [${Array(10).fill(`*${String.fromCharCode(n.charCodeAt(0) - 1)}`).join(', ')}]`);
    const aliases = await sendJsonText(server(), 'POST', PVS, bomb.join('\n'), 'application/yaml');
    assert.equal(aliases.status, 400);
    assert.match(aliases.json.message, /^the object provided is unrecognized \(must be of type PersistentVolume\): yaml: document contains excessive aliasing \(/);
    await assertAbsent(server(), `${PVS}/from-text`);
    await assertAbsent(server(), `${PVS}/bomb`);
    await assertControllerStillBinds(server());
  });

  test('no patch stores an unknown, mistyped or over-deep field, and a refused one changes nothing', async () => {
    const created = await createSettledPv(server(), 'patched');
    const rv = created.json.metadata.resourceVersion;
    const patch = (type: string, body: string, query = '') => sendJsonText(server(), 'PATCH', `${PVS}/patched${query}`, body, type);
    const smp = await patch('application/strategic-merge-patch+json', '{"spec":{"hostPath":{"foo":1}}}', '?fieldValidation=Strict');
    const smpMessage = 'Invalid value: "map[spec:map[hostPath:map[foo:1]]]": strict decoding error: unknown field "spec.hostPath.foo"';
    assert.deepEqual(statusOf(smp), {
      code: 422, reason: 'Invalid', message: ` "" is invalid: patch: ${smpMessage}`,
      details: { causes: [{ reason: 'FieldValueInvalid', message: smpMessage, field: 'patch' }] },
    });
    const merge = await patch('application/merge-patch+json', '{"metadata":{"labels":{"a":5}}}');
    assert.equal(merge.status, 422);
    assert.match(merge.json.message, /^ "" is invalid: patch: Invalid value: "\{\\"apiVersion\\":\\"v1\\",.*\\"labels\\":\{\\"a\\":5\}.*": json: cannot unmarshal number into Go struct field ObjectMeta\.metadata\.labels of type string$/);
    assert.deepEqual(merge.json.details.causes.map((c: { field: string; reason: string }) => [c.field, c.reason]), [['patch', 'FieldValueInvalid']]);
    // Patches are applied by recursive code, so their bodies are held to MAX_NESTING_DEPTH.
    const deep = await patch('application/merge-patch+json', `{"spec":{"hostPath":{"foo":${nestedJson(MAX_NESTING_DEPTH)}}}}`);
    assert.deepEqual(statusOf(deep), { code: 400, reason: 'BadRequest', message: 'invalid JSON patch', details: undefined });
    // Each operation is within the limit; copying the value under a deep path is not.
    const inner = nestedJson(MAX_NESTING_DEPTH - 10);
    const deeper = '/a'.repeat(MAX_NESTING_DEPTH - 10);
    const amplified = await patch('application/json-patch+json', JSON.stringify([
      { op: 'add', path: '/metadata/managedFields', value: [{ manager: 'm', fieldsV1: JSON.parse(inner) }] },
      { op: 'copy', from: '/metadata/managedFields/0/fieldsV1', path: `/metadata/managedFields/0/fieldsV1${deeper.slice(0, -2)}/b` },
    ]));
    assert.equal(amplified.status, 422, amplified.text);
    assert.match(amplified.json.message, /": invalid character '\{' exceeded max depth$/);
    assert.equal((await api(server(), 'GET', `${PVS}/patched`)).json.metadata.resourceVersion, rv);
    const warned = await patch('application/merge-patch+json', '{"spec":{"hostPath":{"foo":1}}}');
    assert.equal(warned.status, 200);
    assert.equal(warned.headers.warning, '299 - "unknown field \\"spec.hostPath.foo\\""');
    assert.equal(warned.json.metadata.resourceVersion, rv, 'dropping the unknown field leaves nothing to change');
    assert.deepEqual((await api(server(), 'GET', `${PVS}/patched`)).json.spec.hostPath, { path: '/tmp/patched', type: '' });
    await assertControllerStillBinds(server());
  });

  test('a DeleteOptions body of the wrong type is refused with kube-apiserver\'s 400 and deletes nothing', async () => {
    await api(server(), 'POST', PVS, { body: pvBody('kept') });
    const r = await sendJsonText(server(), 'DELETE', `${PVS}/kept`, '{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":"x"}');
    assert.deepEqual(statusOf(r), {
      code: 400, reason: 'BadRequest', details: undefined,
      message: 'json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64',
    });
    const kept = await api(server(), 'GET', `${PVS}/kept`);
    assert.equal(kept.status, 200);
    assert.equal(kept.json.metadata.deletionTimestamp, undefined);
    await assertControllerStillBinds(server());
  });
});
