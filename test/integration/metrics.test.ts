/**
 * Usage metrics end to end: a controller against the embedded API server, host-path volumes
 * measured by du, /metrics scraped over HTTP and parsed as Prometheus text.
 */
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CoreV1Api, StorageV1Api } from '@kubernetes/client-node';
import { ANN_PROVISIONED_BY } from '@pv-controller/kube/annotations.js';
import { DuMetricsProvider } from '../../src/metrics/du.js';
import { parseExposition, type Sample } from '../../src/metrics/text-format.js';
import { HostPathPlugin } from '../../src/plugins/host-path/index.js';
import type { VolumePlugin } from '../../src/plugins/api/core.js';
import { startTestCluster, type TestCluster } from '../helpers/cluster.js';
import { waitFor } from '../helpers/wait.js';

const SLOW_PROVISIONER = 'example.com/slow-disk';
const MI = 1024 * 1024;

/** Host-path volumes whose usage is measured by a `du` that never finishes. */
function slowDiskPlugin(root: string, duCommand: string): VolumePlugin {
  const base = new HostPathPlugin({ roots: [root] });
  return {
    name: SLOW_PROVISIONER,
    maxBackingNameLength: base.maxBackingNameLength,
    validateParameters: (parameters) => base.validateParameters(parameters),
    handles: (pv) => pv.metadata.annotations?.[ANN_PROVISIONED_BY] === SLOW_PROVISIONER,
    provision: (req) => base.provision(req),
    delete: (req) => base.delete(req),
    metricsFor: (pv) => new DuMetricsProvider(pv.spec.hostPath?.path ?? '', { duCommand, timeoutMs: 600_000 }),
  };
}

