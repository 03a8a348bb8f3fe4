/**
 * The pure parts of the real nodes (tools/cluster/node-*.ts): the OCI archives they import are
 * self-consistent (every digest is the blob's sha256, the name is where ctr reads it), the
 * kubelet's configuration carries the settings this machine needs, the node tokens name the
 * Node authorizer's user and group, and the nodes suite's Prometheus parsing finds a claim's
 * series whatever the label order.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { kubeletConfig, kubeletKubeconfig, type NodePaths } from '../../tools/cluster/node-config.js';
import { nodeNames, nodeTokenLines } from '../../tools/cluster/node-credentials.js';
import { writeOciArchive } from '../../tools/cluster/node-images.js';
import { scrape, volumeStat } from '../cluster/nodes/pods.js';

const paths: NodePaths = {
  dir: '/n', containerdRoot: '/n/c/root', containerdState: '/n/c/state', containerdSocket: '/n/c/containerd.sock', runcRoot: '/n/c/runc',
  cniConfDir: '/n/cni/net.d', cniBinDir: '/n/cni/bin', optDir: '/n/c/opt', kubeletRoot: '/n/kubelet', podLogsDir: '/n/logs',
  kubeletConfig: '/n/k.yaml', kubeletKubeconfig: '/n/k.kubeconfig', containerdConfig: '/n/c.toml',
};

test('an OCI archive written for a node: index → manifest → config and layer, each named by the sha256 of its bytes, the image name where ctr reads it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pv-oci-test-'));
  try {
    const out = join(dir, 'img.tar');
    writeOciArchive({ ref: 'localhost/test/one:1.0', entrypoint: ['/hello'], fill: (root) => writeFileSync(join(root, 'hello'), 'hi\n') }, out);
    const layout = join(dir, 'layout');
    execFileSync('mkdir', [layout]);
    execFileSync('tar', ['-C', layout, '-xf', out]);
    const blob = (digest: string): Buffer => {
      const hex = digest.replace(/^sha256:/, '');
      const data = readFileSync(join(layout, 'blobs', 'sha256', hex));
      assert.equal(createHash('sha256').update(data).digest('hex'), hex, `blob ${hex} hashes to its name`);
      return data;
    };
    const index = JSON.parse(readFileSync(join(layout, 'index.json'), 'utf8')) as { manifests: Array<{ digest: string; size: number; annotations: Record<string, string> }> };
    assert.equal(index.manifests.length, 1);
    assert.equal(index.manifests[0].annotations['io.containerd.image.name'], 'localhost/test/one:1.0');
    const manifestBytes = blob(index.manifests[0].digest);
    assert.equal(manifestBytes.length, index.manifests[0].size);
    const manifest = JSON.parse(manifestBytes.toString()) as { config: { digest: string }; layers: Array<{ digest: string; size: number }> };
    const config = JSON.parse(blob(manifest.config.digest).toString()) as { rootfs: { diff_ids: string[] }; config: { Entrypoint: string[] } };
    assert.deepEqual(config.config.Entrypoint, ['/hello']);
    const layer = blob(manifest.layers[0].digest);
    assert.equal(config.rootfs.diff_ids[0], manifest.layers[0].digest, 'an uncompressed layer: its diff ID is its digest');
    const files = execFileSync('tar', ['-t'], { input: layer, encoding: 'utf8' }).split('\n').filter(Boolean);
    assert.deepEqual(files, ['./', './hello']);
    // Reproducible: the same content gives the same manifest.
    const again = join(dir, 'again.tar');
    writeOciArchive({ ref: 'localhost/test/one:1.0', entrypoint: ['/hello'], fill: (root) => writeFileSync(join(root, 'hello'), 'hi\n') }, again);
    assert.equal(createHash('sha256').update(readFileSync(again)).digest('hex'), createHash('sha256').update(readFileSync(out)).digest('hex'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the kubelet configuration: cgroup v1 allowed, cgroupfs under its own root, loopback ports with the read-only port off, webhook auth with the client CA', () => {
  const cfg = parse(kubeletConfig(paths, { nodeName: 'node-1', port: 20250, healthzPort: 20251, cgroupRoot: '/pv-nodes-ab/node-1', clientCaFile: '/ca.crt', maxPods: 250 })) as Record<string, unknown>;
  assert.equal(cfg.kind, 'KubeletConfiguration');
  assert.equal(cfg.failCgroupV1, false);
  assert.equal(cfg.cgroupDriver, 'cgroupfs');
  assert.equal(cfg.cgroupRoot, '/pv-nodes-ab/node-1');
  assert.deepEqual([cfg.address, cfg.port, cfg.readOnlyPort, cfg.healthzBindAddress, cfg.healthzPort], ['127.0.0.1', 20250, 0, '127.0.0.1', 20251]);
  assert.equal(cfg.containerRuntimeEndpoint, 'unix:///n/c/containerd.sock');
  assert.deepEqual(cfg.authentication, { anonymous: { enabled: false }, webhook: { enabled: true }, x509: { clientCAFile: '/ca.crt' } });
  assert.equal(cfg.maxPods, 250);
  const kc = parse(kubeletKubeconfig('https://127.0.0.1:6443', 'PEM', 'node-1', 'tok')) as { users: Array<{ name: string; user: { token: string } }> };
  assert.deepEqual(kc.users, [{ name: 'system:node:node-1', user: { token: 'tok' } }]);
});

test('node tokens: one line per node, user system:node:<name> in group system:nodes', () => {
  assert.deepEqual(nodeNames(3), ['node-1', 'node-2', 'node-3']);
  assert.equal(nodeTokenLines({ 'node-1': 'a', 'node-2': 'b' }), 'a,system:node:node-1,node-node-1,system:nodes\nb,system:node:node-2,node-node-2,system:nodes\n');
});

test('kubelet_volume_stats_* of a claim, whatever the label order, and not a longer series of the same prefix', () => {
  const text = [
    '# HELP kubelet_volume_stats_inodes x',
    'kubelet_volume_stats_inodes{namespace="default",persistentvolumeclaim="data"} 5120',
    'kubelet_volume_stats_inodes_used{persistentvolumeclaim="data",namespace="default"} 13',
    'kubelet_volume_stats_used_bytes{namespace="other",persistentvolumeclaim="data"} 1',
    'kubelet_volume_stats_used_bytes{namespace="default",persistentvolumeclaim="data"} 5.5e+06',
  ].join('\n');
  const s = scrape(text);
  assert.equal(volumeStat(s, 'inodes', 'default', 'data'), 5120);
  assert.equal(volumeStat(s, 'inodes_used', 'default', 'data'), 13);
  assert.equal(volumeStat(s, 'used_bytes', 'default', 'data'), 5_500_000);
  assert.equal(volumeStat(s, 'capacity_bytes', 'default', 'data'), undefined);
});
