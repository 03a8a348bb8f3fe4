import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { CSI_SPEC_VERSION, csiRoot, withoutSecrets } from '../../src/csi/descriptor.js';
import { ALL_RPCS } from '../../src/csi/rpcs.js';

const ROOT = new URL('../../../', import.meta.url);

test('the committed descriptor names the CSI spec version tools/csi/go.mod requires', async () => {
  const goMod = await readFile(fileURLToPath(new URL('tools/csi/go.mod', ROOT)), 'utf8');
  const required = /^\s*github\.com\/container-storage-interface\/spec (v\S+)/m.exec(goMod)?.[1];
  assert.ok(required, 'tools/csi/go.mod requires the spec module');
  assert.equal(CSI_SPEC_VERSION, required);
  const committed = JSON.parse(await readFile(fileURLToPath(new URL('src/csi/descriptor.json', ROOT)), 'utf8')) as { specVersion: string; comment: string };
  assert.equal(committed.specVersion, required);
  assert.match(committed.comment, new RegExp(`spec ${required.replace(/\./g, '\\.')} `));
});

test('every RPC the client calls is a unary method of the descriptor with the message types the client converts', () => {
  assert.equal(ALL_RPCS.length, 13);
  for (const { method } of ALL_RPCS) {
    const service = csiRoot().lookupService(`csi.v1.${method.service}`);
    const rpc = service.methods[method.name];
    assert.ok(rpc, `${method.path} is in the descriptor`);
    assert.equal(rpc.requestStream ?? false, false);
    assert.equal(rpc.responseStream ?? false, false);
    assert.equal(rpc.resolvedRequestType, method.requestType);
    assert.equal(rpc.resolvedResponseType, method.responseType);
  }
  const paths = ALL_RPCS.map((r) => r.method.path);
  for (const name of ['CreateVolume', 'DeleteVolume', 'ControllerExpandVolume', 'ControllerModifyVolume', 'GetCapacity', 'ListVolumes', 'ControllerGetCapabilities']) {
    assert.ok(paths.includes(`/csi.v1.Controller/${name}`), name);
  }
  for (const name of ['GetPluginInfo', 'GetPluginCapabilities', 'Probe']) assert.ok(paths.includes(`/csi.v1.Identity/${name}`), name);
});

test('the descriptor keeps the csi_secret marks, so a request is logged with its secrets stripped', () => {
  const create = csiRoot().lookupType('csi.v1.CreateVolumeRequest');
  const stripped = withoutSecrets(create, { name: 'pv-1', secrets: { password: 'hunter2' }, parameters: { a: 'b' } });
  assert.deepEqual(stripped, { name: 'pv-1', secrets: '***stripped***', parameters: { a: 'b' } });
  const marked: string[] = [];
  const walk = (ns: protobuf.NamespaceBase): void => {
    for (const obj of ns.nestedArray) {
      if (obj instanceof protobuf.Type) {
        for (const f of obj.fieldsArray) if (f.options?.['(csi.v1.csi_secret)'] === true) marked.push(`${obj.name}.${f.name}`);
      }
      if (obj instanceof protobuf.Namespace) walk(obj);
    }
  };
  walk(csiRoot());
  assert.equal(marked.length, 22, 'csi.proto v1.13.0 marks 22 fields csi_secret');
  assert.ok(marked.includes('CreateVolumeRequest.secrets'));
  assert.ok(marked.every((name) => name.endsWith('secrets')), marked.join(' '));
});
