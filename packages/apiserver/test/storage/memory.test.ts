import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { MemoryStorage, openStorage } from '@pv-controller/apiserver/storage/index.js';
import { objectFor, pvKey, storageConformance } from './conformance.js';

const silent = pino({ level: 'silent' });

storageConformance('memory', async (options) => openStorage({ kind: 'memory', logger: silent, freezeObjects: true, ...options }));

test('memory storage keeps the last 10,000 changes by default', async () => {
  const storage = new MemoryStorage({ logger: silent });
  let last: Promise<void> = Promise.resolve();
  for (let i = 0; i < 10_005; i++) last = storage.write({ type: 'create', key: pvKey(`p${i}`), object: objectFor(pvKey(`p${i}`)) }).durable;
  await last;
  assert.equal(storage.oldestRetainedRV(), 5);
  assert.equal(storage.changesSince(5).length, 10_000);
  await storage.close();
});

test('memory storage can hand out unfrozen objects when asked to', async () => {
  const storage = new MemoryStorage({ logger: silent, freezeObjects: false });
  await storage.write({ type: 'create', key: pvKey('p'), object: objectFor(pvKey('p')) }).durable;
  assert.equal(Object.isFrozen(storage.get(pvKey('p'))), false);
  await storage.close();
});
