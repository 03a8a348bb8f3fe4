import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { parseCsiAddress } from '../../src/csi/address.js';

test('a CSI address is a socket path, unix:///path or unix:path, as the sidecars take it', () => {
  assert.deepEqual(parseCsiAddress('/csi/csi.sock'), { socketPath: '/csi/csi.sock', target: 'unix:///csi/csi.sock' });
  assert.deepEqual(parseCsiAddress('unix:///csi/csi.sock'), { socketPath: '/csi/csi.sock', target: 'unix:///csi/csi.sock' });
  assert.deepEqual(parseCsiAddress('unix:/csi/csi.sock'), { socketPath: '/csi/csi.sock', target: 'unix:///csi/csi.sock' });
  const relative = resolve('run/csi.sock');
  assert.deepEqual(parseCsiAddress('unix:run/csi.sock'), { socketPath: relative, target: `unix://${relative}` });
  assert.deepEqual(parseCsiAddress('run/csi.sock'), { socketPath: relative, target: `unix://${relative}` });
});

test('an address that is no unix socket is refused with the address in the message', () => {
  assert.throws(() => parseCsiAddress('dns:///driver:10000'), /"dns:\/\/\/driver:10000": only unix sockets/);
  assert.throws(() => parseCsiAddress('tcp://127.0.0.1:9000'), /only unix sockets/);
  assert.throws(() => parseCsiAddress('unix://relative/csi.sock'), /unix:\/\/ takes an absolute path/);
  assert.throws(() => parseCsiAddress(''), /no socket path/);
  assert.throws(() => parseCsiAddress('unix:'), /no socket path/);
});
