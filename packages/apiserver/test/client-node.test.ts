import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ApiException,
  CoreV1Api,
  PatchStrategy,
  setHeaderOptions,
  StorageV1Api,
  Watch,
  type V1PersistentVolume,
} from '@kubernetes/client-node';
import { type TestApiServer, withTestApiServer as withServer } from '../../../test/helpers/apiserver.js';

function pv(name: string, size = '1Gi'): V1PersistentVolume {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name },
    spec: { capacity: { storage: size }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/tmp/${name}` } },
  };
}

interface Seen {
  type: string;
  obj: { metadata?: { name?: string; resourceVersion?: string }; code?: number; reason?: string };
}

/** Opens a client-node watch and collects its events. */
async function collect(t: TestApiServer, path: string, query: Record<string, string>): Promise<{ events: Seen[]; done: Promise<unknown>; abort(): void }> {
  const events: Seen[] = [];
  let finish: (err: unknown) => void = () => {};
  const done = new Promise((resolve) => (finish = resolve));
  const ctl = await new Watch(t.kc).watch(path, query, (type, obj) => events.push({ type, obj }), (err) => finish(err));
  return { events, done, abort: () => ctl.abort() };
}

async function until(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('client-node creates, lists and reads PVs with server-filled metadata and defaults', () =>
  withServer(async (t) => {
    const core = t.kc.makeApiClient(CoreV1Api);
    const created = await core.createPersistentVolume({ body: pv('pv1') });
    assert.ok(created.metadata?.uid);
    assert.equal(created.spec?.persistentVolumeReclaimPolicy, 'Retain');
    assert.equal(created.status?.phase, 'Pending');
    const list = await core.listPersistentVolume();
    assert.deepEqual(list.items.map((p) => p.metadata?.name), ['pv1']);
    assert.ok(Number(list.metadata?.resourceVersion) >= Number(created.metadata?.resourceVersion));
    const read = await core.readPersistentVolume({ name: 'pv1' });
    assert.equal(read.metadata?.resourceVersion, created.metadata?.resourceVersion);
  }));

test('client-node: a stale replace is an ApiException 409 whose body is the Conflict Status', () =>
  withServer(async (t) => {
    const core = t.kc.makeApiClient(CoreV1Api);
    const v1 = await core.createPersistentVolume({ body: pv('pv1') });
    const v2 = await core.replacePersistentVolume({ name: 'pv1', body: { ...v1, metadata: { ...v1.metadata, labels: { a: 'b' } } } });
    assert.notEqual(v2.metadata?.resourceVersion, v1.metadata?.resourceVersion);
    await assert.rejects(core.replacePersistentVolume({ name: 'pv1', body: { ...v1, metadata: { ...v1.metadata, labels: { a: 'c' } } } }), (err: unknown) => {
      assert.ok(err instanceof ApiException);
      assert.equal(err.code, 409);
      const status = JSON.parse(err.body as string);
      assert.equal(status.reason, 'Conflict');
      assert.equal(status.details.kind, 'persistentvolumes');
      assert.match(status.message, /^Operation cannot be fulfilled on persistentvolumes "pv1": the object has been modified/);
      return true;
    });
    await assert.rejects(core.readPersistentVolume({ name: 'nope' }), (err: unknown) => err instanceof ApiException && err.code === 404);
  }));

test('client-node patches with JSON patch (its default), merge patch and the status subresource', () =>
  withServer(async (t) => {
    const core = t.kc.makeApiClient(CoreV1Api);
    await core.createPersistentVolume({ body: pv('pv1') });
    const jsonPatched = await core.patchPersistentVolume({ name: 'pv1', body: [{ op: 'add', path: '/metadata/labels', value: { tier: 'gold' } }] });
    assert.equal(jsonPatched.metadata?.labels?.tier, 'gold');
    const merged = await core.patchPersistentVolume(
      { name: 'pv1', body: { metadata: { annotations: { note: 'x' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    assert.equal(merged.metadata?.annotations?.note, 'x');
    const status = await core.patchPersistentVolumeStatus(
      { name: 'pv1', body: { status: { phase: 'Available' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    assert.equal(status.status?.phase, 'Available');
    const storage = t.kc.makeApiClient(StorageV1Api);
    await storage.createStorageClass({ body: { metadata: { name: 'gold' }, provisioner: 'example.com/p' } });
    assert.equal((await storage.readStorageClass({ name: 'gold' })).reclaimPolicy, 'Delete');
  }));

test('client-node Watch replays from a resourceVersion and then sees live changes', () =>
  withServer(async (t) => {
    const core = t.kc.makeApiClient(CoreV1Api);
    const first = await core.createPersistentVolume({ body: pv('pv1') });
    await core.createPersistentVolume({ body: pv('pv2') });
    const w = await collect(t, '/api/v1/persistentvolumes', { resourceVersion: first.metadata!.resourceVersion! });
    await until(() => w.events.length >= 1, 'the replayed ADDED');
    assert.deepEqual([w.events[0].type, w.events[0].obj.metadata?.name], ['ADDED', 'pv2']);
    await core.deletePersistentVolume({ name: 'pv1' });
    await until(() => w.events.length >= 2, 'the live event');
    assert.equal(w.events[1].type, 'MODIFIED', 'pv-protection holds the PV: deletionTimestamp set');
    w.abort();
  }));

test('client-node Watch from a compacted resourceVersion gets ERROR 410 and the stream ends', () =>
  withServer(
    async (t) => {
      const core = t.kc.makeApiClient(CoreV1Api);
      for (let i = 0; i < 6; i++) await core.createPersistentVolume({ body: pv(`pv${i}`) });
      const w = await collect(t, '/api/v1/persistentvolumes', { resourceVersion: '1' });
      await w.done;
      assert.equal(w.events.length, 1);
      assert.equal(w.events[0].type, 'ERROR');
      assert.equal(w.events[0].obj.code, 410);
      assert.equal(w.events[0].obj.reason, 'Expired');
    },
    { retainChanges: 2 },
  ));
