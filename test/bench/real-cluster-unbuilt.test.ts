import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runBench } from '../helpers/bench.js';
import { REAL_CLUSTER_SCENARIOS } from '../../bench/scenarios/index.js';

describe('npm run bench -- --real-cluster without the control plane built', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-real-unbuilt-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('skips every side-by-side scenario with the reason, writes their records and exits 0', { timeout: 120_000 }, async () => {
    const cache = join(dir, 'empty-cache');
    const results = join(dir, 'results');
    const run = await runBench(['--real-cluster', '--quick', '--results-dir', results], { PV_CLUSTER_CACHE: cache });
    assert.equal(run.code, 0, run.stderr.slice(-2000));
    for (const scenario of REAL_CLUSTER_SCENARIOS) {
      assert.match(run.stdout, new RegExp(`^${scenario.name}\\s.*skipped: the real control plane is not built \\(missing etcd`, 'm'));
      assert.ok(readdirSync(results).some((f) => f.startsWith(`${scenario.name}-`)), `no record for ${scenario.name}`);
    }
  });
});
