import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseExposition } from '../../src/metrics/text-format.js';
import {
  buildUsageRows,
  humanBytes,
  renderUsageJson,
  renderUsageTable,
  usageBar,
  usageByClaim,
  usedPercent,
  type ClaimSummary,
} from '../../src/metrics/usage-table.js';

const GI = 1024 ** 3;
const MI = 1024 ** 2;

function stats(ns: string, claim: string, capacity: number, used: number, available: number): string {
  const l = `{namespace="${ns}",persistentvolumeclaim="${claim}"}`;
  return [
    `kubelet_volume_stats_capacity_bytes${l} ${capacity}`,
    `kubelet_volume_stats_used_bytes${l} ${used}`,
    `kubelet_volume_stats_available_bytes${l} ${available}`,
    `kubelet_volume_stats_inodes${l} 1000`,
    `kubelet_volume_stats_inodes_used${l} 12`,
  ].join('\n');
}

const bound = (namespace: string, name: string): ClaimSummary => ({ namespace, name, phase: 'Bound', volumeName: `pvc-${name}` });

const SCRAPE = [
  '# TYPE kubelet_volume_stats_used_bytes gauge',
  stats('shop', 'half', 10 * GI, 5 * GI, 5 * GI),
  stats('shop', 'full', 10 * GI, 9.5 * GI, 0.5 * GI),
  stats('web', 'empty', 1 * GI, 8192, GI - 8192),
  stats('web', 'stale', 2 * GI, 1.5 * GI, 0.5 * GI),
  'pv_collector_volume_stats_failing{namespace="web",persistentvolumeclaim="stale",reason="timeout"} 1',
  'pv_collector_volume_stats_failing{namespace="web",persistentvolumeclaim="cloud",reason="not_supported"} 1',
  'unrelated_metric{namespace="shop",persistentvolumeclaim="half"} 99',
].join('\n');

const CLAIMS: ClaimSummary[] = [
  bound('shop', 'half'),
  bound('web', 'empty'),
  { namespace: 'web', name: 'waiting', phase: 'Pending' },
  bound('shop', 'full'),
  bound('web', 'cloud'),
  bound('web', 'stale'),
  bound('web', 'new'),
];

describe('usage table', () => {
  test('rows are sorted fullest first, then claims without numbers by namespace and name, each saying why', () => {
    const rows = buildUsageRows(CLAIMS, usageByClaim(parseExposition(SCRAPE).samples));
    assert.deepEqual(
      rows.map((r) => [r.claim, r.usedPercent, r.note]),
      [
        ['full', 95, undefined],
        ['stale', 75, 'stale: measurement timed out'],
        ['half', 50, undefined],
        ['empty', 1, undefined],
        ['cloud', undefined, 'usage metrics not supported for this volume type'],
        ['new', undefined, 'not measured yet'],
        ['waiting', undefined, 'claim is Pending'],
      ],
    );
    assert.equal(rows[0].usedBytes, 9.5 * GI);
    assert.equal(rows[0].inodesUsed, 12);
  });

  test('when /metrics could not be read every claim says so', () => {
    const rows = buildUsageRows(CLAIMS.slice(0, 2), new Map(), 'connect ECONNREFUSED 127.0.0.1:10258');
    assert.deepEqual(
      rows.map((r) => r.note),
      ['metrics unavailable: connect ECONNREFUSED 127.0.0.1:10258', 'metrics unavailable: connect ECONNREFUSED 127.0.0.1:10258'],
    );
  });

  test('the table shows sizes in binary units, the percentage and a proportional bar', () => {
    const rows = buildUsageRows(CLAIMS, usageByClaim(parseExposition(SCRAPE).samples));
    const lines = renderUsageTable(rows, 10).trimEnd().split('\n');
    assert.match(lines[0], /^NAMESPACE\s+NAME\s+VOLUME\s+CAPACITY\s+USED\s+AVAILABLE\s+USE%\s+NOTE$/);
    assert.match(lines[1], /^shop\s+full\s+pvc-full\s+10Gi\s+9\.5Gi\s+512Mi\s+95%\s+\[##########\]$/);
    assert.match(lines[3], /^shop\s+half\s+pvc-half\s+10Gi\s+5Gi\s+5Gi\s+50%\s+\[#####\.\.\.\.\.\]$/);
    assert.match(lines[7], /^web\s+waiting\s+-\s+-\s+-\s+-\s+-\s+claim is Pending$/);
    // Columns line up: every row's USE% ends where the header's does.
    const useEnd = lines[0].indexOf('USE%') + 4;
    for (const line of lines.slice(1, 5)) assert.equal(line[useEnd - 1], '%', line);
  });

  test('json output carries the numbers as numbers and omits what is unknown', () => {
    const rows = buildUsageRows([bound('shop', 'half'), bound('web', 'new')], usageByClaim(parseExposition(SCRAPE).samples));
    const parsed = JSON.parse(renderUsageJson(rows)) as { claims: Array<Record<string, unknown>> };
    assert.deepEqual(parsed.claims[0], {
      namespace: 'shop',
      claim: 'half',
      phase: 'Bound',
      volume: 'pvc-half',
      capacityBytes: 10 * GI,
      usedBytes: 5 * GI,
      availableBytes: 5 * GI,
      inodes: 1000,
      inodesUsed: 12,
      usedPercent: 50,
    });
    assert.deepEqual(parsed.claims[1], { namespace: 'web', claim: 'new', phase: 'Bound', volume: 'pvc-new', note: 'not measured yet' });
  });

  test('Use% is used / (used + available), rounded up like df', () => {
    assert.equal(usedPercent(1, 199), 1);
    assert.equal(usedPercent(0, 100), 0);
    assert.equal(usedPercent(100, 0), 100);
    assert.equal(usedPercent(1 * GI, 100 * MI), 92, 'a small volume on a nearly full shared disk shows as nearly full');
    assert.equal(usedPercent(0, 0), undefined);
    assert.equal(usedPercent(5, undefined), undefined);
  });

  test('bars and byte sizes', () => {
    assert.equal(usageBar(0, 4), '[....]');
    assert.equal(usageBar(50, 4), '[##..]');
    assert.equal(usageBar(100, 4), '[####]');
    assert.equal(usageBar(130, 4), '[####]');
    assert.deepEqual([0, 1023, 1024, 1536, 10 * 1024 + 900, 5 * GI, 9.99 * GI].map(humanBytes), ['0B', '1023B', '1Ki', '1.5Ki', '10Ki', '5Gi', '9.9Gi']);
  });
});
