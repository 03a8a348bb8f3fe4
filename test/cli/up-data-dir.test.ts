import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findClusterSource, METRICS_ADDRESS_FILE, previousFreePort, readMetricsAddress, removeMetricsAddress, writeMetricsAddress, type MetricsAddress } from '../../src/cli/up-data-dir.js';

async function withDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'pv-up-data-dir-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const kubeconfigFor = (port: number): string =>
  `apiVersion: v1\nkind: Config\nclusters:\n  - name: pv\n    cluster:\n      server: https://127.0.0.1:${port}\n`;

test('the client commands choose --kubeconfig, then --data-dir, then $KUBECONFIG, then ./.pv-controller, then the default chain', async () => {
  await withDir(async (cwd) => {
    assert.deepEqual(findClusterSource({ kubeconfig: '/k', dataDir: 'd' }, {}, cwd), { kubeconfig: '/k' });
    assert.deepEqual(findClusterSource({ dataDir: 'd' }, { KUBECONFIG: '/env' }, cwd), { dataDir: join(cwd, 'd'), kubeconfig: join(cwd, 'd', 'kubeconfig') });
    const none = findClusterSource({}, {}, cwd);
    assert.equal(none.kubeconfig, undefined);
    assert.match(none.notice ?? '', /default kubeconfig/);
    await mkdir(join(cwd, '.pv-controller'));
    await writeFile(join(cwd, '.pv-controller', 'kubeconfig'), kubeconfigFor(1));
    const found = findClusterSource({}, {}, cwd);
    assert.equal(found.kubeconfig, join(cwd, '.pv-controller', 'kubeconfig'));
    assert.equal(found.dataDir, join(cwd, '.pv-controller'));
    assert.match(found.notice ?? '', /using \.pv-controller\/kubeconfig \(the data dir of `npm start` here/);
    assert.match(findClusterSource({}, { KUBECONFIG: '/env' }, cwd).notice ?? '', /\$KUBECONFIG \(\/env\)/);
  });
});

test('up reuses the port of its last kubeconfig when it is free, and not when it is taken or unknown', async () => {
  await withDir(async (dir) => {
    assert.equal(await previousFreePort(dir, '127.0.0.1'), undefined, 'no kubeconfig yet');
    const busy = createServer();
    await new Promise<void>((done) => busy.listen(0, '127.0.0.1', done));
    const port = (busy.address() as { port: number }).port;
    try {
      await writeFile(join(dir, 'kubeconfig'), kubeconfigFor(port));
      assert.equal(await previousFreePort(dir, '127.0.0.1'), undefined, 'taken');
    } finally {
      await new Promise<void>((done) => busy.close(() => done()));
    }
    assert.equal(await previousFreePort(dir, '127.0.0.1'), port, 'free again');
    await writeFile(join(dir, 'kubeconfig'), 'not: [yaml');
    assert.equal(await previousFreePort(dir, '127.0.0.1'), undefined, 'unreadable');
  });
});

const missingOf = (a: MetricsAddress): string => ('missing' in a ? a.missing : '');

test('the metrics address up records is read back while its process lives, and refused once it is gone', async () => {
  await withDir(async (dir) => {
    assert.match(missingOf(await readMetricsAddress(dir)), /no \/metrics is served by `up`/);
    await writeMetricsAddress(dir, 'http://127.0.0.1:43210/metrics');
    assert.deepEqual(await readMetricsAddress(dir), { url: 'http://127.0.0.1:43210/metrics' });
    // A crashed up leaves its record behind: its port may be another process's now.
    assert.match(missingOf(await readMetricsAddress(dir, () => false)), /is gone/);
    await removeMetricsAddress(dir);
    assert.ok('missing' in (await readMetricsAddress(dir)));
  });
});

test('a metrics address record that is not one (another URL, no pid, not JSON) is refused, not followed', async () => {
  await withDir(async (dir) => {
    for (const text of ['{"url":"http://evil.example/x","pid":1}', '{"url":"http://127.0.0.1:1/metrics"}', 'not json']) {
      await writeFile(join(dir, METRICS_ADDRESS_FILE), text);
      assert.ok('missing' in (await readMetricsAddress(dir, () => true)), text);
    }
  });
});
