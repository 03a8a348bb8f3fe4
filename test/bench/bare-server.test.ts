import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { V1PersistentVolume } from '@kubernetes/client-node';
import { connect, expectOk, type BenchClient } from '../../bench/client/kube-client.js';
import { measureCreates } from '../../bench/client/write-loops.js';
import { writeLoopVolume } from '../../bench/fixtures.js';
import { startBareServer, type BenchServer } from '../../bench/proc/servers.js';
import type { BenchOptions } from '../../bench/scenario.js';

describe('bare write-floor server', () => {
  const workDir = mkdtempSync(join(tmpdir(), 'bench-bare-'));
  const opts = { workDir, resultsDir: workDir, cpuProf: false } as BenchOptions;
  let server: BenchServer;
  let client: BenchClient;

  before(async () => {
    server = await startBareServer(opts);
    client = await connect(server.kubeconfig);
  });
  after(async () => {
    client?.close();
    await server?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('runs in its own process and serves TLS with the token from the kubeconfig it wrote', async () => {
    assert.ok(server.child && server.child.pid !== process.pid);
    const res = await client.raw('GET', '/version');
    assert.equal(res.status, 200);
  });

  it('stores what client-node creates, stamps a resourceVersion and echoes it back', async () => {
    const created = await client.core.createPersistentVolume({ body: writeLoopVolume('floor-a') as V1PersistentVolume });
    assert.equal(created.metadata?.name, 'floor-a');
    assert.match(created.metadata?.resourceVersion ?? '', /^\d+$/);
    const read = JSON.parse(expectOk(await client.raw('GET', '/api/v1/persistentvolumes/floor-a'), 'get').body) as V1PersistentVolume;
    assert.equal(read.metadata?.resourceVersion, created.metadata?.resourceVersion);
  });

  it('a status update replaces the stored object and bumps its resourceVersion', async () => {
    const created = JSON.parse(expectOk(await client.raw('POST', '/api/v1/persistentvolumes', JSON.stringify(writeLoopVolume('floor-b'))), 'create').body) as V1PersistentVolume;
    created.status = { phase: 'Available' };
    const updated = await client.core.replacePersistentVolumeStatus({ name: 'floor-b', body: created });
    assert.equal(updated.status?.phase, 'Available');
    assert.ok(Number(updated.metadata?.resourceVersion) > Number(created.metadata?.resourceVersion));
  });

  it('refuses requests without the bearer token', async () => {
    const { request } = await import('node:https');
    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL(client.server);
      const req = request({ host: url.hostname, port: url.port, path: '/version', rejectUnauthorized: false }, (r) => {
        r.resume();
        resolve(r.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(status, 401);
  });

  it('a measured write loop completes every write it counts', async () => {
    const result = await measureCreates(client, 'client-node', { label: 'test', prefix: 'loop', warmup: 5, count: 40, concurrency: 4 });
    assert.equal(result.completed, 40);
    assert.ok(result.perSecond > 0);
    const last = await client.raw('GET', '/api/v1/persistentvolumes/loop-39');
    assert.equal(last.status, 200);
  });
});
