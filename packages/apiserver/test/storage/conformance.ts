/**
 * One behavioural suite every Storage implementation must pass (run by memory.test.ts and
 * sqlite.test.ts). It speaks only the Storage interface plus `stats()`.
 */
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { ExpiredError } from '@pv-controller/kube/errors.js';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { StorageClosedError, StorageInvariantError, type StorageWithStats } from '@pv-controller/apiserver/storage/index.js';
import type { Change, ObjectKey } from '@pv-controller/apiserver/storage/storage.js';

export interface ConformanceOptions {
  retainChanges?: number;
  maxBatch?: number;
}

/** Opens a fresh, empty store; the suite closes it. */
export type OpenStore = (options: ConformanceOptions) => Promise<StorageWithStats>;

export const pvKey = (name: string): ObjectKey => ({ resource: 'persistentvolumes', namespace: '', name });
export const pvcKey = (namespace: string, name: string): ObjectKey => ({
  resource: 'persistentvolumeclaims',
  namespace,
  name,
});

export function objectFor(key: ObjectKey, spec: Record<string, unknown> = {}): KubeObject {
  const metadata = key.namespace ? { name: key.name, namespace: key.namespace } : { name: key.name };
  return { apiVersion: 'v1', kind: 'Thing', metadata, spec };
}

export function rvOf(object: KubeObject | undefined): number {
  return Number(object?.metadata.resourceVersion);
}

async function openFor(t: TestContext, open: OpenStore, options: ConformanceOptions = {}): Promise<StorageWithStats> {
  const storage = await open(options);
  t.after(() => storage.close());
  return storage;
}

/** Creates (or updates, when present) and waits until durable. */
async function put(storage: StorageWithStats, key: ObjectKey, spec: Record<string, unknown> = {}): Promise<Change> {
  const type = storage.get(key) === undefined ? 'create' : 'update';
  const { change, durable } = storage.write({ type, key, object: objectFor(key, spec) });
  await durable;
  return change;
}

export function storageConformance(kind: string, open: OpenStore): void {
  describe(`${kind} storage conformance`, () => {
    describeVersionsAndReads(open);
    describeReplayAndSubscribe(open);
    describeContractAndCommit(open);
  });
}

function describeVersionsAndReads(open: OpenStore): void {
  test('resourceVersions are strictly increasing and shared by all resources', async (t) => {
    const storage = await openFor(t, open);
    assert.equal(storage.currentRV(), 0);
    const a = await put(storage, pvKey('a'));
    const b = await put(storage, pvcKey('ns', 'b'));
    const c = await put(storage, pvKey('a'), { size: 2 });
    assert.deepEqual([a.rv, b.rv, c.rv], [1, 2, 3]);
    assert.equal(storage.currentRV(), 3);
  });

  test("a write stamps the stored copy with its resourceVersion and leaves the caller's object alone", async (t) => {
    const storage = await openFor(t, open);
    const mine = objectFor(pvKey('pv1'), { capacity: '1Gi' });
    const { change, durable } = storage.write({ type: 'create', key: pvKey('pv1'), object: mine });
    await durable;
    assert.equal(mine.metadata.resourceVersion, undefined);
    assert.equal(change.object.metadata.resourceVersion, String(change.rv));
    assert.deepEqual(storage.get(pvKey('pv1')), { ...mine, metadata: { name: 'pv1', resourceVersion: '1' } });
  });

  test('get returns the current object and nothing once it is deleted', async (t) => {
    const storage = await openFor(t, open);
    assert.equal(storage.get(pvKey('x')), undefined);
    await put(storage, pvKey('x'), { v: 1 });
    await put(storage, pvKey('x'), { v: 2 });
    assert.deepEqual(storage.get(pvKey('x'))?.spec, { v: 2 });
    await storage.write({ type: 'delete', key: pvKey('x') }).durable;
    assert.equal(storage.get(pvKey('x')), undefined);
    assert.equal(storage.count('persistentvolumes'), 0);
  });

  test('list orders by namespace then name and filters by namespace', async (t) => {
    const storage = await openFor(t, open);
    // "a" must sort before "a-b" and "a.c" although "-" and "." sort before "/".
    const keys = [pvcKey('a-b', 'z'), pvcKey('a', 'b'), pvcKey('a', 'a.c'), pvcKey('a', 'a'), pvcKey('a', 'a-b')];
    for (const key of keys) storage.write({ type: 'create', key, object: objectFor(key) });
    await put(storage, pvKey('cluster-scoped'));
    const names = (objects: KubeObject[]) => objects.map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
    assert.deepEqual(names(storage.list('persistentvolumeclaims')), ['a/a', 'a/a-b', 'a/a.c', 'a/b', 'a-b/z']);
    assert.deepEqual(names(storage.list('persistentvolumeclaims', 'a-b')), ['a-b/z']);
    assert.deepEqual(storage.list('persistentvolumeclaims', 'nope'), []);
    assert.deepEqual(storage.list('storageclasses'), []);
    assert.deepEqual(storage.list('persistentvolumes').map((o) => o.metadata.name), ['cluster-scoped']);
  });

  test('count counts one resource across namespaces', async (t) => {
    const storage = await openFor(t, open);
    for (const ns of ['a', 'b', 'c']) storage.write({ type: 'create', key: pvcKey(ns, 'x'), object: objectFor(pvcKey(ns, 'x')) });
    await put(storage, pvKey('x'));
    assert.equal(storage.count('persistentvolumeclaims'), 3);
    assert.equal(storage.count('persistentvolumes'), 1);
    assert.equal(storage.count('storageclasses'), 0);
  });
}

