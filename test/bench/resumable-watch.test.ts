import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connect, type BenchClient } from '../../bench/client/kube-client.js';
import { resumableWatch } from '../../bench/client/resumable-watch.js';
import { makeTlsIdentity, makeToken, writeKubeconfig } from '../../bench/proc/tls.js';

const event = (type: string, name: string, rv: number): string =>
  `${JSON.stringify({ type, object: { kind: 'PersistentVolume', metadata: { name, resourceVersion: String(rv) } } })}\n`;
const GONE = `${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', status: 'Failure', reason: 'Expired', code: 410 } })}\n`;

async function waitUntil(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(check(), what);
}

/** A server whose watch answers are scripted by the resourceVersion asked for. */
describe('bench resumable watch', () => {
  const dir = mkdtempSync(join(tmpdir(), 'resumable-watch-'));
  const asked: string[] = [];
  let script: (rv: string, res: ServerResponse) => void = () => undefined;
  let server: Server;
  let client: BenchClient;

  before(async () => {
    const tls = await makeTlsIdentity();
    const token = makeToken();
    server = createServer({ key: tls.key, cert: tls.cert }, (req: IncomingMessage, res: ServerResponse) => {
      const rv = new URL(req.url ?? '/', 'https://x').searchParams.get('resourceVersion') ?? '';
      asked.push(rv);
      res.writeHead(200, { 'Content-Type': 'application/json' });
      script(rv, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no address');
    writeKubeconfig(join(dir, 'kubeconfig'), address.port, tls.cert, token);
    client = await connect(join(dir, 'kubeconfig'));
  });
  after(async () => {
    client.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('reopens a watch the server ended from the last resourceVersion it delivered, losing no event', async () => {
    asked.length = 0;
    script = (rv, res) => {
      if (rv === '3') res.end(event('ADDED', 'a', 4) + event('DELETED', 'b', 5));
      else res.write(event('DELETED', 'c', 6)); // stays open
    };
    const lines: string[] = [];
    const watch = await resumableWatch(client, { path: '/api/v1/persistentvolumes', fromResourceVersion: 3, onLine: (l) => lines.push(l), relist: () => Promise.reject(new Error('no relist expected')) });
    try {
      await waitUntil('the event after the reopen arrives', () => lines.length === 3);
      assert.deepEqual(asked, ['3', '5']);
      assert.deepEqual(watch.resumes(), { reopened: 1, relisted: 0 });
      assert.equal(watch.failure(), undefined);
    } finally {
      watch.stop();
    }
  });

  it('after 410 Gone asks the caller to re-list and watches on from the list\'s resourceVersion', async () => {
    asked.length = 0;
    script = (rv, res) => {
      if (rv === '7') res.end(GONE);
      else res.write(event('DELETED', 'd', 10));
    };
    const lines: string[] = [];
    const watch = await resumableWatch(client, { path: '/api/v1/persistentvolumes', fromResourceVersion: 7, onLine: (l) => lines.push(l), relist: async () => 9 });
    try {
      await waitUntil('the watch from the list goes on', () => lines.length === 1);
      assert.deepEqual(asked, ['7', '9']);
      assert.deepEqual(watch.resumes(), { reopened: 1, relisted: 1 });
      assert.ok(!lines.some((l) => l.includes('"ERROR"')), 'the 410 is handled, not passed on');
    } finally {
      watch.stop();
    }
  });
});
