import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

test('the controller command exits 2 with a clear message on a bad flag value or an unknown flag', () => {
  for (const args of [['--pvclaimbinder-sync-period', '10x'], ['--no-such-flag'], ['--concurrent-syncs', '-1'], ['--nfs-mount', 'nfs.example:share']]) {
    const r = spawnSync(process.execPath, [MAIN, 'controller', ...args], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /error: /);
  }
});

test('the controller command documents its flags in --help', () => {
  const r = spawnSync(process.execPath, [MAIN, 'controller', '--help'], { encoding: 'utf8', timeout: 20_000 });
  assert.equal(r.status, 0);
  for (const flag of ['--pvclaimbinder-sync-period', '--leader-elect-resource-namespace', '--kube-api-qps', '--host-path-root']) {
    assert.ok(r.stdout.includes(flag), flag);
  }
});
