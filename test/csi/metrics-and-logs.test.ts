import { test } from 'node:test';
import assert from 'node:assert/strict';
import { status } from '@grpc/grpc-js';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { connectCsi, CsiCallMetrics } from '../../src/csi/client.js';
import { FakeCsiDriver, FakeCsiError } from './fake-driver.js';
import { lineCollector, withDriver } from './harness.js';

interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

async function counts(registry: Registry): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const metric of await registry.getMetricsAsJSON()) {
    for (const v of metric.values as Sample[]) {
      if (v.metricName !== 'csi_sidecar_operations_seconds_count') continue;
      out.set(`${v.labels.driver_name} ${v.labels.method_name} ${v.labels.grpc_status_code}`, v.value);
    }
  }
  return out;
}

test("every call is observed in the sidecars' csi_sidecar_operations_seconds, the driver named once GetPluginInfo answered", async () => {
  const driver = await FakeCsiDriver.start({ name: 'metrics.csi.test' });
  const registry = new Registry();
  const metrics = new CsiCallMetrics(registry);
  const conn = await connectCsi(driver.socketPath, { metrics });
  const second = await connectCsi(driver.socketPath, { metrics });
  try {
    await conn.identity.probe();
    await conn.identity.getPluginInfo();
    driver.handle('DeleteVolume', () => {
      throw new FakeCsiError(status.INVALID_ARGUMENT, 'bad id');
    });
    await assert.rejects(conn.controller.deleteVolume({ volumeId: 'x', secrets: {} }));
    await second.identity.probe();
    assert.deepEqual(
      await counts(registry),
      new Map([
        ['unknown-driver /csi.v1.Identity/Probe OK', 2],
        ['unknown-driver /csi.v1.Identity/GetPluginInfo OK', 1],
        ['metrics.csi.test /csi.v1.Controller/DeleteVolume InvalidArgument', 1],
      ]),
    );
    const text = await registry.metrics();
    assert.match(text, /# TYPE csi_sidecar_operations_seconds histogram/);
    assert.match(text, /csi_sidecar_operations_seconds_bucket\{le="600",driver_name="metrics.csi.test",method_name="\/csi.v1.Controller\/DeleteVolume",grpc_status_code="InvalidArgument"\} 1/);
    assert.deepEqual(await new Registry().getMetricsAsJSON(), [], 'nothing is registered anywhere else');
  } finally {
    conn.close();
    second.close();
    await driver.stop();
  }
});

test('each call is logged at debug with method, duration and code, and secrets never reach the log', async () => {
  const { out, lines } = lineCollector();
  await withDriver(async ({ driver, conn }) => {
    const volume = await conn.controller.createVolume({
      name: 'pv-secret',
      volumeCapabilities: [{ mount: {}, accessMode: 'SINGLE_NODE_WRITER' }],
      parameters: { type: 'gold' },
      secrets: { password: 'hunter2-create' },
    });
    await conn.controller.deleteVolume({ volumeId: volume.volumeId, secrets: { password: 'hunter2-delete' } });
    await assert.rejects(conn.controller.expandVolume({ volumeId: 'missing', capacityRange: { requiredBytes: 1n }, secrets: { token: 'hunter2-expand' } }));
    assert.equal(driver.callsOf('CreateVolume')[0].request.secrets instanceof Object, true);
    assert.deepEqual(driver.callsOf('CreateVolume')[0].request.secrets, { password: 'hunter2-create' }, 'the driver got the secret');
    assert.equal(lines.length, 3);
    for (const line of lines) assert.doesNotMatch(line, /hunter2/);
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(
      records.map((r) => [r.level, r.msg, r.method, r.code, typeof r.durationMs, r.csiSocket]),
      [
        [20, 'CSI call', '/csi.v1.Controller/CreateVolume', 'OK', 'number', driver.socketPath],
        [20, 'CSI call', '/csi.v1.Controller/DeleteVolume', 'OK', 'number', driver.socketPath],
        [20, 'CSI call', '/csi.v1.Controller/ControllerExpandVolume', 'NOT_FOUND', 'number', driver.socketPath],
      ],
    );
    assert.deepEqual((records[0].request as Record<string, unknown>).secrets, '***stripped***');
    assert.deepEqual((records[0].request as Record<string, unknown>).parameters, { type: 'gold' });
  }, {}, { logger: pino({ level: 'debug' }, out) });
});

test('at info level nothing is logged per call', async () => {
  const { out, lines } = lineCollector();
  await withDriver(async ({ conn }) => {
    await conn.identity.probe();
    assert.deepEqual(lines, []);
  }, {}, { logger: pino({ level: 'info' }, out) });
});
