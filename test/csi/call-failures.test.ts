/**
 * How a failed CSI call reaches its caller, through a real unix socket: every gRPC code as a
 * CsiCallError of the right kind, the deadline and the abort as in-progress failures the driver
 * sees cancelled, an unreachable socket named in the error, and a response the client cannot
 * read as in-progress (the driver may have done it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { connectCsi } from '../../src/csi/client.js';
import { CsiCallError, type CsiFailureKind } from '../../src/csi/types.js';
import { waitFor } from '../helpers/wait.js';
import { FakeCsiError, hangUntilCancelled } from './fake-driver.js';
import { driverPerFile } from './harness.js';

const csi = driverPerFile();

const deleteRequest = { volumeId: 'vol-1', secrets: {} };

function isCallError(expected: { code: number; kind: CsiFailureKind; method?: string; details?: RegExp }) {
  return (err: unknown): boolean => {
    assert.ok(err instanceof CsiCallError, `a CsiCallError, got ${String(err)}`);
    assert.equal(err.codeName, status[expected.code]);
    assert.equal(err.code, expected.code);
    assert.equal(err.kind, expected.kind);
    if (expected.method) assert.equal(err.method, expected.method);
    if (expected.details) assert.match(err.details, expected.details);
    return true;
  };
}

test('every gRPC code the driver answers becomes a CsiCallError: in-progress for the five unknown-outcome codes, final for the rest', async () => {
  const inProgress = new Set([status.CANCELLED, status.DEADLINE_EXCEEDED, status.UNAVAILABLE, status.ABORTED, status.RESOURCE_EXHAUSTED]);
  for (let code = 1; code <= 16; code++) {
    csi.driver.handle('DeleteVolume', () => {
      throw new FakeCsiError(code, `driver says ${code}`);
    });
    const kind: CsiFailureKind = inProgress.has(code) ? 'in-progress' : 'final';
    await assert.rejects(
      csi.conn.controller.deleteVolume(deleteRequest),
      isCallError({ code, kind, method: '/csi.v1.Controller/DeleteVolume', details: new RegExp(`driver says ${code}`) }),
    );
  }
});

test('a call past its deadline is DEADLINE_EXCEEDED, in-progress, and the driver sees it cancelled', async () => {
  csi.driver.handle('CreateVolume', hangUntilCancelled);
  const req = { name: 'pv-slow', volumeCapabilities: [{ mount: {}, accessMode: 'SINGLE_NODE_WRITER' as const }], parameters: {}, secrets: {} };
  await assert.rejects(csi.conn.controller.createVolume(req, { timeoutMs: 200 }), isCallError({ code: status.DEADLINE_EXCEEDED, kind: 'in-progress' }));
  const call = await csi.driver.waitForCall('CreateVolume');
  await waitFor(() => call.cancelled, 'the driver to see the call cancelled');
});

test('every call carries a deadline: the connection default, or the per-call one', async () => {
  const started = Date.now();
  await csi.conn.identity.probe();
  await csi.conn.identity.probe({ timeoutMs: 1_000 });
  const [byDefault, perCall] = csi.driver.callsOf('Probe');
  assert.ok(byDefault.deadline >= started + 25_000 && byDefault.deadline <= Date.now() + 30_000, `default deadline ${byDefault.deadline - started} ms out`);
  assert.ok(perCall.deadline <= Date.now() + 1_000, `per-call deadline ${perCall.deadline - started} ms out`);
});

test('an aborted call is CANCELLED, in-progress, and the driver sees the cancel', async () => {
  csi.driver.handle('ControllerExpandVolume', hangUntilCancelled);
  const abort = new AbortController();
  const pending = csi.conn.controller.expandVolume({ volumeId: 'vol-1', capacityRange: { requiredBytes: 1n }, secrets: {} }, { signal: abort.signal });
  const call = await csi.driver.waitForCall('ControllerExpandVolume');
  assert.equal(call.cancelled, false);
  abort.abort();
  await assert.rejects(pending, isCallError({ code: status.CANCELLED, kind: 'in-progress' }));
  await waitFor(() => call.cancelled, 'the driver to see the cancel');
});

test('a call whose signal is already aborted is never sent', async () => {
  await assert.rejects(csi.conn.controller.deleteVolume(deleteRequest, { signal: AbortSignal.abort() }), isCallError({ code: status.CANCELLED, kind: 'in-progress' }));
  assert.equal(csi.driver.callsOf('DeleteVolume').length, 0);
});

test('a response the client cannot read is INTERNAL and in-progress: the driver may have done it', async () => {
  csi.driver.handle('CreateVolume', () => ({}));
  const req = { name: 'pv-x', volumeCapabilities: [{ block: {}, accessMode: 'SINGLE_NODE_WRITER' as const }], parameters: {}, secrets: {} };
  await assert.rejects(csi.conn.controller.createVolume(req), isCallError({ code: status.INTERNAL, kind: 'in-progress', details: /cannot be read: the response has no volume/ }));
  csi.driver.handle('CreateSnapshot', () => ({ snapshot: { snapshot_id: 's', creation_time: { seconds: 253_402_300_800n } } }));
  await assert.rejects(
    csi.conn.controller.createSnapshot({ sourceVolumeId: 'v', name: 's', secrets: {}, parameters: {} }),
    isCallError({ code: status.INTERNAL, kind: 'in-progress', details: /creation_time: not a valid Timestamp/ }),
  );
});

test('a socket nobody listens on is UNAVAILABLE, in-progress, and the error names the socket', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'csi-none-'));
  const socketPath = join(dir, 'missing.sock');
  const lonely = await connectCsi(`unix://${socketPath}`);
  try {
    assert.equal(lonely.address, socketPath);
    await assert.rejects(lonely.identity.probe({ timeoutMs: 5_000 }), (err: unknown) => {
      isCallError({ code: status.UNAVAILABLE, kind: 'in-progress', method: '/csi.v1.Identity/Probe' })(err);
      assert.ok((err as CsiCallError).message.includes(socketPath), (err as CsiCallError).message);
      return true;
    });
  } finally {
    lonely.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('a call on a closed connection fails as UNAVAILABLE without reaching the driver', async () => {
  const closed = await connectCsi(csi.driver.socketPath);
  closed.close();
  await assert.rejects(closed.identity.getPluginInfo(), isCallError({ code: status.UNAVAILABLE, kind: 'in-progress' }));
  assert.equal(csi.driver.callsOf('GetPluginInfo').length, 0);
});

test('connectCsi refuses an address that is no unix socket and a timeout that is not positive', async () => {
  await assert.rejects(connectCsi('dns:///driver:9000'), /only unix sockets/);
  await assert.rejects(connectCsi(csi.driver.socketPath, { timeoutMs: 0 }), /timeoutMs must be positive/);
});
