/**
 * Issue 24's large single requests against the embedded server: each is answered with
 * kube-apiserver's status and reason, its answer stays within a bound however long the list it
 * carries, nothing is stored, and the server goes on serving. (How long each takes is measured by
 * bench/hostile-limits.ts, not asserted here.)
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { api, type ApiResponse } from '../http-client.js';
import { startEmbeddedTestApiServer, type EmbeddedTestApiServer } from '../../../../test/helpers/apiserver.js';
import {
  claimsPath, claimWith, controllerRefs, emptyRefs, finalizers, forgedContinueToken, ownerRefs, podsPath, podWith, PVS, pvTextWithSpecArray,
  pvWith, repeatedJsonArray, SCS, storageClassWith, tolerations, topologyTerms, upstreamContinueToken,
} from '../hostile/large-shapes.js';
import { sendJsonText } from './hostile-helpers.js';

const NS = 'default';
/** Far above any answer the budget allows (1 MiB of causes, the message about as much again). */
const ANSWER_BOUND = 8 * 1024 * 1024;
const REQUIRED = (at: string): string => `${at}: Required value: must not be empty`;

interface Cause { reason?: string; message?: string; field?: string }

/** POSTs `body` in 64 KiB chunks without a Content-Length (chunked transfer encoding); the answer's status. */
function chunkedPostStatus(t: EmbeddedTestApiServer, body: string): Promise<number> {
  const { hostname, port } = new URL(t.server.url);
  const headers = { Authorization: `Bearer ${t.server.token}`, 'Content-Type': 'application/json' };
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ hostname, port, path: PVS, method: 'POST', headers, ca: t.server.caPem }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    for (let i = 0; i < body.length; i += 65_536) req.write(body.slice(i, i + 65_536));
    req.end();
  });
}

function causesOf(r: ApiResponse): Cause[] {
  return (r.json?.details?.causes ?? []) as Cause[];
}

