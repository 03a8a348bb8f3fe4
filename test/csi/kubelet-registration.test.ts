/**
 * The CSI mock's node plugin as a kubelet meets it (tools/cluster/csi-node-plugin.ts): this test
 * plays the kubelet. Its plugin watcher's calls on the registration socket (GetInfo, then
 * NotifyRegistrationStatus), then the CSI node calls its volume manager makes on the endpoint
 * GetInfo named (NodeGetInfo, NodeStageVolume, NodePublishVolume into a pod's volume directory,
 * then the reverse), on a volume the controller service created. Skips, saying why, when the
 * binaries are not built (`npm run csi:build`).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { Reader, Writer } from 'protobufjs';
import { csiBinaryUnavailable } from '../../tools/cluster/csi-build.js';
import { startCsiNodePlugin, type CsiNodePlugin } from '../../tools/cluster/csi-node-plugin.js';
import { csiRoot, decodeMessage, encodeMessage, type WireMessage } from '../../src/csi/descriptor.js';

const DRIVER = 'node.csi.pv-controller.io';
const REGISTRATION = '/pluginregistration.Registration';
const skip = csiBinaryUnavailable('csi-mock') ?? csiBinaryUnavailable('csi-registrar') ?? false;

const bytes = (b: Buffer): Buffer => b;

function rawCall(address: string, method: string, request: Uint8Array): Promise<Buffer> {
  const client = new grpc.Client(`unix://${address}`, grpc.credentials.createInsecure());
  return new Promise<Buffer>((resolve, reject) => {
    client.makeUnaryRequest(method, bytes, bytes, Buffer.from(request), (err, reply) => (err ? reject(err) : resolve(reply ?? Buffer.alloc(0))));
  }).finally(() => client.close());
}

/** pluginregistration.v1 PluginInfo: type 1, name 2, endpoint 3, supported_versions 4 (all strings). */
function readPluginInfo(message: Buffer): { type?: string; name?: string; endpoint?: string; supportedVersions: string[] } {
  const out: { type?: string; name?: string; endpoint?: string; supportedVersions: string[] } = { supportedVersions: [] };
  const r = Reader.create(message);
  while (r.pos < r.len) {
    const tag = r.uint32();
    const field = tag >>> 3;
    if ((tag & 7) !== 2) {
      r.skipType(tag & 7);
      continue;
    }
    const value = r.string();
    if (field === 1) out.type = value;
    else if (field === 2) out.name = value;
    else if (field === 3) out.endpoint = value;
    else if (field === 4) out.supportedVersions.push(value);
  }
  return out;
}

/** pluginregistration.v1 RegistrationStatus{plugin_registered 1 (bool), error 2}. */
function registrationStatus(registered: boolean, error = ''): Uint8Array {
  const w = Writer.create();
  if (registered) w.uint32(8).bool(true);
  if (error) w.uint32(18).string(error);
  return w.finish();
}

/** One CSI call through the descriptor's message types (`csi.v1.<Service>/<Name>`); wire objects use the spec's snake_case names. */
async function csiCall(socket: string, service: string, name: string, request: WireMessage): Promise<WireMessage> {
  const rpc = csiRoot().lookupService(`csi.v1.${service}`).methods[name]!;
  const reply = await rawCall(socket, `/csi.v1.${service}/${name}`, encodeMessage(rpc.resolvedRequestType!, request));
  return decodeMessage(rpc.resolvedResponseType!, reply);
}

const MOUNT_RWO = { mount: {}, access_mode: { mode: 'SINGLE_NODE_WRITER' } };

