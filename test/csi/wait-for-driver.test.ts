import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { Registry } from 'prom-client';
import { connectCsi, CsiCallMetrics, waitForDriver } from '../../src/csi/client.js';
import { DriverNotReadyError } from '../../src/csi/wait-for-driver.js';
import type { CsiConnection } from '../../src/csi/types.js';
import { waitFor } from '../helpers/wait.js';
import { FakeCsiDriver, FakeCsiError } from './fake-driver.js';
import { withDriver } from './harness.js';

/** How many Probe calls the metrics saw end with `code` (Go's name). */
async function probes(registry: Registry, code: string): Promise<number> {
  const [metric] = await registry.getMetricsAsJSON();
  const values = (metric?.values ?? []) as Array<{ labels: Record<string, string | number>; value: number; metricName?: string }>;
  return values
    .filter((v) => v.metricName === 'csi_sidecar_operations_seconds_count' && v.labels.method_name === '/csi.v1.Identity/Probe' && v.labels.grpc_status_code === code)
    .reduce((sum, v) => sum + v.value, 0);
}

async function withSocketDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'csi-wait-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('waitForDriver started before the socket exists waits through UNAVAILABLE and returns the driver once it listens', async () => {
  await withSocketDir(async (dir) => {
    const socketPath = join(dir, 'csi.sock');
    const registry = new Registry();
    const conn = await connectCsi(socketPath, { metrics: new CsiCallMetrics(registry) });
    let driver: FakeCsiDriver | undefined;
    try {
      const waiting = waitForDriver(conn, { deadlineMs: 30_000 });
      await waitFor(async () => (await probes(registry, 'Unavailable')) >= 1, 'a Probe to fail while the socket is missing');
      driver = await FakeCsiDriver.start({ socketPath, name: 'late.csi.test' });
      const info = await waiting;
      assert.equal(info.name, 'late.csi.test');
      assert.ok(driver.callsOf('Probe').length >= 1);
      assert.equal(driver.callsOf('GetPluginInfo').length, 1);
    } finally {
      conn.close();
      await driver?.stop();
    }
  });
});

test('waitForDriver probes again while the driver answers ready=false, and returns once it is ready', async () => {
  await withDriver(
    async ({ driver, conn }) => {
      driver.state.ready = false;
      const waiting = waitForDriver(conn, { deadlineMs: 30_000 });
      await waitFor(() => driver.callsOf('Probe').length >= 2, 'two Probe calls answered not ready');
      assert.equal(driver.callsOf('GetPluginInfo').length, 0);
      driver.state.ready = true;
      assert.equal((await waiting).name, 'slow-start.csi.test');
    },
    { name: 'slow-start.csi.test' },
  );
});

test('waitForDriver takes an unset ready as ready, as the spec says', async () => {
  await withDriver(async ({ driver, conn }) => {
    driver.state.ready = undefined;
    assert.equal((await waitForDriver(conn, { deadlineMs: 10_000 })).name, driver.state.name);
    assert.equal(driver.callsOf('Probe').length, 1);
  });
});

test('waitForDriver past its deadline fails with an error naming the socket and what it last heard', async () => {
  await withSocketDir(async (dir) => {
    const socketPath = join(dir, 'never.sock');
    const conn = await connectCsi(socketPath);
    try {
      await assert.rejects(waitForDriver(conn, { deadlineMs: 300 }), (err: unknown) => {
        assert.ok(err instanceof DriverNotReadyError);
        assert.ok(err.message.includes(`the CSI driver at ${socketPath} was not ready within 300 ms`), err.message);
        assert.match(err.message, /UNAVAILABLE/);
        return true;
      });
    } finally {
      conn.close();
    }
  });
});

test('waitForDriver stops at once on a final error from Probe', async () => {
  await withDriver(async ({ driver, conn }) => {
    driver.handle('Probe', () => {
      throw new FakeCsiError(status.FAILED_PRECONDITION, 'disk pool missing');
    });
    await assert.rejects(waitForDriver(conn, { deadlineMs: 30_000 }), /CSI driver at .* failed: .*FAILED_PRECONDITION: disk pool missing/);
    assert.equal(driver.callsOf('Probe').length, 1);
  });
});

test('waitForDriver stops when its signal aborts', async () => {
  await withSocketDir(async (dir) => {
    const conn: CsiConnection = await connectCsi(join(dir, 'absent.sock'));
    const abort = new AbortController();
    try {
      const waiting = waitForDriver(conn, { deadlineMs: 60_000, signal: abort.signal });
      abort.abort();
      await assert.rejects(waiting, (err: unknown) => err instanceof DriverNotReadyError && /was aborted/.test(err.message));
    } finally {
      conn.close();
    }
  });
});