function describeReplayAndSubscribe(open: OpenStore): void {
  test('changesSince replays ADDED, MODIFIED and DELETED with prev, optionally for one resource', async (t) => {
    const storage = await openFor(t, open);
    await put(storage, pvKey('v'), { phase: 'Pending' });
    await put(storage, pvcKey('ns', 'c'));
    await put(storage, pvKey('v'), { phase: 'Bound' });
    await storage.write({ type: 'delete', key: pvKey('v') }).durable;
    const all = storage.changesSince(0);
    assert.deepEqual(all.map((c) => [c.rv, c.type, c.key.resource]), [
      [1, 'ADDED', 'persistentvolumes'],
      [2, 'ADDED', 'persistentvolumeclaims'],
      [3, 'MODIFIED', 'persistentvolumes'],
      [4, 'DELETED', 'persistentvolumes'],
    ]);
    assert.equal(all[0].prev, undefined);
    assert.deepEqual(all[2].prev?.spec, { phase: 'Pending' });
    assert.equal(rvOf(all[2].prev), 1);
    const deleted = all[3];
    assert.equal(rvOf(deleted.object), 4, 'a DELETED object carries the deletion resourceVersion');
    assert.deepEqual(deleted.object.spec, { phase: 'Bound' });
    assert.equal(rvOf(deleted.prev), 3);
    assert.deepEqual(storage.changesSince(2, 'persistentvolumes').map((c) => c.rv), [3, 4]);
    assert.deepEqual(storage.changesSince(4), []);
  });

  test('a change reaches changesSince and subscribers only once it is durable', async (t) => {
    const storage = await openFor(t, open);
    const heard: number[] = [];
    t.after(storage.subscribe((c) => heard.push(c.rv)));
    const { change, durable } = storage.write({ type: 'create', key: pvKey('p'), object: objectFor(pvKey('p')) });
    assert.deepEqual(heard, []);
    assert.deepEqual(storage.changesSince(0), []);
    assert.equal(storage.stats().pendingWrites, 1);
    await durable;
    assert.deepEqual(heard, [change.rv]);
    assert.deepEqual(storage.changesSince(0).map((c) => c.rv), [change.rv]);
  });

  test('subscribers hear every change in resourceVersion order until they unsubscribe', async (t) => {
    const storage = await openFor(t, open);
    const first: number[] = [];
    const second: number[] = [];
    const stopFirst = storage.subscribe((c) => first.push(c.rv));
    t.after(storage.subscribe((c) => second.push(c.rv)));
    const durables = [];
    for (let i = 0; i < 20; i++) durables.push(storage.write({ type: 'create', key: pvKey(`p${i}`), object: objectFor(pvKey(`p${i}`)) }).durable);
    await Promise.all(durables);
    stopFirst();
    await put(storage, pvKey('late'));
    const expected = Array.from({ length: 20 }, (_, i) => i + 1);
    assert.deepEqual(first, expected);
    assert.deepEqual(second, [...expected, 21]);
  });

  test('a subscriber that throws does not keep the change from the others', async (t) => {
    const storage = await openFor(t, open);
    const heard: number[] = [];
    t.after(storage.subscribe(() => { throw new Error('listener bug'); }));
    t.after(storage.subscribe((c) => heard.push(c.rv)));
    await put(storage, pvKey('p'));
    assert.deepEqual(heard, [1]);
  });

  test('a watch that replays and subscribes in one stretch sees each change exactly once', async (t) => {
    const storage = await openFor(t, open);
    await put(storage, pvKey('before'));
    storage.write({ type: 'create', key: pvKey('in-flight'), object: objectFor(pvKey('in-flight')) });
    const seen = storage.changesSince(0).map((c) => c.rv);
    t.after(storage.subscribe((c) => seen.push(c.rv)));
    await put(storage, pvKey('after'));
    assert.deepEqual(seen, [1, 2, 3]);
  });

  test('changesSince from before the retained history throws ExpiredError (410)', async (t) => {
    const storage = await openFor(t, open, { retainChanges: 5 });
    for (let i = 0; i < 12; i++) await put(storage, pvKey(`p${i % 3}`), { i });
    assert.equal(storage.oldestRetainedRV(), 7);
    assert.deepEqual(storage.changesSince(7).map((c) => c.rv), [8, 9, 10, 11, 12]);
    assert.throws(() => storage.changesSince(6), (err: unknown) => err instanceof ExpiredError && err.code === 410);
    assert.throws(() => storage.changesSince(0, 'persistentvolumes'), ExpiredError);
  });
}

