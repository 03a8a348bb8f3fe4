/**
 * local-path:build's bookkeeping: the binary is rebuilt when missing or stamped with another
 * release than tools/local-path/go.mod asks for, and gomod.ts writes that go.mod.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { localPathGoMod } from '../../tools/cluster/gomod.js';
import { LOCAL_PATH_MODULE, LOCAL_PATH_MODULE_DIR, localPathBinaryPath, localPathStale, localPathTarget, localPathUnavailable, localPathVersion } from '../../tools/cluster/local-path-build.js';

describe('which local-path-provisioner local-path:build rebuilds', () => {
  let cache = '';
  const saved = process.env.PV_CLUSTER_CACHE;
  before(() => {
    cache = mkdtempSync(join(tmpdir(), 'local-path-cache-'));
    process.env.PV_CLUSTER_CACHE = cache;
  });
  after(() => {
    if (saved === undefined) delete process.env.PV_CLUSTER_CACHE;
    else process.env.PV_CLUSTER_CACHE = saved;
    rmSync(cache, { recursive: true, force: true });
  });

  const install = (stamp: string | undefined): void => {
    const out = localPathBinaryPath();
    mkdirSync(join(out, '..'), { recursive: true });
    writeFileSync(out, '#!/bin/sh\n');
    chmodSync(out, 0o755);
    if (stamp === undefined) rmSync(`${out}.version`, { force: true });
    else writeFileSync(`${out}.version`, `${stamp}\n`);
  };

  it('builds it when the cache lacks it, and says how in a skip', () => {
    assert.equal(localPathStale(), true);
    assert.match(localPathUnavailable() ?? '', /local-path-provisioner is not built .*(npm run local-path:build|Go is not installed)/);
  });

  it('keeps one stamped with the release the wrapper asks for', () => {
    install(localPathTarget().stamp);
    assert.equal(localPathStale(), false);
    assert.equal(localPathUnavailable(), undefined);
  });

  it('rebuilds one of another release, or with no stamp', () => {
    install(`${LOCAL_PATH_MODULE} v0.0.1`);
    assert.equal(localPathStale(), true);
    install(undefined);
    assert.equal(localPathStale(), true);
  });

  it('builds the module root with its version stamped into main.VERSION', () => {
    const t = localPathTarget('v0.0.30');
    assert.equal(t.pkg, LOCAL_PATH_MODULE);
    assert.equal(t.dir, LOCAL_PATH_MODULE_DIR);
    assert.match(t.ldflags, /-X main\.VERSION=v0\.0\.30/);
  });
});

describe('tools/local-path/go.mod', () => {
  it('requires the release and names it as a tool, as gomod.ts writes it', () => {
    const mod = localPathGoMod('v0.0.31');
    assert.match(mod, /^module pv-controller\.local\/tools\/local-path$/m);
    assert.match(mod, /^require github\.com\/rancher\/local-path-provisioner v0\.0\.31$/m);
    assert.match(mod, /^tool github\.com\/rancher\/local-path-provisioner$/m);
  });

  it('the checked-in wrapper asks for v0.0.30', () => {
    assert.equal(localPathVersion(), 'v0.0.30');
    assert.match(readFileSync(join(LOCAL_PATH_MODULE_DIR, 'go.mod'), 'utf8'), /^tool github\.com\/rancher\/local-path-provisioner$/m);
  });
});
