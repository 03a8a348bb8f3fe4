/**
 * The CSI binaries' cache bookkeeping (a `.version` stamp beside each binary decides a rebuild)
 * and the generators of tools/csi-sidecars/go.mod (the provisioner's replace lines carried over)
 * and tools/csi-snapshotter/go.mod (the snapshotter's, and its client module at the same release).
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { csiBinaryPath, CSI_SIDECARS_MODULE_DIR, CSI_SNAPSHOTTER_MODULE_DIR } from '../../tools/cluster/binaries.js';
import { csiTarget, staleCsiBinaries } from '../../tools/cluster/csi-build.js';
import { csiSidecarsGoMod, csiSnapshotterGoMod, replaceLines } from '../../tools/cluster/gomod.js';

describe('which CSI binaries csi:build rebuilds', () => {
  let cache = '';
  const saved = process.env.PV_CLUSTER_CACHE;
  before(() => {
    cache = mkdtempSync(join(tmpdir(), 'csi-cache-'));
    process.env.PV_CLUSTER_CACHE = cache;
  });
  after(() => {
    if (saved === undefined) delete process.env.PV_CLUSTER_CACHE;
    else process.env.PV_CLUSTER_CACHE = saved;
    rmSync(cache, { recursive: true, force: true });
  });

  const install = (name: 'csi-mock' | 'csi-resizer', stamp: string | undefined): void => {
    const out = csiBinaryPath(name);
    mkdirSync(join(out, '..'), { recursive: true });
    writeFileSync(out, '#!/bin/sh\n');
    chmodSync(out, 0o755);
    if (stamp === undefined) rmSync(`${out}.version`, { force: true });
    else writeFileSync(`${out}.version`, `${stamp}\n`);
  };

  it('rebuilds every binary the cache lacks', () => {
    assert.deepEqual(staleCsiBinaries(), ['csi-mock', 'csi-registrar', 'csi-provisioner', 'csi-resizer', 'snapshot-controller', 'csi-snapshotter']);
  });

  it('keeps a binary whose stamp says what the repository asks for', () => {
    install('csi-resizer', csiTarget('csi-resizer').stamp);
    assert.deepEqual(staleCsiBinaries(['csi-resizer']), []);
  });

  it('rebuilds a binary built from another release, or with no stamp', () => {
    install('csi-resizer', 'github.com/kubernetes-csi/external-resizer/v2 v2.0.0');
    assert.deepEqual(staleCsiBinaries(['csi-resizer']), ['csi-resizer']);
    install('csi-mock', undefined);
    assert.deepEqual(staleCsiBinaries(['csi-mock']), ['csi-mock']);
  });

  it('stamps csi-registrar with the Kubernetes release and its main.go, built from tools/k8s', () => {
    const t = csiTarget('csi-registrar');
    assert.match(t.stamp ?? '', /^csi-registrar of Kubernetes v\d+\.\d+\.\d+, main\.go sha256:[0-9a-f]{12}$/);
    assert.equal(t.pkg, './cmd/csi-registrar');
    assert.match(csiTarget('csi-mock').stamp ?? '', /^csi-mock of Kubernetes /);
  });

  it('stamps the sidecars with their module and release, and passes the release to main.version', () => {
    const t = csiTarget('csi-provisioner');
    const release = /v6\.\d+\.\d+$/.exec(t.stamp ?? '')?.[0];
    assert.ok(release, t.stamp);
    assert.equal(t.stamp, `github.com/kubernetes-csi/external-provisioner/v6 ${release}`);
    assert.match(t.ldflags, new RegExp(`-X main\\.version=${release.replace(/\./g, '\\.')}$`));
  });

  it('builds snapshot-controller and csi-snapshotter from the snapshotter wrapper, stamped with its release', () => {
    for (const name of ['snapshot-controller', 'csi-snapshotter'] as const) {
      const t = csiTarget(name);
      assert.equal(t.dir, CSI_SNAPSHOTTER_MODULE_DIR);
      assert.equal(t.pkg, `github.com/kubernetes-csi/external-snapshotter/v8/cmd/${name}`);
      assert.match(t.stamp ?? '', /^github\.com\/kubernetes-csi\/external-snapshotter\/v8 v8\.\d+\.\d+$/);
    }
    assert.equal(csiTarget('csi-provisioner').dir, CSI_SIDECARS_MODULE_DIR);
  });
});

describe('tools/csi-sidecars/go.mod generator', () => {
  const upstream = [
    'module github.com/kubernetes-csi/external-provisioner/v6',
    '',
    'require k8s.io/kubernetes v1.36.3',
    '',
    'replace k8s.io/api => k8s.io/api v0.36.1',
    '',
    'replace (',
    '\tk8s.io/client-go => k8s.io/client-go v0.36.1',
    '\tk8s.io/local => ../local',
    ')',
    '',
  ].join('\n');

  it('carries over versioned replace lines of both forms, and no local-path ones', () => {
    assert.deepEqual(replaceLines(upstream), ['k8s.io/api => k8s.io/api v0.36.1', 'k8s.io/client-go => k8s.io/client-go v0.36.1']);
  });

  it('requires both sidecars, lists their commands as tools and replaces as upstream does', () => {
    const mod = csiSidecarsGoMod('v6.4.0', 'v2.3.0', replaceLines(upstream));
    assert.match(mod, /^module pv-controller\.local\/tools\/csi-sidecars$/m);
    assert.match(mod, /^\tgithub\.com\/kubernetes-csi\/external-provisioner\/v6 v6\.4\.0$/m);
    assert.match(mod, /^\tgithub\.com\/kubernetes-csi\/external-resizer\/v2 v2\.3\.0$/m);
    assert.match(mod, /^\tgithub\.com\/kubernetes-csi\/external-provisioner\/v6\/cmd\/csi-provisioner$/m);
    assert.match(mod, /^\tgithub\.com\/kubernetes-csi\/external-resizer\/v2\/cmd\/csi-resizer$/m);
    assert.match(mod, /^replace \(\n\tk8s\.io\/api => k8s\.io\/api v0\.36\.1\n\tk8s\.io\/client-go => k8s\.io\/client-go v0\.36\.1\n\)$/m);
  });
});

describe('tools/csi-snapshotter/go.mod generator', () => {
  const upstream = [
    'module github.com/kubernetes-csi/external-snapshotter/v8',
    '',
    'require github.com/kubernetes-csi/external-snapshotter/client/v8 v8.6.0',
    '',
    'replace github.com/kubernetes-csi/external-snapshotter/client/v8 => ./client',
    '',
    'replace k8s.io/kms => k8s.io/kms v0.37.0',
    '',
    'replace k8s.io/kubelet => k8s.io/kubelet v0.37.0',
    '',
  ].join('\n');

  it("drops the snapshotter's ./client directory replace and keeps its versioned ones", () => {
    assert.deepEqual(replaceLines(upstream), ['k8s.io/kms => k8s.io/kms v0.37.0', 'k8s.io/kubelet => k8s.io/kubelet v0.37.0']);
  });

  it('requires the snapshotter and its client module at one release and lists both commands as tools', () => {
    const mod = csiSnapshotterGoMod('v8.7.0', replaceLines(upstream));
    assert.match(mod, /^module pv-controller\.local\/tools\/csi-snapshotter$/m);
    assert.match(mod, /^\tgithub\.com\/kubernetes-csi\/external-snapshotter\/v8 v8\.7\.0$/m);
    assert.match(mod, /^\tgithub\.com\/kubernetes-csi\/external-snapshotter\/client\/v8 v8\.7\.0$/m);
    assert.match(mod, /^\tgithub\.com\/kubernetes-csi\/external-snapshotter\/v8\/cmd\/snapshot-controller$/m);
    assert.match(mod, /^\tgithub\.com\/kubernetes-csi\/external-snapshotter\/v8\/cmd\/csi-snapshotter$/m);
    assert.match(mod, /^replace \(\n\tk8s\.io\/kms => k8s\.io\/kms v0\.37\.0\n\tk8s\.io\/kubelet => k8s\.io\/kubelet v0\.37\.0\n\)$/m);
    assert.doesNotMatch(mod, /=> \.\/client/);
  });
});