/** What du -s -x -P -B1 and --inodes report for a directory: allocated bytes, each inode once. */
async function duOf(dir: string): Promise<{ bytes: number; inodes: number }> {
  let bytes = 0;
  let inodes = 0;
  const visit = async (path: string): Promise<void> => {
    const st = await fs.lstat(path);
    bytes += st.blocks * 512;
    inodes += 1;
    if (st.isDirectory()) for (const name of await fs.readdir(path)) await visit(join(path, name));
  };
  await visit(dir);
  return { bytes, inodes };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function claimBody(name: string, storageClassName: string, size = '64Mi') {
  return {
    metadata: { name, namespace: 'default' },
    spec: { accessModes: ['ReadWriteOnce'], storageClassName, resources: { requests: { storage: size } } },
  };
}

describe('controller metrics over HTTP', () => {
  let cluster: TestCluster;
  let core: CoreV1Api;
  let metricsUrl: string;
  let scratch: string;
  let duPidFile: string;

  before(async () => {
    scratch = await fs.mkdtemp(join(tmpdir(), 'pvc-metrics-it-'));
    const slowRoot = join(scratch, 'slow');
    await fs.mkdir(slowRoot);
    duPidFile = join(scratch, 'du.pids');
    const hangingDu = join(scratch, 'hanging-du');
    await fs.writeFile(hangingDu, `#!/bin/sh\necho $$ >> '${duPidFile}'\nexec sleep 600\n`, { mode: 0o755 });
    cluster = await startTestCluster({
      plugins: [slowDiskPlugin(slowRoot, hangingDu)],
      controllerOptions: { metricsBindAddress: '127.0.0.1:0', volumeStatsAggPeriodMs: 200 },
    });
    core = cluster.kc.makeApiClient(CoreV1Api);
    const storage = cluster.kc.makeApiClient(StorageV1Api);
    await storage.createStorageClass({ body: { metadata: { name: 'standard' }, provisioner: 'kubernetes.io/host-path', reclaimPolicy: 'Delete' } });
    await storage.createStorageClass({ body: { metadata: { name: 'slow' }, provisioner: SLOW_PROVISIONER, reclaimPolicy: 'Delete' } });
    const url = cluster.controller?.observability.server?.url;
    assert.ok(url, 'the controller serves metrics');
    metricsUrl = url;
  });

  after(async () => {
    await cluster?.stop();
    await fs.rm(scratch, { recursive: true, force: true });
  });

  async function scrape(): Promise<Sample[]> {
    const res = await fetch(`${metricsUrl}/metrics`);
    assert.equal(res.status, 200);
    return parseExposition(await res.text()).samples;
  }

  const valueOf = (samples: Sample[], name: string, labels: Record<string, string>): number | undefined =>
    samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;

  async function boundClaim(name: string): Promise<string> {
    return waitFor(async () => {
      const c = await core.readNamespacedPersistentVolumeClaim({ name, namespace: 'default' });
      return c.status?.phase === 'Bound' ? c.spec?.volumeName : undefined;
    }, `claim ${name} Bound`);
  }

  test('/readyz answers ok once the caches have synced, /healthz always', async () => {
    const body = await waitFor(async () => {
      const res = await fetch(`${metricsUrl}/readyz?verbose`);
      return res.status === 200 ? res.text() : undefined;
    }, '/readyz 200');
    assert.match(body, /\[\+\]informer-sync ok/);
    assert.equal(await (await fetch(`${metricsUrl}/healthz`)).text(), 'ok');
  });

  test('a bound claim whose directory holds known bytes is reported with its labels and du\'s numbers', async () => {
    await core.createNamespacedPersistentVolumeClaim({ namespace: 'default', body: claimBody('data', 'standard') });
    const pvName = await boundClaim('data');
    const dir = (await core.readPersistentVolume({ name: pvName })).spec?.hostPath?.path;
    assert.ok(dir);
    await fs.writeFile(join(dir, 'blob'), Buffer.alloc(3 * MI, 7));
    await fs.mkdir(join(dir, 'sub'));
    await fs.writeFile(join(dir, 'sub', 'note'), 'hello');
    const expected = await duOf(dir);
    const labels = { namespace: 'default', persistentvolumeclaim: 'data' };
    const samples = await waitFor(async () => {
      const s = await scrape();
      return valueOf(s, 'kubelet_volume_stats_used_bytes', labels) === expected.bytes ? s : undefined;
    }, `kubelet_volume_stats_used_bytes = ${expected.bytes}`);
    assert.ok(expected.bytes >= 3 * MI);
    assert.equal(valueOf(samples, 'kubelet_volume_stats_inodes_used', labels), expected.inodes);
    assert.equal(valueOf(samples, 'kubelet_volume_stats_capacity_bytes', labels), 64 * MI, 'capped by the volume\'s capacity');
    const available = valueOf(samples, 'kubelet_volume_stats_available_bytes', labels) ?? -1;
    assert.ok(available >= 0 && available <= 64 * MI - expected.bytes, `available ${available}`);
    assert.ok((valueOf(samples, 'kubelet_volume_stats_inodes', labels) ?? 0) > 0);
    assert.ok(valueOf(samples, 'pv_collector_volume_stats_collection_duration_seconds_count', { volume_plugin: 'kubernetes.io/host-path' }));
  });

  test('pv_collector counts match the objects in the cluster', async () => {
    await core.createPersistentVolume({
      body: {
        metadata: { name: 'spare' },
        spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: 'manual', hostPath: { path: '/tmp/spare' } },
      },
    });
    await core.createNamespacedPersistentVolumeClaim({ namespace: 'default', body: claimBody('waiting', 'no-such-class') });
    const counts = (s: Sample[]) => ({
      boundPv: valueOf(s, 'pv_collector_bound_pv_count', { storage_class: 'standard' }),
      unboundPv: valueOf(s, 'pv_collector_unbound_pv_count', { storage_class: 'manual' }),
      boundPvc: valueOf(s, 'pv_collector_bound_pvc_count', { namespace: 'default', storage_class: 'standard' }),
      unboundPvc: valueOf(s, 'pv_collector_unbound_pvc_count', { namespace: 'default', storage_class: 'no-such-class' }),
    });
    const want = { boundPv: 1, unboundPv: 1, boundPvc: 1, unboundPvc: 1 };
    const samples = await waitFor(async () => {
      const s = await scrape();
      return JSON.stringify(counts(s)) === JSON.stringify(want) ? s : undefined;
    }, `pv_collector counts ${JSON.stringify(want)}`);
    assert.ok((valueOf(samples, 'workqueue_adds_total', { name: 'claims' }) ?? 0) > 0);
    assert.equal(samples.filter((s) => s.name === 'pv_collector_bound_pv_count').length, 1, 'only the standard class has bound volumes');
  });

  test('the controller keeps binding while a volume\'s du hangs', async () => {
    await core.createNamespacedPersistentVolumeClaim({ namespace: 'default', body: claimBody('slow-1', 'slow') });
    await boundClaim('slow-1');
    const pid = await waitFor(async () => {
      const text = await fs.readFile(duPidFile, 'utf8').catch(() => '');
      const first = Number.parseInt(text.split('\n')[0] ?? '', 10);
      return Number.isInteger(first) ? first : undefined;
    }, 'the hanging du to start');
    await core.createNamespacedPersistentVolumeClaim({ namespace: 'default', body: claimBody('after-hang', 'standard') });
    await boundClaim('after-hang');
    assert.ok(isAlive(pid), 'du was still hanging while the claim bound');
    const samples = await scrape();
    assert.ok(valueOf(samples, 'kubelet_volume_stats_used_bytes', { namespace: 'default', persistentvolumeclaim: 'data' }), 'metrics still served');
    const pids = (await fs.readFile(duPidFile, 'utf8')).trim().split('\n');
    assert.equal(pids.length, 1, 'a hung volume is not measured again while its du runs');
  });

  test('stopping the controller kills the hung du', async () => {
    const pid = Number.parseInt((await fs.readFile(duPidFile, 'utf8')).split('\n')[0], 10);
    await cluster.stopController();
    await waitFor(() => !isAlive(pid), `du ${pid} to be killed`, { timeoutMs: 10_000 });
  });
});