function describeContractAndCommit(open: OpenStore): void {
  test('writes that break the contract throw StorageInvariantError and use no resourceVersion', async (t) => {
    const storage = await openFor(t, open);
    await put(storage, pvKey('here'));
    const create = () => storage.write({ type: 'create', key: pvKey('here'), object: objectFor(pvKey('here')) });
    const update = () => storage.write({ type: 'update', key: pvKey('gone'), object: objectFor(pvKey('gone')) });
    const remove = () => storage.write({ type: 'delete', key: pvKey('gone') });
    for (const bad of [create, update, remove]) assert.throws(bad, StorageInvariantError);
    assert.equal(storage.currentRV(), 1);
  });

  test('stored objects and changes are frozen against mutation', async (t) => {
    const storage = await openFor(t, open);
    const { change, durable } = storage.write({ type: 'create', key: pvKey('f'), object: objectFor(pvKey('f'), { a: { b: 1 } }) });
    await durable;
    const stored = storage.get(pvKey('f'))!;
    assert.throws(() => { stored.metadata.name = 'other'; }, TypeError);
    assert.throws(() => { (stored.spec as { a: { b: number } }).a.b = 2; }, TypeError);
    assert.throws(() => { change.rv = 99; }, TypeError);
  });

  test('writes issued in one synchronous stretch share one commit', async (t) => {
    const storage = await openFor(t, open);
    const before = storage.stats();
    const durables = [];
    for (let i = 0; i < 200; i++) durables.push(storage.write({ type: 'create', key: pvKey(`p${i}`), object: objectFor(pvKey(`p${i}`)) }).durable);
    await Promise.all(durables);
    const after = storage.stats();
    assert.equal(after.commits - before.commits, 1);
    assert.equal(after.committedWrites - before.committedWrites, 200);
    assert.equal(after.pendingWrites, 0);
  });

  test('a commit holds at most maxBatch writes', async (t) => {
    const storage = await openFor(t, open, { maxBatch: 10 });
    const durables = [];
    for (let i = 0; i < 25; i++) durables.push(storage.write({ type: 'create', key: pvKey(`p${i}`), object: objectFor(pvKey(`p${i}`)) }).durable);
    await Promise.all(durables);
    assert.equal(storage.stats().commits, 3);
    assert.equal(storage.stats().committedWrites, 25);
  });

  test('close makes pending writes durable first and refuses writes afterwards', async () => {
    const storage = await open({});
    const { durable } = storage.write({ type: 'create', key: pvKey('last'), object: objectFor(pvKey('last')) });
    await storage.close();
    await durable;
    assert.equal(storage.stats().committedWrites, 1);
    assert.throws(() => storage.write({ type: 'delete', key: pvKey('last') }), StorageClosedError);
    await storage.close();
  });
}
