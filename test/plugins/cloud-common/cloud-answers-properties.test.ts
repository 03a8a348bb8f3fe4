/**
 * Property tests of what the Cinder and GCE clients make of any answer a broken or hostile cloud
 * gives: each call returns a well-formed value (a non-empty id or name, a whole non-negative
 * size, string metadata) or throws CloudHttpError or PluginError, never a TypeError or NaN;
 * a list that pages forever ends with an error instead of looping.
 */
import { afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CloudHttpError } from '../../../src/plugins/cloud-common/http.js';
import { CinderClient, type CinderVolume } from '../../../src/plugins/cinder/cinder-client.js';
import type { KeystoneClient } from '../../../src/plugins/cinder/keystone.js';
import { ComputeClient, type GceDisk, type GceOperation } from '../../../src/plugins/gce-pd/compute-client.js';
import { PluginError } from '../../../src/plugins/api/errors.js';

interface Answer { status: number; body: string }

const realFetch = globalThis.fetch;
afterEach(() => {
  globalThis.fetch = realFetch;
});

/** Every request is answered by `answer` (called with the request count), as a cloud on loopback would. */
function serve(answer: (n: number) => Answer): void {
  let n = 0;
  globalThis.fetch = (async (_url: string | URL | Request, init?: RequestInit) => {
    // A real answer takes a turn of the event loop, so a signal's timer can fire between pages.
    await new Promise((resolve) => setImmediate(resolve));
    init?.signal?.throwIfAborted();
    const { status, body } = answer(n++);
    return new Response(status === 204 || status === 304 ? null : body, { status, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
}

const hostileScalar = fc.constantFrom<unknown>(null, '', 'x', -1, 1.5, 'NaN', '10', Infinity, {}, [], true, 2 ** 53 + 1);
const volumeLike = fc.record({
  id: fc.oneof(fc.constantFrom('vol-1'), hostileScalar), name: fc.oneof(fc.constantFrom('pvc-1'), hostileScalar),
  size: fc.oneof(fc.constantFrom(1, 10), hostileScalar), status: fc.oneof(fc.constantFrom('available', 'error'), hostileScalar),
  metadata: fc.oneof(fc.dictionary(fc.string({ maxLength: 3 }), fc.oneof(fc.string({ maxLength: 3 }), hostileScalar), { maxKeys: 2 }), hostileScalar),
  attachments: fc.oneof(fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 2 }), hostileScalar),
  sizeGb: fc.oneof(fc.constantFrom('10', 10), hostileScalar), zone: fc.oneof(fc.constantFrom('zones/us-a'), hostileScalar),
  labels: fc.oneof(fc.dictionary(fc.string({ maxLength: 3 }), hostileScalar, { maxKeys: 2 }), hostileScalar),
  users: fc.oneof(fc.array(hostileScalar, { maxLength: 2 }), hostileScalar),
}, { requiredKeys: [] });
const body = fc.oneof(
  volumeLike.map((v) => JSON.stringify({ volume: v })), volumeLike.map((v) => JSON.stringify({ volumes: [v] })), volumeLike.map((v) => JSON.stringify(v)),
  volumeLike.map((v) => JSON.stringify({ items: { 'zones/a': { disks: [v] } } })),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)), fc.constantFrom('', 'not json', '{"error":{"message":5}}', '{"badRequest":{"message":"attached"}}'),
);
const answer = fc.record({ status: fc.constantFrom(200, 201, 202, 204, 400, 401, 404, 409, 413, 429, 500, 503), body });

function isWholeSize(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0;
}

function assertVolume(v: CinderVolume): void {
  assert.ok(typeof v.id === 'string' && v.id !== '', `id ${JSON.stringify(v.id)}`);
  assert.ok(isWholeSize(v.sizeGiB), `size ${v.sizeGiB}`);
  assert.ok(Object.values(v.metadata).every((m) => typeof m === 'string'));
  assert.ok(Number.isSafeInteger(v.attachmentCount));
}

function assertDisk(d: GceDisk): void {
  assert.ok(typeof d.name === 'string' && d.name !== '', `name ${JSON.stringify(d.name)}`);
  assert.ok(isWholeSize(d.sizeGb), `size ${d.sizeGb}`);
  assert.ok(Object.values(d.labels).every((l) => typeof l === 'string') && d.users.every((u) => typeof u === 'string'));
}

