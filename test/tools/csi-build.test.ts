/**
 * The CSI binaries' cache bookkeeping (a `.version` stamp beside each binary decides a rebuild)
 * and the generator of tools/csi-sidecars/go.mod (the provisioner's replace lines carried over).
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { csiBinaryPath } from '../../tools/cluster/binaries.js';
import { csiTarget, staleCsiBinaries } from '../../tools/cluster/csi-build.js';
import { csiSidecarsGoMod, replaceLines } from '../../tools/cluster/gomod.js';

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
    assert.deepEqual(staleCsiBinaries(), ['csi-mock', 'csi-provisioner', 'csi-resizer']);
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

  it('stamps the sidecars with their module and release, and passes the release to main.version', () => {
    const t = csiTarget('csi-provisioner');
    const release = /v6\.\d+\.\d+$/.exec(t.stamp ?? '')?.[0];
    assert.ok(release, t.stamp);
    assert.equal(t.stamp, `github.com/kubernetes-csi/external-provisioner/v6 ${release}`);
    assert.match(t.ldflags, new RegExp(`-X main\\.version=${release.replace(/\./g, '\\.')}$`));
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
