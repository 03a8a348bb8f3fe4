/**
 * The garbage collector's work for a change is proportional to what changed: with owners waiting
 * on foreground deletion, a change to an object that names none of them costs it nothing more
 * than it does with no owner waiting (counted as storage reads, not timed).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { GarbageCollector } from '@pv-controller/apiserver/controllers/garbage-collection.js';
import { Registry } from '@pv-controller/apiserver/registry/registry.js';
import { openStorage } from '@pv-controller/apiserver/storage/index.js';
import type { Storage } from '@pv-controller/apiserver/storage/storage.js';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { waitFor } from '../../../test/helpers/wait.js';
import { fakeStrategies, widgets } from './fake-strategies.js';
import { create, update } from './request-writes.js';

/** A storage whose reads are counted: every object a list or walk hands out, and every get. */
function counting(storage: Storage): { storage: Storage; reads: () => number } {
  let reads = 0;
  const counted: Storage = Object.create(storage) as Storage;
  counted.get = (key) => {
    reads++;
    return storage.get(key);
  };
  counted.list = (resource, namespace) => {
    const out = storage.list(resource, namespace);
    reads += out.length;
    return out;
  };
  counted.walkAfter = (resource, namespace, after, take) =>
    storage.walkAfter(resource, namespace, after, (obj) => {
      reads++;
      return take(obj);
    });
  return { storage: counted, reads: () => reads };
}

const widget = (name: string, owner?: { name: string; uid: string; block?: boolean }, finalizers?: string[]): KubeObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: {
    name,
    finalizers,
    ownerReferences: owner && [{ apiVersion: 'example.com/v1', kind: 'Widget', name: owner.name, uid: owner.uid, blockOwnerDeletion: owner.block }],
  },
  spec: { size: 1 },
});

/** Storage reads during 100 updates of owned objects, with `waiting` owners held in foreground deletion among 500 other objects. */
async function readsFor100Updates(waiting: number): Promise<number> {
  const { storage, reads } = counting(await openStorage({ kind: 'memory' }));
  const reg = new Registry({ storage, strategies: fakeStrategies });
  const gc = new GarbageCollector(reg, pino({ level: 'silent' }));
  gc.start();
  try {
    const live = (await create(reg, widgets, '', widget('live'))).object.metadata.uid!;
    for (let i = 0; i < 500; i++) await create(reg, widgets, '', widget(`other-${i}`, i < 100 ? { name: 'live', uid: live } : undefined));
    for (let i = 0; i < waiting; i++) {
      const uid = (await create(reg, widgets, '', widget(`owner-${i}`))).object.metadata.uid!;
      await create(reg, widgets, '', widget(`held-${i}`, { name: `owner-${i}`, uid, block: true }, ['example.com/hold']));
      await reg.delete(widgets, '', `owner-${i}`, { propagationPolicy: 'Foreground' });
    }
    for (let i = 0; i < waiting; i++) {
      await waitFor(() => storage.get(reg.keyOf(widgets, '', `held-${i}`))?.metadata.deletionTimestamp !== undefined, `held-${i} to be deleted`);
    }
    await turns(5);
    const start = reads();
    for (let i = 0; i < 100; i++) {
      const current = storage.get(reg.keyOf(widgets, '', `other-${i}`))!;
      await update(reg, widgets, '', `other-${i}`, { ...current, spec: { size: 2 } });
    }
    await turns(5);
    return reads() - start;
  } finally {
    gc.stop();
    await storage.close();
  }
}

/** Lets scheduled collections run (each is set off on setImmediate). */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

test('100 updates of owned objects cost the garbage collector no more with 100 owners waiting on foreground deletion than with none', async () => {
  const base = await readsFor100Updates(0);
  const loaded = await readsFor100Updates(100);
  assert.ok(loaded - base <= 100, `storage reads for 100 updates: ${base} with no owner waiting, ${loaded} with 100 waiting`);
});
