/**
 * A driver that goes away while a call is in flight — the moment a CreateVolume may or may not
 * have taken effect — must leave the caller with an in-progress failure, never a final one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { connectCsi, waitForDriver } from '../../src/csi/client.js';
import { CsiCallError } from '../../src/csi/types.js';
import { hangUntilCancelled } from './fake-driver.js';
import { withDriver } from './harness.js';

const MAIN = fileURLToPath(new URL('./fake-driver-main.js', import.meta.url));
const request = { name: 'pv-1', volumeCapabilities: [{ mount: {}, accessMode: 'SINGLE_NODE_WRITER' as const }], parameters: {}, secrets: {} };

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

test('a driver process killed during CreateVolume leaves the caller an in-progress failure naming the socket', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'csi-dies-'));
  const socketPath = join(dir, 'csi.sock');
  const child = spawn(process.execPath, [MAIN, socketPath, '--hang', 'CreateVolume'], { detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const nextLine = async (matches: (line: string) => boolean): Promise<string> => {
    for (let r = await lines.next(); !r.done; r = await lines.next()) if (matches(r.value)) return r.value;
    throw new Error('the fake driver exited');
  };
  const conn = await connectCsi(socketPath);
  try {
    await nextLine((l) => l.startsWith('listening '));
    await waitForDriver(conn, { deadlineMs: 20_000 });
    const pending = conn.controller.createVolume(request);
    await nextLine((l) => l.includes('"call":"CreateVolume"'));
    signalGroup(child.pid ?? 0, 'SIGKILL');
    await assert.rejects(pending, (err: unknown) => {
      assert.ok(err instanceof CsiCallError);
      assert.equal(err.kind, 'in-progress', err.message);
      assert.ok(err.message.includes(socketPath), err.message);
      return true;
    });
  } finally {
    conn.close();
    if (child.exitCode === null && child.signalCode === null) {
      signalGroup(child.pid ?? 0, 'SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  }
});

test('a driver that shuts down during a call leaves the caller an in-progress failure', async () => {
  await withDriver(async ({ driver, conn }) => {
    driver.handle('CreateVolume', hangUntilCancelled);
    const failure = conn.controller.createVolume(request).then(
      () => assert.fail('CreateVolume answered'),
      (err: unknown) => err,
    );
    await driver.waitForCall('CreateVolume');
    await driver.stop();
    const err = await failure;
    assert.ok(err instanceof CsiCallError && err.kind === 'in-progress', String(err));
  });
});
