import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { missedTargets, renderTable, writeRecord } from '../../bench/report.js';
import { checkAtLeast, checkAtMost, skippedRow, type BenchOptions, type ResultRow } from '../../bench/scenario.js';

const rows: ResultRow[] = [
  { scenario: 'apiserver', label: 'memory, 0 watchers', status: 'ok', measured: '0.71× bare', target: checkAtLeast(0.71, 0.6, '≥ 0.6× bare') },
  { scenario: 'bind', label: 'writes per claim', status: 'ok', measured: '4.50', target: checkAtMost(4.5, 4.2, '≤ 4.2') },
  { scenario: 'bind', label: 'rss', status: 'ok', measured: 'n/a', target: checkAtMost(null, 300, '< 300 MB', true) },
  skippedRow('provision', 'host-path', 'the host-path plugin has not landed'),
];

describe('bench report', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-report-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the table marks a met target ✓, a missed one ✗ and an unmeasured one ?', () => {
    const lines = renderTable(rows).split('\n');
    assert.match(lines[0], /^scenario\s+case\s+measured\s+target$/);
    assert.match(lines[2], /0\.71× bare\s+≥ 0\.6× bare\s+✓$/);
    assert.match(lines[3], /4\.50\s+≤ 4\.2\s+✗$/);
    assert.match(lines[4], /n\/a\s+< 300 MB\s+\?$/);
    assert.match(lines[5], /skipped: the host-path plugin has not landed$/);
  });

  it('only evaluated, missed targets count as missed', () => {
    assert.deepEqual(missedTargets(rows).map((r) => r.label), ['writes per claim']);
  });

  it('a strict upper bound fails at the bound itself', () => {
    assert.equal(checkAtMost(2, 2, '< 2×', true).pass, false);
    assert.equal(checkAtMost(2, 2, '≤ 2×').pass, true);
  });

  it('each scenario gets a JSON record named <scenario>-<timestamp>.json with rows and details', () => {
    const opts = { resultsDir: dir, workDir: '/nonexistent' } as BenchOptions;
    const path = writeRecord(opts, 'bind', { rows, details: { samples: [1, 2] } }, new Date('2026-11-29T21:24:45.123Z'));
    assert.equal(path, join(dir, 'bind-2026-11-29T21-24-45-123Z.json'));
    assert.deepEqual(readdirSync(dir), ['bind-2026-11-29T21-24-45-123Z.json']);
    const record = JSON.parse(readFileSync(path, 'utf8')) as { scenario: string; rows: ResultRow[]; details: unknown; environment: { node: string } };
    assert.equal(record.scenario, 'bind');
    assert.equal(record.rows.length, rows.length);
    assert.deepEqual(record.details, { samples: [1, 2] });
    assert.equal(record.environment.node, process.version);
  });
});