function assertOperation(op: GceOperation): void {
  assert.ok(typeof op.name === 'string' && op.name !== '', `operation name ${JSON.stringify(op.name)}`);
}

/** The call returns a well-formed value (checked by `check`) or throws one of the clients' typed errors. */
async function wellFormedOrTyped<T>(call: () => Promise<T>, check: (value: T) => void): Promise<void> {
  let value: T;
  try {
    value = await call();
  } catch (err) {
    assert.ok(err instanceof CloudHttpError || err instanceof PluginError, `a typed error, not ${String(err)}`);
    return;
  }
  check(value);
}

const signal = () => AbortSignal.timeout(5_000);
const keystone = {
  current: async () => ({ token: 't', projectId: 'p', volumeEndpoint: 'http://127.0.0.1:9/v3/p', expiresAt: Date.now() + 3_600_000 }),
  invalidate: () => undefined,
} as unknown as KeystoneClient;

test('whatever Cinder answers, the client returns well-formed volumes or a typed error', async () => {
  const cinder = new CinderClient(keystone);
  await fc.assert(fc.asyncProperty(answer, async (a) => {
    serve(() => a);
    await wellFormedOrTyped(() => cinder.get('vol-1', signal()), (v) => v === undefined || assertVolume(v));
    await wellFormedOrTyped(() => cinder.create({ name: 'pvc-1', sizeGiB: 1, metadata: {} }, signal()), assertVolume);
    await wellFormedOrTyped(() => cinder.list({ name: 'pvc-1' }, signal()), (vs) => vs.forEach(assertVolume));
    await wellFormedOrTyped(() => cinder.delete('vol-1', signal()), (r) => assert.ok(r === 'deleted' || r === 'absent'));
  }), { numRuns: 400 });
});

test('whatever the Compute API answers, the client returns well-formed disks and operations or a typed error', async () => {
  const compute = new ComputeClient('http://127.0.0.1:9/compute/v1', { getRequestHeaders: async () => new Headers() });
  const zone = { scope: 'zones' as const, name: 'us-a' };
  const newDisk = { name: 'pvc-1', sizeGb: 1, type: 'pd-standard', description: '', labels: {} };
  await fc.assert(fc.asyncProperty(answer, async (a) => {
    serve(() => a);
    await wellFormedOrTyped(() => compute.getDisk('p', zone, 'pvc-1', signal()), (d) => d === undefined || assertDisk(d));
    await wellFormedOrTyped(() => compute.insertDisk('p', zone, newDisk, 'r', signal()), assertOperation);
    await wellFormedOrTyped(() => compute.deleteDisk('p', zone, 'pvc-1', signal()), (op) => op === undefined || assertOperation(op));
    await wellFormedOrTyped(() => compute.aggregatedDisks('p', undefined, signal()), (ds) => ds.forEach(assertDisk));
  }), { numRuns: 400 });
});

test('a Cinder list whose every page is full and names the same marker ends with an error, as does a GCE page token that repeats', async () => {
  const page = JSON.stringify({ volumes: Array.from({ length: 500 }, () => ({ id: 'same', name: 'n', size: 1, status: 'available' })) });
  serve(() => ({ status: 200, body: page }));
  await assert.rejects(new CinderClient(keystone).list({}, signal()), PluginError);
  serve(() => ({ status: 200, body: JSON.stringify({ items: {}, nextPageToken: 'again' }) }));
  await assert.rejects(new ComputeClient('http://127.0.0.1:9/c', { getRequestHeaders: async () => new Headers() }).aggregatedDisks('p', undefined, signal()), PluginError);
});

test('a Cinder list answer without a volumes array is an error, not "no volumes" (which would create a duplicate)', async () => {
  for (const answerBody of ['{}', '{"volumes":null}', '{"volumes":{}}', '[]', 'not json']) {
    serve(() => ({ status: 200, body: answerBody }));
    await assert.rejects(new CinderClient(keystone).list({ name: 'pvc-1' }, signal()), PluginError, answerBody);
  }
});
