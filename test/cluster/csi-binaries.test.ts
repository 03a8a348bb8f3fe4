/**
 * The CSI peers built by `npm run csi:build`: Kubernetes' e2e CSI mock served by our csi-mock
 * answers gRPC on its unix socket and logs every call as one JSON line of the documented shape
 * (secrets redacted); the external-provisioner, external-resizer and external-snapshotter builds
 * print the release their wrapper module's go.mod asks for. Each test skips, saying why, when its binary is not built.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { Reader, Writer } from 'protobufjs';
import { csiBinaryPath, csiSidecarVersion, type CsiSidecarName } from '../../tools/cluster/binaries.js';
import { csiBinaryUnavailable } from '../../tools/cluster/csi-build.js';
import { startProcess, type ManagedProcess } from '../../tools/cluster/processes.js';
import { runProcess } from '../helpers/run-process.js';
import { waitFor } from '../helpers/wait.js';

const DRIVER = 'test.csi.pv-controller.io';
const LOG_KEYS = ['time', 'method', 'request', 'response', 'code', 'error', 'durationMs'];

interface CallLine {
  time: string;
  method: string;
  request: Record<string, unknown>;
  response: Record<string, unknown> | null;
  code: string;
  error: string | null;
  durationMs: number;
}

const bytes = (b: Buffer): Buffer => b;

/** One unary call with raw protobuf bytes in and out: no descriptor needed. */
function rawCall(client: grpc.Client, method: string, request: Uint8Array): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(method, bytes, bytes, Buffer.from(request), (err, reply) => (err ? reject(err) : resolve(reply ?? Buffer.alloc(0))));
  });
}

/** Field 1 (string) of a message: GetPluginInfoResponse.name. */
function firstStringField(message: Buffer): string | undefined {
  const r = Reader.create(message);
  while (r.pos < r.len) {
    const tag = r.uint32();
    if (tag >>> 3 === 1 && (tag & 7) === 2) return r.string();
    r.skipType(tag & 7);
  }
  return undefined;
}

/** DeleteVolumeRequest{volume_id: id, secrets: {key: value}}. */
function deleteVolumeRequest(id: string, key: string, value: string): Uint8Array {
  const entry = Writer.create().uint32(10).string(key).uint32(18).string(value).finish();
  return Writer.create().uint32(10).string(id).uint32(18).bytes(entry).finish();
}

/** CreateVolumeRequest{name, capacity_range{required_bytes}, volume_capabilities[{mount{}, access_mode{SINGLE_NODE_WRITER}}]}. */
function createVolumeRequest(name: string, bytes: number): Uint8Array {
  const range = Writer.create().uint32(8).uint64(bytes).finish();
  const mode = Writer.create().uint32(8).int32(1).finish();
  const capability = Writer.create().uint32(18).bytes(new Uint8Array(0)).uint32(26).bytes(mode).finish();
  return Writer.create().uint32(10).string(name).uint32(18).bytes(range).uint32(26).bytes(capability).finish();
}

/** CreateSnapshotRequest{source_volume_id, name}. */
function createSnapshotRequest(sourceVolumeId: string, name: string): Uint8Array {
  return Writer.create().uint32(10).string(sourceVolumeId).uint32(18).string(name).finish();
}