describe('large lists in a request: kube-apiserver\'s answer, bounded, and the server lives on', () => {
  let t: EmbeddedTestApiServer;
  before(async () => {
    t = await startEmbeddedTestApiServer();
  });
  after(async () => t.stop());

  async function assertServing(): Promise<void> {
    assert.equal((await api(t.server, 'GET', '/readyz')).status, 200, 'the server still answers');
  }

  const REF0_REQUIRED = ['apiVersion', 'kind', 'name', 'uid'].map((f) => REQUIRED(`metadata.ownerReferences[0].${f}`));
  const dedupWarning = (head: string, count: number): string => `299 - "${head}; API server dedups owner references in 1.20+, ` +
    `and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: ${Array(count).fill('').join(', ')}"`;

  test('3,700 copies of one owner reference (74 KB) are deduplicated first, as kube-apiserver does: a 422 for the one left, with a Warning', async () => {
    const r = await api(t.server, 'POST', `${PVS}?dryRun=All`, { body: pvWith('refs', {}, { ownerReferences: controllerRefs(3700) }) });
    assert.equal(r.status, 422, r.text.slice(0, 300));
    assert.equal(r.json.message, `PersistentVolume "refs" is invalid: [${REF0_REQUIRED.join(', ')}]`);
    assert.equal(causesOf(r).length, 4);
    await assertServing();
    const created = await api(t.server, 'POST', `${PVS}?dryRun=All`, { body: pvWith('twice', {}, { ownerReferences: [...ownerRefs(2), ...ownerRefs(2)] }) });
    assert.equal(created.status, 201);
    assert.deepEqual(created.json.metadata.ownerReferences, ownerRefs(2));
    assert.equal(created.headers.warning, dedupWarning('.metadata.ownerReferences contains duplicate entries', 2).replace(': , ', ': uid-0, uid-1'));
  });

  test('a merge patch that gives a claim 3,700 controller references is a 422 and leaves the claim as it was', async () => {
    const created = await api(t.server, 'POST', claimsPath(NS), { body: claimWith('refs', NS) });
    assert.equal(created.status, 201, created.text);
    const r = await sendJsonText(t.server, 'PATCH', `${claimsPath(NS)}/refs`,
      JSON.stringify({ metadata: { ownerReferences: controllerRefs(3700) } }), 'application/merge-patch+json');
    assert.equal(r.status, 422, r.text.slice(0, 300));
    assert.equal(r.json.message, `PersistentVolumeClaim "refs" is invalid: [${REF0_REQUIRED.join(', ')}]`);
    const now = await api(t.server, 'GET', `${claimsPath(NS)}/refs`);
    assert.equal(now.json.metadata.resourceVersion, created.json.metadata.resourceVersion);
    assert.equal(now.json.metadata.ownerReferences, undefined);
    await assertServing();
  });

  test('3,700 distinct controller references: every later one is an error printing the whole list, cut at the causes budget', async () => {
    const refs = ownerRefs(3700, 3700);
    const r = await api(t.server, 'POST', `${PVS}?dryRun=All`, { body: pvWith('many', {}, { ownerReferences: refs }) });
    assert.equal(r.status, 422, r.text.slice(0, 300));
    assert.ok(r.bytes.length < ANSWER_BOUND, `the answer is ${r.bytes.length} bytes`);
    const causes = causesOf(r);
    assert.match(causes[0].message ?? '', /Found "true" in references for ConfigMap\/owner-0 and ConfigMap\/owner-1$/);
    const counted = Number(/^(\d+) more errors not listed: the list exceeds 1048576 bytes$/.exec(causes[causes.length - 1].message ?? '')?.[1]);
    assert.equal(causes.length - 1 + counted, 3699, 'every error is listed or counted');
    await assertServing();
  });

  test('every controller reference after the first is one error that prints the whole list, as kube-apiserver words it', async () => {
    const refs = [
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'a', uid: '1', controller: true },
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'b', uid: '2', controller: true },
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: '3', controller: true, blockOwnerDeletion: false },
    ];
    const r = await api(t.server, 'POST', `${PVS}?dryRun=All`, { body: pvWith('three', {}, { ownerReferences: refs }) });
    const list = JSON.stringify(refs);
    const error = (second: string): string =>
      `Invalid value: ${list}: Only one reference can have Controller set to true. Found "true" in references for ConfigMap/a and ${second}`;
    assert.equal(r.status, 422);
    assert.deepEqual(causesOf(r), [
      { reason: 'FieldValueInvalid', message: error('ConfigMap/b'), field: 'metadata.ownerReferences' },
      { reason: 'FieldValueInvalid', message: error('ConfigMap/c'), field: 'metadata.ownerReferences' },
    ]);
    assert.equal(r.json.message,
      `PersistentVolume "three" is invalid: [metadata.ownerReferences: ${error('ConfigMap/b')}, metadata.ownerReferences: ${error('ConfigMap/c')}]`);
  });

  test('100,000 empty owner references and 150,000 empty finalizers are 422s, not a 500 "Maximum call stack size exceeded"', async () => {
    const refs = await api(t.server, 'POST', `${PVS}?dryRun=All`, { body: pvWith('many', {}, { ownerReferences: emptyRefs(100_000) }) });
    assert.equal(refs.status, 422, refs.text.slice(0, 300));
    assert.equal(refs.json.message, `PersistentVolume "many" is invalid: [${REF0_REQUIRED.join(', ')}]`);
    const names = await api(t.server, 'POST', `${PVS}?dryRun=All`, { body: pvWith('many', {}, { finalizers: Array(150_000).fill('') }) });
    assert.equal(names.status, 422, names.text.slice(0, 300));
    assert.ok(names.bytes.length < 10_000, 'each distinct error once');
    const distinct = await api(t.server, 'POST', `${PVS}?dryRun=All`, { body: pvWith('many', {}, { finalizers: finalizers(100_000, false) }) });
    assert.equal(distinct.status, 422, distinct.text.slice(0, 300));
    assert.ok(distinct.bytes.length < ANSWER_BOUND, `the answer is ${distinct.bytes.length} bytes`);
    await assertServing();
  });

  test('a million empty access modes are one cause, as kube-apiserver answers them', async () => {
    const r = await sendJsonText(t.server, 'POST', `${PVS}?dryRun=All`, pvTextWithSpecArray('modes', 'accessModes', repeatedJsonArray('', 1_000_000)));
    assert.equal(r.status, 422);
    const unsupported = 'Unsupported value: "": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"';
    assert.equal(r.json.message, `PersistentVolume "modes" is invalid: spec.accessModes: ${unsupported}`);
    assert.deepEqual(causesOf(r), [{ reason: 'FieldValueNotSupported', message: unsupported, field: 'spec.accessModes' }]);
    await assertServing();
  });

  test('a forged continue token is refused as kube-apiserver refuses it, and no list echoes a resourceVersion that is no integer', async () => {
    const invalid = (detail: string): string => `invalid continue token: continue key is not valid: ${detail}`;
    const rvError = (literal: string): string => invalid(`json: cannot unmarshal number ${literal} into Go struct field continueToken.rv of type int64`);
    const cases: Array<[string, number, string]> = [
      [forgedContinueToken(1e308), 400, rvError('1e+308')],
      [upstreamContinueToken(1.5), 400, rvError('1.5')],
      [Buffer.from('{"rv":99999999999999999999,"after":["","a"]}').toString('base64url'), 400, rvError('99999999999999999999')],
      [upstreamContinueToken('5'), 400, invalid('json: cannot unmarshal string into Go struct field continueToken.rv of type int64')],
      [forgedContinueToken(-5), 400, invalid('server does not recognize this encoded version ')],
    ];
    for (const [token, code, message] of cases) {
      const r = await api(t.server, 'GET', `${PVS}?limit=1&continue=${token}`);
      assert.deepEqual([r.status, r.json.message], [code, message], token);
    }
    const future = await api(t.server, 'GET', `${PVS}?limit=1&continue=${forgedContinueToken(999_999_999)}`);
    assert.equal(future.status, 504);
    assert.equal(future.json.reason, 'Timeout');
    assert.match(future.json.message, /^Timeout: Too large resource version: 999999999, current: \d+$/);
    assert.deepEqual(future.json.details, { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 });
  });

  test('a body over 3 MiB is 413 whether or not it says its length, and is not parsed (it is no JSON)', async () => {
    const garbage = 'x'.repeat(3 * 1024 * 1024 + 1);
    for (const [method, path, type] of [['POST', PVS, 'application/json'], ['PATCH', `${PVS}/none`, 'application/merge-patch+json']]) {
      const r = await sendJsonText(t.server, method, path, garbage, type);
      assert.deepEqual([r.status, r.json.reason, r.json.message], [413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728']);
    }
    assert.equal(await chunkedPostStatus(t, garbage), 413, 'a chunked body, its length unknown until it ends');
  });

  test('52,000 allowedTopologies terms are compared as sets (one cause per repeated term), and 201 when all differ', async () => {
    const distinct = await api(t.server, 'POST', `${SCS}?dryRun=All`, { body: storageClassWith('topo', { allowedTopologies: topologyTerms(52_000) }) });
    assert.equal(distinct.status, 201, distinct.text.slice(0, 300));
    const terms = [...topologyTerms(2), { matchLabelExpressions: [{ key: 'k', values: ['1', '1'] }] }, topologyTerms(1)[0]];
    const repeated = await api(t.server, 'POST', `${SCS}?dryRun=All`, { body: storageClassWith('topo', { allowedTopologies: terms }) });
    assert.equal(repeated.status, 422);
    assert.deepEqual(causesOf(repeated), [
      { reason: 'FieldValueDuplicate', message: 'Duplicate value: "1"', field: 'allowedTopologies[2].matchLabelExpressions[0].values[1]' },
      { reason: 'FieldValueDuplicate', message: 'Duplicate value: ""', field: 'allowedTopologies[2].matchLabelExpressions' },
      { reason: 'FieldValueDuplicate', message: 'Duplicate value: ""', field: 'allowedTopologies[3].matchLabelExpressions' },
    ]);
  });

  test('a pod PUT with its 20,000 tolerations reversed is accepted; one changed toleration is refused', async () => {
    const list = tolerations(20_000);
    assert.equal((await api(t.server, 'POST', podsPath(NS), { body: podWith('tol', NS, { tolerations: list }) })).status, 201);
    const reversed = await api(t.server, 'PUT', `${podsPath(NS)}/tol`, { body: podWith('tol', NS, { tolerations: [...list].reverse() }) });
    assert.equal(reversed.status, 200, reversed.text.slice(0, 300));
    const changed = [...list.slice(1), { key: 'k0', operator: 'Exists', effect: 'NoExecute' }];
    const refused = await api(t.server, 'PUT', `${podsPath(NS)}/tol`, { body: podWith('tol', NS, { tolerations: changed }) });
    assert.equal(refused.status, 422);
    assert.equal(causesOf(refused)[0].field, 'spec');
  });
});
