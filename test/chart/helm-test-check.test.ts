/**
 * files/helm-test.mjs, the check `helm test` runs in the controller's image: it passes only when
 * a leader renewed the Lease within two lease durations (or /readyz answers 200), and fails with
 * a sentence saying what is wrong otherwise. Run here with node against a local server.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CHART_DIR } from '../../tools/chart/manifests.js';

interface Answer {
  status: number;
  body: unknown;
}

describe('the helm test check (files/helm-test.mjs)', () => {
  let server: Server;
  let base = '';
  let work = '';
  let answer: Answer = { status: 200, body: {} };
  let seenAuth: string | undefined;
  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'helm-test-check-'));
    await writeFile(join(work, 'token'), 'the-token\n');
    server = createServer((req, res) => {
      seenAuth = req.headers.authorization;
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(work, { recursive: true, force: true });
  });

  async function check(env: Record<string, string>): Promise<{ code: number; out: string }> {
    const script = await readFile(join(CHART_DIR, 'files', 'helm-test.mjs'), 'utf8');
    return new Promise((resolve) => {
      execFile(process.execPath, ['--input-type=module', '-e', script], { env: { PATH: process.env.PATH, TOKEN_FILE: join(work, 'token'), ...env }, timeout: 30_000 }, (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr });
      });
    });
  }

  const lease = (holder: string | undefined, renewedSecondsAgo: number): Answer => ({
    status: 200,
    body: { spec: { holderIdentity: holder, leaseDurationSeconds: 15, renewTime: new Date(Date.now() - renewedSecondsAgo * 1000).toISOString() } },
  });

  test('passes when a leader renewed the Lease recently, reading it with the ServiceAccount token', async () => {
    answer = lease('pv-controller-abc', 1);
    const res = await check({ LEASE_URL: `${base}/lease` });
    assert.equal(res.code, 0, res.out);
    assert.match(res.out, /leader pv-controller-abc renewed the Lease/);
    assert.equal(seenAuth, 'Bearer the-token');
  });

  test('fails when the Lease has no holder, or its holder stopped renewing it', async () => {
    answer = lease(undefined, 1);
    const none = await check({ LEASE_URL: `${base}/lease` });
    assert.equal(none.code, 1);
    assert.match(none.out, /has no holder: no controller leads/);
    answer = lease('pv-controller-abc', 600);
    const stale = await check({ LEASE_URL: `${base}/lease` });
    assert.equal(stale.code, 1);
    assert.match(stale.out, /last renewed \d+ s ago \(more than 30 s\): the leader is gone/);
  });

  test('fails with the API server\'s answer when the Lease cannot be read', async () => {
    answer = { status: 403, body: { reason: 'Forbidden' } };
    const res = await check({ LEASE_URL: `${base}/lease` });
    assert.equal(res.code, 1);
    assert.match(res.out, /HTTP 403/);
  });

  test('without leader election, passes on /readyz 200 and fails on anything else', async () => {
    answer = { status: 200, body: 'ok' };
    assert.equal((await check({ READYZ_URL: `${base}/readyz` })).code, 0);
    answer = { status: 503, body: 'caches not synced' };
    const res = await check({ READYZ_URL: `${base}/readyz` });
    assert.equal(res.code, 1);
    assert.match(res.out, /HTTP 503/);
  });
});
