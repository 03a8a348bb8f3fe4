/**
 * kill -9 in the middle of a write load loses nothing that was acknowledged: a child process
 * (crash-writer.js) prints each write only after its `durable` resolved; we SIGKILL it while it
 * is writing, reopen the directory and look for every acknowledged write.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { SqliteStorage } from '@pv-controller/apiserver/storage/sqlite.js';

const WRITER = fileURLToPath(new URL('./crash-writer.js', import.meta.url));
const ACKS_BEFORE_KILL = 2_000;
const DEADLINE_MS = 60_000;

interface Ack {
  kind: 'C' | 'U';
  rv: number;
  n: number;
}

function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

/** Collects complete stdout lines; resolves once `count` lines arrived (or rejects on exit/deadline). */
function collectAcks(child: ChildProcess, acks: Ack[], count: number): Promise<void> {
  let partial = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${acks.length} acks within ${DEADLINE_MS} ms`)), DEADLINE_MS);
    child.stdout!.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop()!; // a line cut by the kill was never fully acknowledged
      for (const line of lines) {
        const [kind, rv, n] = line.split(' ');
        acks.push({ kind: kind as Ack['kind'], rv: Number(rv), n: Number(n) });
      }
      if (acks.length >= count) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (acks.length < count) reject(new Error(`writer exited early (${code ?? signal}): ${stderr}`));
    });
  });
}

test('kill -9 during a write load loses no acknowledged write and resourceVersions continue', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'h1-crash-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const child = spawn(process.execPath, [WRITER, dir], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => killGroup(child));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));

  const acks: Ack[] = [];
  await collectAcks(child, acks, ACKS_BEFORE_KILL);
  killGroup(child);
  await exited; // every line it managed to print is in `acks` now

  const storage = SqliteStorage.open(dir, { logger: pino({ level: 'silent' }), lockTimeoutMs: 0 });
  t.after(() => storage.close());
  const creates = acks.filter((a) => a.kind === 'C');
  const counterUpdates = acks.filter((a) => a.kind === 'U');
  assert.ok(creates.length >= ACKS_BEFORE_KILL / 2 && counterUpdates.length > 0);
  for (const ack of creates) {
    const object = storage.get({ resource: 'things', namespace: 'crash', name: `obj-${ack.n}` });
    assert.ok(object, `acknowledged obj-${ack.n} (rv ${ack.rv}) is missing after the crash`);
    assert.equal(Number(object.metadata.resourceVersion), ack.rv);
    assert.deepEqual(object.spec, { n: ack.n });
  }
  const lastCount = counterUpdates[counterUpdates.length - 1];
  const counter = storage.get({ resource: 'counters', namespace: 'crash', name: 'counter' });
  assert.ok(Number(counter?.metadata.resourceVersion) >= lastCount.rv);
  assert.ok((counter?.spec as { count: number }).count >= lastCount.n);

  const highestAck = Math.max(...acks.map((a) => a.rv));
  assert.ok(storage.currentRV() >= highestAck);
  const next = storage.write({ type: 'create', key: { resource: 'things', namespace: 'crash', name: 'after' }, object: { metadata: { name: 'after' } } });
  assert.ok(next.change.rv > highestAck);
  await next.durable;
});
