import { after, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { ExpiredError } from '@pv-controller/kube/errors.js';
import {
  openStorage,
  SQLITE_FILE,
  SqliteStorage,
  StorageCommitError,
  StorageLockedError,
  type SqliteStorageOptions,
} from '@pv-controller/apiserver/storage/index.js';
import type { Change } from '@pv-controller/apiserver/storage/storage.js';
import { objectFor, pvKey, pvcKey, rvOf, storageConformance } from './conformance.js';

const silent = pino({ level: 'silent' });
const tempDirs: string[] = [];
after(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'h1-storage-'));
  tempDirs.push(dir);
  return dir;
}

storageConformance('sqlite', async (options) =>
  openStorage({ kind: 'sqlite', dir: tempDir(), logger: silent, freezeObjects: true, ...options }),
);

function openIn(t: TestContext, dir: string, options: SqliteStorageOptions = {}): SqliteStorage {
  const storage = SqliteStorage.open(dir, { logger: silent, lockTimeoutMs: 0, ...options });
  t.after(() => storage.close());
  return storage;
}

/** A mix of creates, updates and deletes over two resources; returns when all are durable. */
async function writeHistory(storage: SqliteStorage, rounds: number): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    const durables = [
      storage.write({ type: 'create', key: pvKey(`pv-${i}`), object: objectFor(pvKey(`pv-${i}`), { i }) }).durable,
      storage.write({ type: 'create', key: pvcKey(`ns-${i % 3}`, `c-${i}`), object: objectFor(pvcKey(`ns-${i % 3}`, `c-${i}`)) }).durable,
    ];
    if (i > 0) durables.push(storage.write({ type: 'update', key: pvKey(`pv-${i - 1}`), object: objectFor(pvKey(`pv-${i - 1}`), { i, bound: true }) }).durable);
    if (i > 1) durables.push(storage.write({ type: 'delete', key: pvcKey(`ns-${(i - 2) % 3}`, `c-${i - 2}`) }).durable);
    await Promise.all(durables);
  }
}

const snapshot = (storage: SqliteStorage) => ({
  rv: storage.currentRV(),
  pvs: storage.list('persistentvolumes'),
  pvcs: storage.list('persistentvolumeclaims'),
  counts: [storage.count('persistentvolumes'), storage.count('persistentvolumeclaims')],
});

test('reopening keeps every object and continues resourceVersions', async (t) => {
  const dir = tempDir();
  const first = SqliteStorage.open(dir, { logger: silent });
  await writeHistory(first, 20);
  const before = snapshot(first);
  await first.close();
  const second = openIn(t, dir);
  assert.deepEqual(snapshot(second), before);
  const { change } = second.write({ type: 'create', key: pvKey('after-restart'), object: objectFor(pvKey('after-restart')) });
  assert.equal(change.rv, before.rv + 1);
});

test('changes from before a restart can still be replayed, with their previous versions', async (t) => {
  const dir = tempDir();
  const first = SqliteStorage.open(dir, { logger: silent });
  await writeHistory(first, 10);
  const history: Change[] = first.changesSince(0);
  await first.close();
  const second = openIn(t, dir);
  assert.equal(second.oldestRetainedRV(), 0);
  assert.deepEqual(second.changesSince(0), history);
  assert.ok(history.some((c) => c.type === 'DELETED') && history.some((c) => c.type === 'MODIFIED'));
});

test('compaction trims the log on disk but keeps every current object', async (t) => {
  const dir = tempDir();
  const first = SqliteStorage.open(dir, { logger: silent, retainChanges: 8, compactEvery: 4 });
  await writeHistory(first, 30);
  assert.ok(first.compactionCount() > 0);
  const before = snapshot(first);
  const replay = first.changesSince(first.oldestRetainedRV());
  await first.close();

  const raw = new Database(join(dir, SQLITE_FILE), { readonly: true });
  const rows = (raw.prepare('SELECT COUNT(*) AS n FROM changes').get() as { n: number }).n;
  raw.close();
  assert.ok(rows < before.rv / 2, `${rows} rows left of ${before.rv} changes`);

  const second = openIn(t, dir, { retainChanges: 8 });
  assert.deepEqual(snapshot(second), before);
  assert.ok(second.oldestRetainedRV() > 0);
  assert.throws(() => second.changesSince(0), ExpiredError);
  const tail = replay.slice(-second.changesSince(second.oldestRetainedRV()).length);
  assert.deepEqual(second.changesSince(second.oldestRetainedRV()), tail);
  assert.ok(tail.every((c) => c.type === 'ADDED' || rvOf(c.prev) > 0), 'every replayed change has its prev');
});

test('writes from separate callbacks of one event-loop turn share one transaction', async (t) => {
  const storage = openIn(t, tempDir());
  const durables: Promise<void>[] = [];
  const callbacks = Array.from({ length: 20 }, (_, i) => new Promise<void>((resolve) => setImmediate(() => {
    durables.push(storage.write({ type: 'create', key: pvKey(`p${i}`), object: objectFor(pvKey(`p${i}`)) }).durable);
    resolve();
  })));
  await Promise.all(callbacks);
  await Promise.all(durables);
  assert.equal(storage.stats().commits, 1);
  assert.equal(storage.stats().committedWrites, 20);
});

test('opening creates a missing data directory', async (t) => {
  const dir = join(tempDir(), 'nested', 'data');
  const storage = openIn(t, dir);
  await storage.write({ type: 'create', key: pvKey('p'), object: objectFor(pvKey('p')) }).durable;
  assert.equal(storage.file, join(dir, SQLITE_FILE));
});

test('a second open of a directory in use fails with StorageLockedError', async (t) => {
  const dir = tempDir();
  openIn(t, dir);
  assert.throws(() => SqliteStorage.open(dir, { logger: silent, lockTimeoutMs: 0 }), StorageLockedError);
});

test('a failed commit rejects the whole batch, undoes it in memory and logs an error', async (t) => {
  const dir = tempDir();
  await SqliteStorage.open(dir, { logger: silent }).close();
  const raw = new Database(join(dir, SQLITE_FILE));
  raw.exec("CREATE TRIGGER poison BEFORE INSERT ON changes WHEN NEW.name LIKE 'poison%' BEGIN SELECT RAISE(ABORT, 'injected fault'); END");
  raw.close();

  const logged: string[] = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => void logged.push(line) });
  const storage = openIn(t, dir, { logger });
  const heard: number[] = [];
  t.after(storage.subscribe((c) => heard.push(c.rv)));
  const good = storage.write({ type: 'create', key: pvKey('fine'), object: objectFor(pvKey('fine')) });
  const bad = storage.write({ type: 'create', key: pvKey('poison'), object: objectFor(pvKey('poison')) });
  assert.ok(storage.get(pvKey('fine')));
  await assert.rejects(good.durable, StorageCommitError);
  await assert.rejects(bad.durable, (err: unknown) => err instanceof StorageCommitError && err.code === 500);
  assert.equal(storage.get(pvKey('fine')), undefined);
  assert.equal(storage.get(pvKey('poison')), undefined);
  assert.deepEqual(heard, []);
  assert.deepEqual(storage.changesSince(0), []);
  assert.equal(storage.stats().failedCommits, 1);
  assert.match(logged.join(''), /storage commit failed/);

  const later = storage.write({ type: 'create', key: pvKey('fine'), object: objectFor(pvKey('fine')) });
  await later.durable;
  assert.ok(later.change.rv > bad.change.rv, 'resourceVersions are not reused after a failed commit');
  assert.deepEqual(heard, [later.change.rv]);
});