describe('the CSI mock registered with a kubelet through csi-registrar', { skip }, () => {
  let dir = '';
  let registry = '';
  let plugin: CsiNodePlugin | undefined;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'csi-node-'));
    registry = join(dir, 'kubelet', 'plugins_registry');
    plugin = await startCsiNodePlugin({ dir: join(dir, 'driver'), driver: DRIVER, registrationDir: registry });
  });

  after(async () => {
    await plugin?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('GetInfo on <driver>-reg.sock answers a CSIPlugin named by the driver, its socket as endpoint, CSI 1.0.0', async () => {
    const p = plugin!;
    assert.equal(p.registrationSocket, join(registry, `${DRIVER}-reg.sock`));
    const info = readPluginInfo(await rawCall(p.registrationSocket, `${REGISTRATION}/GetInfo`, new Uint8Array()));
    assert.deepEqual(info, { type: 'CSIPlugin', name: DRIVER, endpoint: p.socket, supportedVersions: ['1.0.0'] });
    // The name came from the driver itself, as node-driver-registrar asks it.
    assert.equal((await p.mockCalls('/csi.v1.Identity/GetPluginInfo')).length, 1);
  });

  it('NotifyRegistrationStatus(registered) is logged and the registrar keeps serving', async () => {
    const p = plugin!;
    await rawCall(p.registrationSocket, `${REGISTRATION}/NotifyRegistrationStatus`, registrationStatus(true));
    const calls = await p.registrarCalls();
    assert.deepEqual(calls.map((c) => [c.method, c.code]), [[`${REGISTRATION}/GetInfo`, 'OK'], [`${REGISTRATION}/NotifyRegistrationStatus`, 'OK']]);
    assert.deepEqual(calls[1]!.request, { pluginRegistered: true });
    assert.ok(existsSync(p.registrationSocket));
    await rawCall(p.registrationSocket, `${REGISTRATION}/GetInfo`, new Uint8Array());
  });

  it('the kubelet\'s node calls on the endpoint: the pod\'s volume is a directory it can write, removed on unpublish', async () => {
    const p = plugin!;
    const nodeInfo = await csiCall(p.socket, 'Node', 'NodeGetInfo', {});
    assert.equal(nodeInfo.node_id, DRIVER, 'the mock names its node after the driver');
    const caps = await csiCall(p.socket, 'Node', 'NodeGetCapabilities', {});
    const types = (caps.capabilities as { rpc?: { type?: string } }[]).map((c) => c.rpc?.type);
    assert.ok(types.includes('STAGE_UNSTAGE_VOLUME'), `node capabilities: ${types.join(', ')}`);
    const created = await csiCall(p.socket, 'Controller', 'CreateVolume', {
      name: 'pvc-node-test', capacity_range: { required_bytes: '1048576' }, volume_capabilities: [MOUNT_RWO],
    });
    const volumeId = (created.volume as { volume_id: string }).volume_id;
    // The kubelet's layout: a global staging directory, and the pod's volume directory whose
    // parent it creates before NodePublishVolume.
    const staging = join(dir, 'kubelet', 'plugins', 'kubernetes.io', 'csi', DRIVER, 'vol', 'globalmount');
    const volumeDir = join(dir, 'kubelet', 'pods', 'uid-1', 'volumes', 'kubernetes.io~csi', 'pvc-node-test');
    const target = join(volumeDir, 'mount');
    await mkdir(staging, { recursive: true });
    await mkdir(volumeDir, { recursive: true });
    await csiCall(p.socket, 'Node', 'NodeStageVolume', { volume_id: volumeId, staging_target_path: staging, volume_capability: MOUNT_RWO });
    await csiCall(p.socket, 'Node', 'NodePublishVolume', { volume_id: volumeId, staging_target_path: staging, target_path: target, volume_capability: MOUNT_RWO });
    await writeFile(join(target, 'data'), 'written by the pod');
    assert.equal(await readFile(join(target, 'data'), 'utf8'), 'written by the pod');
    await csiCall(p.socket, 'Node', 'NodeUnpublishVolume', { volume_id: volumeId, target_path: target });
    assert.equal(existsSync(target), false, 'NodeUnpublishVolume removes the directory and what the pod wrote');
    await csiCall(p.socket, 'Node', 'NodeUnstageVolume', { volume_id: volumeId, staging_target_path: staging });
    const published = await p.mockCalls('/csi.v1.Node/NodePublishVolume');
    assert.deepEqual(published.map((c) => c.code), ['OK']);
  });

  it('a refusal (NotifyRegistrationStatus not registered) stops the registrar, which removes its socket', async () => {
    const p = plugin!;
    await rawCall(p.registrationSocket, `${REGISTRATION}/NotifyRegistrationStatus`, registrationStatus(false, 'test refusal'));
    await p.registrar.exited;
    assert.match(await readFile(p.registrar.logPath, 'utf8'), /csi-registrar: the kubelet refused node\.csi\.pv-controller\.io: test refusal/);
    assert.equal(existsSync(p.registrationSocket), false);
  });
});

describe('csi-registrar stopped', { skip }, () => {
  it('SIGTERM removes the registration socket (the kubelet then deregisters the driver) and exits cleanly', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'csi-node-'));
    try {
      const p = await startCsiNodePlugin({ dir, driver: DRIVER, registrationDir: join(dir, 'plugins_registry') });
      assert.ok(existsSync(p.registrationSocket));
      await p.stop();
      assert.equal(existsSync(p.registrationSocket), false);
      assert.match(await readFile(p.registrar.logPath, 'utf8'), /csi-registrar: terminated: stopping/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
