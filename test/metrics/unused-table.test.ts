import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { buildUnusedRows, humanAge, renderUnusedJson, renderUnusedTable } from '../../src/metrics/unused-table.js';
import { parseAge } from '../../src/controller/duration.js';

const NOW = new Date('2026-12-02T12:00:00Z');
const DAY = 86_400_000;

function claim(name: string, o: { phase?: string; unused?: string; since?: string | Date; capacity?: string; deleting?: boolean; ns?: string } = {}): PersistentVolumeClaim {
  const conditions = o.unused ? [{ type: 'Unused', status: o.unused, lastTransitionTime: o.since as string, reason: 'r', message: 'm' }] : undefined;
  return {
    metadata: { name, namespace: o.ns ?? 'default', ...(o.deleting ? { deletionTimestamp: '2026-12-01T00:00:00Z' } : {}) },
    spec: { volumeName: `pv-${name}` },
    status: { phase: o.phase ?? 'Bound', capacity: { storage: o.capacity ?? '1Gi' }, ...(conditions ? { conditions } : {}) },
  };
}

const ago = (days: number): string => new Date(NOW.getTime() - days * DAY).toISOString().replace(/\.\d+Z$/, 'Z');

test('an age (--for) takes whole days in front of Go durations, and refuses the rest', () => {
  assert.equal(parseAge('7d'), 7 * DAY);
  assert.equal(parseAge('1d12h'), 1.5 * DAY);
  assert.equal(parseAge('36h'), 1.5 * DAY);
  assert.equal(parseAge('0'), 0);
  for (const bad of ['', 'week', '7', '-1h', '1d-1h', '7days', `${'9'.repeat(30)}d`]) assert.throws(() => parseAge(bad), /invalid duration/, bad);
});

test('claims unused at least that long come first, longest first; in-use and recently unused ones are left out', () => {
  const rows = buildUnusedRows(
    [
      claim('week', { unused: 'True', since: ago(8), capacity: '5Gi' }),
      claim('month', { unused: 'True', since: ago(30), capacity: '10Gi' }),
      claim('yesterday', { unused: 'True', since: ago(1) }),
      claim('busy', { unused: 'False', since: ago(40) }),
    ],
    NOW,
    7 * DAY,
  );
  assert.deepEqual(rows.map((r) => [r.claim, r.state, r.capacity, r.unusedSince, r.unusedForSeconds]), [
    ['month', 'unused', '10Gi', ago(30), 30 * 86_400],
    ['week', 'unused', '5Gi', ago(8), 8 * 86_400],
  ]);
});

test('claims the condition cannot tell about are listed as unknown, each with why', () => {
  const rows = buildUnusedRows(
    [
      claim('fresh'),
      claim('pending', { phase: 'Pending' }),
      claim('going', { deleting: true, unused: 'True', since: ago(90) }),
      claim('odd', { unused: 'Unknown', since: ago(9) }),
      claim('garbled', { unused: 'True', since: 'yesterday' }),
      claim('ahead', { unused: 'True', since: new Date(NOW.getTime() + DAY) }),
    ],
    NOW,
    0,
  );
  const notes = Object.fromEntries(rows.map((r) => [r.claim, `${r.state}: ${r.note ?? ''}`]));
  assert.match(notes.fresh, /^unknown: no Unused condition yet/);
  assert.match(notes.pending, /^unknown: Pending: only Bound claims/);
  assert.match(notes.going, /^unknown: being deleted/);
  assert.match(notes.odd, /^unknown: Unused condition status "Unknown"/);
  assert.match(notes.garbled, /^unknown: Unused=True without a readable lastTransitionTime/);
  assert.match(notes.ahead, /^unknown: Unused=True since 2026-12-03T12:00:00Z, in the future/);
  assert.deepEqual(rows.map((r) => r.claim), ['ahead', 'fresh', 'garbled', 'going', 'odd', 'pending'], 'by name');
});

test('a time client-node made a Date of reads as its RFC 3339 text', () => {
  const rows = buildUnusedRows([claim('c', { unused: 'True', since: new Date(ago(10)) })], NOW, 7 * DAY);
  assert.equal(rows[0].unusedSince, ago(10));
});

test('the table shows size, age and time, then the count and the total capacity; JSON the same rows', () => {
  const rows = buildUnusedRows([claim('old', { unused: 'True', since: ago(12), capacity: '2Gi', ns: 'team' }), claim('small', { unused: 'True', since: ago(8), capacity: '512Mi' }), claim('new')], NOW, 7 * DAY);
  const lines = renderUnusedTable(rows, '7d').trimEnd().split('\n');
  assert.match(lines[0], /^NAMESPACE\s+NAME\s+CAPACITY\s+UNUSED FOR\s+UNUSED SINCE\s+NOTE$/);
  assert.match(lines[1], new RegExp(`^team\\s+old\\s+2Gi\\s+12d\\s+${ago(12)}$`));
  assert.match(lines[2], new RegExp(`^default\\s+small\\s+512Mi\\s+8d\\s+${ago(8)}$`));
  assert.match(lines[3], /^default\s+new\s+1Gi\s+unknown\s+-\s+no Unused condition yet/);
  assert.equal(lines[4], '2 claims unused for at least 7d, 2560Mi in all; 1 unknown');
  const json = JSON.parse(renderUnusedJson(rows, 7 * DAY)) as { unusedForAtLeastSeconds: number; totalCapacity: string; claims: { claim: string }[] };
  assert.equal(json.unusedForAtLeastSeconds, 7 * 86_400);
  assert.equal(json.totalCapacity, '2560Mi');
  assert.deepEqual(json.claims.map((c) => c.claim), ['old', 'small', 'new']);
});

test('no claim at all is said in one line', () => {
  assert.equal(renderUnusedTable([], '7d'), '0 claims unused for at least 7d, 0 in all; 0 unknown\n');
});

test('ages print as kubectl prints them', () => {
  assert.deepEqual([45, 720, 18_180, 9 * 86_400 + 4 * 3600, 120 * 86_400, 86_400].map(humanAge), ['45s', '12m', '5h3m', '9d4h', '120d', '1d']);
});
