/**
 * Hostile connections against the embedded server with the controller running: request headers
 * that never finish are cut off as kube-apiserver cuts them (its ReadHeaderTimeout, 32 s), bodies
 * that never finish and hundreds of idle or busy connections hold no other request up, and the
 * controller goes on binding throughout.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type TLSSocket } from 'node:tls';
import { startTestCluster, type TestCluster } from '../../../../test/helpers/cluster.js';
import { waitFor } from '../../../../test/helpers/wait.js';
import { send, type ServerAddress } from '../hostile/send.js';
import { assertControllerStillBinds, PVS } from './hostile-helpers.js';

/** A TLS connection that has sent `text` and then nothing more; `closed` resolves when the server ends it. */
async function stalledRequest(server: ServerAddress, text: string): Promise<{ socket: TLSSocket; closed: Promise<string> }> {
  const { hostname, port } = new URL(server.url);
  const socket = connect({ host: hostname, port: Number(port), ca: server.caPem });
  await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
  socket.write(text.replaceAll('{token}', server.token));
  let answer = '';
  socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
  socket.on('error', () => undefined);
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(answer)));
  return { socket, closed };
}

const HEADERS_UNFINISHED = `POST ${PVS} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\n`;
const BODY_UNFINISHED = `POST ${PVS} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"apiVersion":"v1",`;

async function listsVolumes(server: ServerAddress): Promise<void> {
  const r = await send(server, { name: 'list', method: 'GET', path: PVS });
  assert.equal(r.code, 200, r.text);
}

describe('hostile connections', () => {
  let cluster: TestCluster;
  let server: ServerAddress;
  before(async () => {
    cluster = await startTestCluster();
    server = cluster.api.server;
  });
  after(async () => cluster.stop());

  test('requests whose headers or bodies never finish hold nothing up; unfinished headers are cut off as kube-apiserver cuts them', { timeout: 120_000 }, async () => {
    const stalled = await Promise.all([
      ...Array.from({ length: 20 }, () => stalledRequest(server, HEADERS_UNFINISHED)),
      ...Array.from({ length: 20 }, () => stalledRequest(server, BODY_UNFINISHED)),
    ]);
    try {
      await listsVolumes(server);
      await assertControllerStillBinds(server as ServerAddress & { kubeconfigPath: string });
      // kube-apiserver closes a connection whose headers never end after its ReadHeaderTimeout.
      const answers = await Promise.all(stalled.slice(0, 20).map((s) => s.closed));
      for (const answer of answers) assert.ok(answer === '' || answer.startsWith('HTTP/1.1 408'), answer.slice(0, 100));
      assert.equal((await send(server, { name: 'list', method: 'GET', path: `${PVS}/nothing-was-created` })).code, 404);
      await listsVolumes(server);
    } finally {
      for (const s of stalled) s.socket.destroy();
    }
  });

  test('300 idle connections and 200 concurrent requests: every request is answered and the controller still binds', { timeout: 120_000 }, async () => {
    const { hostname, port } = new URL(server.url);
    const idle = await Promise.all(Array.from({ length: 300 }, () => new Promise<TLSSocket>((resolve, reject) => {
      const socket = connect({ host: hostname, port: Number(port), ca: server.caPem }, () => resolve(socket));
      socket.once('error', reject);
    })));
    try {
      const answers = await Promise.all(Array.from({ length: 200 }, (_, i) =>
        send(server, { name: 'busy', method: 'GET', path: i % 2 ? PVS : `${PVS}?labelSelector=a%20in%20(` })));
      assert.deepEqual([...new Set(answers.map((a) => a.code))].sort(), [200, 400]);
      await assertControllerStillBinds(server as ServerAddress & { kubeconfigPath: string });
    } finally {
      for (const socket of idle) socket.destroy();
    }
    await waitFor(async () => (await send(server, { name: 'list', method: 'GET', path: PVS })).code === 200, 'the server serves after the connections close');
  });
});
