import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runBench } from '../helpers/bench.js';
import type { ResultRow } from '../../bench/scenario.js';
import { SCENARIOS } from '../../bench/scenarios/index.js';

describe('npm run bench -- --quick (tiny sizes)', () => {
  const resultsDir = mkdtempSync(join(tmpdir(), 'bench-quick-'));
  after(() => rmSync(resultsDir, { recursive: true, force: true }));

  it('runs every scenario, prints a table row for each and writes one JSON record per scenario', { timeout: 600_000 }, async (t) => {
    const run = await runBench([
      '--quick', '--repetitions', '1', '--n', '20', '--writes', '60', '--concurrency', '4', '--results-dir', resultsDir,
    ]);
    // Exit 1 means a scenario reported a failure of the code under test in its row; the harness
    // itself must still have finished and printed the table. Anything else is a harness bug.
    assert.ok(run.code === 0 || run.code === 1, `bench crashed (${run.code}):\n${run.stderr.slice(-3000)}`);
    assert.match(run.stdout, /^scenario\s+case\s+measured\s+target/m, `no results table:\n${run.stderr.slice(-3000)}`);
    const failed = run.stdout.split('\n').filter((l) => /\s{2}failed: /.test(l));
    assert.equal(run.code === 1, failed.length > 0, 'exit 1 exactly when a row failed');
    for (const line of failed) t.diagnostic(`failed row (code under test): ${line.replace(/\s+/g, ' ')}`);
    const records = readdirSync(resultsDir).filter((f) => f.endsWith('.json'));
    for (const scenario of SCENARIOS) {
      assert.match(run.stdout, new RegExp(`^${scenario.name}\\s`, 'm'), `no row for ${scenario.name}`);
      const file = records.find((f) => new RegExp(`^${scenario.name}-\\d{4}-\\d\\d-\\d\\dT[\\d-]+Z\\.json$`).test(f));
      assert.ok(file, `no JSON record for ${scenario.name} in ${records.join(', ')}`);
      const record = JSON.parse(readFileSync(join(resultsDir, file), 'utf8')) as { rows: ResultRow[] };
      assert.ok(record.rows.length > 0);
      for (const row of record.rows) {
        // Every row is a measurement, or says honestly why there is none.
        if (row.status === 'skipped') assert.match(row.measured, /^skipped: \S/);
        else if (row.status === 'failed') assert.match(row.measured, /^failed: \S/);
        else assert.match(row.measured, /\d/);
      }
    }
    // The harness's own floor always runs: the bare server with both client loops.
    assert.match(run.stdout, /^apiserver\s+bare node:https server, raw https \(the limit\)\s+[\d,]+ writes\/s/m);
    assert.match(run.stdout, /^apiserver\s+bare node:https server, client-node\s+[\d,]+ writes\/s/m);
    assert.match(run.stderr, /\[apiserver rep 1\/1 bare\/raw-https\] done: 60\/60 writes/);
    // The controller's memory per cached object is measured above its RSS on an empty server.
    assert.match(run.stdout, /^bind\s+controller RSS per cached object above empty, memory, 20\+20\s+-?[\d,.]+ KB \(peak [\d,]+ MB − empty [\d,]+ MB, over 42 objects\)/m);
  });

  it('rejects an unknown scenario with a usage error before running anything', async () => {
    const run = await runBench(['--scenario', 'nope', '--results-dir', resultsDir]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /unknown scenario "nope"/);
    assert.deepEqual(readdirSync(resultsDir).filter((f) => f.startsWith('nope')), []);
  });
});
