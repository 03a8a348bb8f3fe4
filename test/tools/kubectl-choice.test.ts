/**
 * Which kubectl the tests and CI run: the one built with the control plane (the Kubernetes
 * version the project tests) where there is one, PATH's only where there is not — and CI's
 * apt-get waits for the package lock another apt-get may hold instead of failing.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { binaryPath, chooseKubectl, describeKubectl, findKubectl, REPO_ROOT } from '../../tools/cluster/binaries.js';
import { kubectlPath } from '../helpers/apiserver.js';

function executable(path: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o755);
}

describe('which kubectl the tests run', () => {
  let work = '';
  const saved = { cache: process.env.PV_CLUSTER_CACHE, path: process.env.PATH };
  before(() => {
    work = mkdtempSync(join(tmpdir(), 'kubectl-choice-'));
    process.env.PV_CLUSTER_CACHE = join(work, 'cache');
    process.env.PATH = join(work, 'path-bin');
  });
  after(() => {
    if (saved.cache === undefined) delete process.env.PV_CLUSTER_CACHE;
    else process.env.PV_CLUSTER_CACHE = saved.cache;
    process.env.PATH = saved.path;
    rmSync(work, { recursive: true, force: true });
  });

  it('finds none where neither the control plane build nor PATH has one, and says the tests skip', () => {
    assert.equal(chooseKubectl(), undefined);
    assert.match(describeKubectl(), /not found/);
  });

  it('uses PATH’s kubectl only where no control plane is built, and says so', () => {
    executable(join(work, 'path-bin', 'kubectl'));
    assert.deepEqual(chooseKubectl(), { path: join(work, 'path-bin', 'kubectl'), source: 'PATH' });
    assert.match(describeKubectl(), /from PATH/);
  });

  it('prefers the kubectl built with the control plane over the one on PATH, in every place that picks one', () => {
    executable(binaryPath('kubectl'));
    const built = binaryPath('kubectl');
    assert.deepEqual(chooseKubectl(), { path: built, source: 'control plane' });
    assert.equal(findKubectl(), built);
    assert.equal(kubectlPath(), built);
    assert.match(describeKubectl(), /built with the control plane, Kubernetes v\d+\.\d+\.\d+/);
  });
});

describe('CI (.ci/run)', () => {
  it('gives every apt-get a lock timeout, so a second apt-get holding the dpkg lock is waited for', () => {
    const script = readFileSync(join(REPO_ROOT, '.ci', 'run'), 'utf8');
    const calls = script.split('\n').filter((line) => /\bapt-get\s+(-\S+\s+)*(update|install)\b/.test(line.replace(/-o \S+/g, '')));
    assert.ok(calls.length >= 2, `apt-get update and install are found: ${calls.join(' | ')}`);
    for (const line of calls) assert.match(line, /-o DPkg::Lock::Timeout=\d+/, line);
  });

  it('prints which kubectl the tests run', () => {
    assert.match(readFileSync(join(REPO_ROOT, '.ci', 'run'), 'utf8'), /console\.log\('kubectl:', b\.describeKubectl\(\)\)/);
  });
});