describe('csi-mock: Kubernetes\' e2e CSI mock on a unix socket', { skip: csiBinaryUnavailable('csi-mock') ?? false }, () => {
  let dir = '';
  let mock: ManagedProcess | undefined;
  let client: grpc.Client | undefined;
  const logPath = (): string => join(dir, 'csi-mock.log');
  const callLines = (): CallLine[] =>
    readFileSync(logPath(), 'utf8').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as CallLine);

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'csi-mock-'));
    const socket = join(dir, 'csi.sock');
    mock = startProcess('csi-mock', csiBinaryPath('csi-mock'), ['--socket', socket, '--name', DRIVER], logPath(), dir);
    await waitFor(() => readFileSync(logPath(), 'utf8').includes('csi-mock: serving'), 'csi-mock to listen', { timeoutMs: 30_000 });
    client = new grpc.Client(`unix://${socket}`, grpc.credentials.createInsecure());
  });

  after(async () => {
    client?.close();
    await mock?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test('GetPluginInfo (an empty request, zero bytes) answers the --name given, and the call is logged as one JSON line of the documented shape', async () => {
    assert.ok(client);
    const reply = await rawCall(client, '/csi.v1.Identity/GetPluginInfo', new Uint8Array(0));
    assert.equal(firstStringField(reply), DRIVER);
    const line = await waitFor(() => callLines().find((l) => l.method === '/csi.v1.Identity/GetPluginInfo'), 'the GetPluginInfo log line');
    assert.deepEqual(Object.keys(line), LOG_KEYS);
    assert.equal(line.code, 'OK');
    assert.equal(line.error, null);
    assert.deepEqual(line.request, {});
    assert.equal(line.response?.name, DRIVER);
    assert.ok(!Number.isNaN(Date.parse(line.time)), line.time);
    assert.equal(typeof line.durationMs, 'number');
  });

  test('the log replaces every secret value with REDACTED and keeps the key', async () => {
    assert.ok(client);
    await rawCall(client, '/csi.v1.Controller/DeleteVolume', deleteVolumeRequest('no-such-volume', 'password', 'hunter2'));
    const line = await waitFor(() => callLines().find((l) => l.method === '/csi.v1.Controller/DeleteVolume'), 'the DeleteVolume log line');
    assert.deepEqual(line.request, { volumeId: 'no-such-volume', secrets: { password: 'REDACTED' } });
    assert.doesNotMatch(readFileSync(logPath(), 'utf8'), /hunter2/);
  });

  test('a failed call is logged with its gRPC code name, its message and a null response', async () => {
    assert.ok(client);
    await assert.rejects(rawCall(client, '/csi.v1.Controller/DeleteVolume', new Uint8Array(0)), { code: grpc.status.INVALID_ARGUMENT });
    const line = await waitFor(() => callLines().find((l) => l.method === '/csi.v1.Controller/DeleteVolume' && l.code !== 'OK'), 'the failed call\'s log line');
    assert.equal(line.code, 'InvalidArgument');
    assert.equal(line.response, null);
    assert.equal(typeof line.error, 'string');
  });

  test('ListVolumes starts empty: the volumes the mock seeds itself with are dropped', async () => {
    assert.ok(client);
    const reply = await rawCall(client, '/csi.v1.Controller/ListVolumes', new Uint8Array(0));
    assert.equal(reply.length, 0);
  });

  test('ListSnapshots starts empty: the snapshots the mock seeds itself with are dropped', async () => {
    assert.ok(client);
    const reply = await rawCall(client, '/csi.v1.Controller/ListSnapshots', new Uint8Array(0));
    assert.equal(reply.length, 0);
  });

  test("a snapshot reports its source volume's capacity as size_bytes, in CreateSnapshot and in ListSnapshots", async () => {
    assert.ok(client);
    const gib = 1024 ** 3;
    await rawCall(client, '/csi.v1.Controller/CreateVolume', createVolumeRequest('sized-source', 2 * gib));
    const made = await waitFor(() => callLines().find((l) => l.method === '/csi.v1.Controller/CreateVolume' && l.code === 'OK'), 'the CreateVolume log line');
    const volumeId = String((made.response?.volume as { volumeId?: string } | undefined)?.volumeId);
    await rawCall(client, '/csi.v1.Controller/CreateSnapshot', createSnapshotRequest(volumeId, 'sized-snap'));
    await rawCall(client, '/csi.v1.Controller/ListSnapshots', new Uint8Array(0));
    const cut = await waitFor(() => callLines().find((l) => l.method === '/csi.v1.Controller/CreateSnapshot'), 'the CreateSnapshot log line');
    const snapshot = cut.response?.snapshot as { sizeBytes?: string; sourceVolumeId?: string; readyToUse?: boolean } | undefined;
    assert.equal(snapshot?.sizeBytes, String(2 * gib));
    assert.equal(snapshot?.sourceVolumeId, volumeId);
    const listed = await waitFor(() => callLines().find((l) => l.method === '/csi.v1.Controller/ListSnapshots' && Array.isArray(l.response?.entries)), 'a ListSnapshots log line with entries');
    assert.deepEqual((listed.response?.entries as { snapshot: { sizeBytes?: string } }[]).map((e) => e.snapshot.sizeBytes), [String(2 * gib)]);
  });

  test('SIGTERM to its process group stops it and removes its socket', async () => {
    assert.ok(mock);
    client?.close();
    client = undefined;
    await mock.stop();
    assert.equal(existsSync(join(dir, 'csi.sock')), false);
    assert.match(readFileSync(logPath(), 'utf8'), /csi-mock: terminated: stopping/);
  });
});

for (const name of ['csi-provisioner', 'csi-resizer', 'snapshot-controller', 'csi-snapshotter'] as const satisfies readonly CsiSidecarName[]) {
  test(`${name} --version prints the release its wrapper module asks for`, { skip: csiBinaryUnavailable(name) ?? false }, async () => {
    const run = await runProcess(csiBinaryPath(name), ['--version'], { timeoutMs: 30_000 });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.trim(), `${csiBinaryPath(name)} ${csiSidecarVersion(name)}`);
  });
}
