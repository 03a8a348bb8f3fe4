import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { CoreV1Api } from '@kubernetes/client-node';
import { startMetricsServer, type RunningMetricsServer } from '../../../src/metrics/server.js';
import { startTestApiServer, type TestApiServer } from '../../helpers/apiserver.js';

const CLI = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));
const GI = 1024 ** 3;

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function stats(ns: string, claim: string, capacity: number, used: number): string {
  const l = `{namespace="${ns}",persistentvolumeclaim="${claim}"}`;
  return [
    `kubelet_volume_stats_capacity_bytes${l} ${capacity}`,
    `kubelet_volume_stats_used_bytes${l} ${used}`,
    `kubelet_volume_stats_available_bytes${l} ${capacity - used}`,
  ].join('\n');
}

describe('pv-controller usage', () => {
  let api: TestApiServer;
  let metrics: RunningMetricsServer;

  before(async () => {
    api = await startTestApiServer();
    const core = api.kc.makeApiClient(CoreV1Api);
    const claim = async (name: string, bound: boolean): Promise<void> => {
      await core.createNamespacedPersistentVolumeClaim({
        namespace: 'default',
        body: {
          metadata: { name },
          spec: {
            accessModes: ['ReadWriteOnce'],
            resources: { requests: { storage: '1Gi' } },
            ...(bound ? { volumeName: `pv-${name}` } : {}),
          },
        },
      });
      if (!bound) return;
      const current = await core.readNamespacedPersistentVolumeClaim({ namespace: 'default', name });
      await core.replaceNamespacedPersistentVolumeClaimStatus({
        namespace: 'default',
        name,
        body: { ...current, status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } } },
      });
    };
    await claim('quiet', true);
    await claim('busy', true);
    await claim('unmeasured', true);
    await claim('pending', false);
    const body = `${stats('default', 'quiet', GI, GI / 10)}\n${stats('default', 'busy', GI, (GI * 9) / 10)}\n`;
    metrics = await startMetricsServer({
      listen: '127.0.0.1:0',
      metrics: { render: () => Promise.resolve({ contentType: 'text/plain; version=0.0.4; charset=utf-8', body }) },
      readiness: [],
    });
  });

  after(async () => {
    await metrics?.stop();
    await api?.stop();
  });

  test('prints the claims fullest first with bars, and the reason for claims without numbers', async () => {
    const res = await runCli(['usage', '--kubeconfig', api.server.kubeconfigPath, '--metrics-url', `${metrics.url}/metrics`]);
    assert.equal(res.code, 0, res.stderr);
    const lines = res.stdout.trimEnd().split('\n');
    assert.match(lines[0], /^NAMESPACE\s+NAME\s+VOLUME\s+CAPACITY\s+USED\s+AVAILABLE\s+USE%/);
    assert.match(lines[1], /^default\s+busy\s+pv-busy\s+1Gi\s+921Mi\s+102Mi\s+90%\s+\[##################\.\.\]$/);
    assert.match(lines[2], /^default\s+quiet\s+pv-quiet\s+1Gi\s+102Mi\s+921Mi\s+10%\s+\[##\.{18}\]$/);
    assert.match(lines[3], /^default\s+pending\s+-(\s+-){4}\s+claim is Pending$/);
    assert.match(lines[4], /^default\s+unmeasured\s+pv-unmeasured(\s+-){4}\s+not measured yet$/);
    assert.equal(lines.length, 5);
  });

  test('--output json gives the same rows as data', async () => {
    const res = await runCli(['usage', '--kubeconfig', api.server.kubeconfigPath, '--metrics-url', `${metrics.url}/metrics`, '-o', 'json']);
    assert.equal(res.code, 0, res.stderr);
    const parsed = JSON.parse(res.stdout) as { claims: Array<{ claim: string; usedPercent?: number; usedBytes?: number }> };
    assert.deepEqual(
      parsed.claims.map((c) => [c.claim, c.usedPercent]),
      [
        ['busy', 90],
        ['quiet', 10],
        ['pending', undefined],
        ['unmeasured', undefined],
      ],
    );
    assert.equal(parsed.claims[0].usedBytes, (GI * 9) / 10);
  });

  test('an unreachable metrics endpoint still lists the claims, says why, and exits 1', async () => {
    const stopped = await startMetricsServer({ listen: '127.0.0.1:0', metrics: { render: () => Promise.reject(new Error('x')) }, readiness: [] });
    await stopped.stop();
    const res = await runCli(['usage', '--kubeconfig', api.server.kubeconfigPath, '--metrics-url', `${stopped.url}/metrics`]);
    assert.equal(res.code, 1);
    assert.match(res.stderr, /cannot read http:\/\/127\.0\.0\.1:\d+\/metrics/);
    const lines = res.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 5);
    for (const line of lines.slice(1)) assert.match(line, /metrics unavailable: /);
  });

  test('a bad --output value is a usage error (exit 2)', async () => {
    const res = await runCli(['usage', '--kubeconfig', api.server.kubeconfigPath, '-o', 'yaml']);
    assert.equal(res.code, 2);
    assert.match(res.stderr, /Allowed choices are table, json/);
  });
});
