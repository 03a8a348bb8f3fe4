/**
 * The CSI side-by-side bench's own logic: the driver ledger read from the mock's call log, the
 * --provisioner and --rounds flags, the csi-* scenarios run only when named, and the leak rows.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { LeakResult } from '../../bench/csi/leak.js';
import { DriverLedger } from '../../bench/csi/mock-driver.js';
import { parseBenchArgs } from '../../bench/options.js';
import { leakRounds, leakRows } from '../../bench/scenarios/csi-leak.js';
import { SCENARIOS, selectScenarios } from '../../bench/scenarios/index.js';

const argv = (...args: string[]): string[] => ['node', 'bench', ...args];

function line(method: string, request: object, response: object | null, code = 'OK', time = '2026-12-02T00:00:00Z'): string {
  return `${JSON.stringify({ time, method: `/csi.v1.Controller/${method}`, request, response, code, error: null, durationMs: 1 })}\n`;
}

test('the driver ledger counts volumes created and deleted from the mock\'s log, read incrementally, half lines included, and when each was made', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-'));
  const log = join(dir, 'csi-mock.log');
  try {
    writeFileSync(log, 'csi-mock: serving on /x\n');
    appendFileSync(log, line('CreateVolume', { name: 'pvc-a' }, { volume: { volumeId: '4' } }));
    appendFileSync(log, line('CreateVolume', { name: 'pvc-b' }, null, 'Unavailable'));
    const ledger = new DriverLedger(log).refresh();
    assert.deepEqual(ledger.liveVolumes(), [{ id: '4', name: 'pvc-a' }]);
    const later = line('CreateVolume', { name: 'pvc-a' }, { volume: { volumeId: '4' } }) + line('CreateVolume', { name: 'pvc-b' }, { volume: { volumeId: '5' } }, 'OK', '2026-12-02T00:00:02.5Z') + line('DeleteVolume', { volumeId: '4' }, {});
    appendFileSync(log, later.slice(0, 50));
    ledger.refresh();
    appendFileSync(log, later.slice(50));
    ledger.refresh();
    assert.deepEqual(ledger.liveVolumes(), [{ id: '5', name: 'pvc-b' }]);
    assert.deepEqual([...ledger.createCallsByName], [['pvc-a', 2], ['pvc-b', 2]]);
    assert.equal(ledger.calls.get('DeleteVolume'), 1);
    assert.deepEqual(ledger.createdSince(Date.parse('2026-12-02T00:00:00Z')), { count: 2, spanMs: 2500 }, 'a repeated CreateVolume makes no second volume');
    assert.deepEqual(ledger.createdSince(Date.parse('2026-12-02T00:00:01Z')), { count: 1, spanMs: 0 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--provisioner picks the provisioners under test (both by default) and --rounds the leak rounds (20; quick 3)', () => {
  assert.deepEqual(parseBenchArgs(argv(), []).options.provisioners, ['external-provisioner', 'pv-controller']);
  assert.deepEqual(parseBenchArgs(argv('--provisioner', 'pv-controller'), []).options.provisioners, ['pv-controller']);
  assert.throws(() => parseBenchArgs(argv('--provisioner', 'kcm'), []), /expected external-provisioner, pv-controller or both/);
  assert.equal(leakRounds(parseBenchArgs(argv('--rounds', '7'), []).options), 7);
  assert.equal(leakRounds(parseBenchArgs(argv(), []).options), 20);
  assert.equal(leakRounds(parseBenchArgs(argv('--quick'), []).options), 3);
});

test('the csi-* scenarios run only when named: a plain bench starts no CSI peers', () => {
  assert.ok(!SCENARIOS.some((s) => s.name.startsWith('csi-')));
  assert.deepEqual(selectScenarios(['csi-speed', 'csi-leak']).map((s) => s.name), ['csi-leak', 'csi-speed']);
  assert.deepEqual(selectScenarios([]).map((s) => s.name), SCENARIOS.map((s) => s.name));
});

test('the leak rows hold pv-controller to 0 leaked and report what external-provisioner leaked per round', () => {
  const round = (n: number, leaked: string[]): LeakResult['rounds'][number] => ({ round: n, claim: `leak-${n}`, uid: `u${n}`, claimGone: true, volumesMade: ['1'], leaked, heldByPv: [], createCalls: 1 });
  const base = { rounds: [round(1, ['7']), round(2, [])], leakedTotal: 1, orphansByPvList: 1, namesCalledMoreThanOnce: 0, maxCallsPerName: 1, maxNamesPerClaim: 1 };
  const theirs = leakRows({ ...base, provisioner: 'external-provisioner' });
  assert.match(theirs[0].measured, /^1 leaked volume\(s\) in 1\/2 rounds \(per round: 1 0\)/);
  assert.equal(theirs[0].target, undefined, 'what the sidecar leaks is reported, not judged');
  const ours = leakRows({ ...base, provisioner: 'pv-controller' });
  assert.equal(ours[0].target?.pass, false);
  assert.equal(leakRows({ ...base, provisioner: 'pv-controller', leakedTotal: 0 })[0].target?.pass, true);
});
