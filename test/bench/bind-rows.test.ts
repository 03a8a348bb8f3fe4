import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BindSample } from '../../bench/binding/bind-run.js';
import { bindRows, flatnessRows, type SizeSamples } from '../../bench/scenarios/bind-rows.js';

function bindSample(n: number, controllerMsPerClaim: number, serverMsPerClaim: number): BindSample {
  return {
    bindMs: n,
    latenciesMs: [1],
    controllerWrites: 4 * n,
    controllerRequests: 4 * n,
    conflicts: 0,
    controllerCpuMs: controllerMsPerClaim * n,
    serverCpuMs: serverMsPerClaim * n,
    clientCpuMs: 0.5 * n,
    distinctVolumes: n,
    controllerPeakRssBytes: 100 * 1024 * 1024,
    serverPeakRssBytes: 120 * 1024 * 1024,
    windowWallMs: { from: 0, to: 1 },
    watchResumes: { reopened: 0, relisted: 0 },
  };
}

function sizeSamples(n: number, controllerMs: number, serverMs: number, floorMs?: number): SizeSamples {
  return {
    storage: 'memory',
    n,
    floors: floorMs === undefined ? [] : [{ ms: floorMs, serverCpuMs: n, clientCpuMs: n }],
    binds: [bindSample(n, controllerMs, serverMs)],
    emptyRssBytes: [],
  };
}

describe('bind rows', () => {
  it('CPU per claim at 10,000 is held to 1.2× that at 1,000, and at 100,000 to 1.3× that at 10,000, each process on its own', () => {
    const rows = flatnessRows('bind', [sizeSamples(1000, 1.0, 1.0), sizeSamples(10_000, 1.1, 1.25), sizeSamples(100_000, 1.5, 1.3)]);
    const verdicts = rows.map((r) => [r.label, r.target?.text, r.target?.pass]);
    assert.deepEqual(verdicts, [
      ['controller CPU per claim, 10,000 vs 1,000, memory', '≤ 1.2×', true],
      ['API server CPU per claim, 10,000 vs 1,000, memory', '≤ 1.2×', false],
      ['controller CPU per claim, 100,000 vs 10,000, memory', '≤ 1.3×', false],
      ['API server CPU per claim, 100,000 vs 10,000, memory', '≤ 1.3×', true],
    ]);
  });

  it('without a smaller size in the run there is no flatness row', () => {
    assert.deepEqual(flatnessRows('bind', [sizeSamples(10_000, 1, 1)]), []);
  });

  it('the floor ratio is held to 1.2× at 10,000 pairs, and is a skipped row when the floor was not measured', () => {
    const measured = bindRows('bind', 'memory', sizeSamples(10_000, 1, 1, 10_000 / 1.25));
    const ratio = measured.find((r) => r.label.startsWith('bind time / write floor'));
    assert.equal(ratio?.target?.text, '≤ 1.2× floor');
    assert.equal(ratio?.target?.pass, false);
    const skipped = bindRows('bind', 'memory', sizeSamples(100_000, 1, 1)).find((r) => r.label.startsWith('bind time / write floor'));
    assert.equal(skipped?.status, 'skipped');
  });

  it('the rate, RSS and per-object targets are stated at 10,000 pairs: a 100,000 run reports them without a target', () => {
    const rows = bindRows('bind', 'memory', sizeSamples(100_000, 1, 1));
    assert.deepEqual(rows.filter((r) => r.target !== undefined).map((r) => r.label), rows.filter((r) => /writes per|conflicts per/.test(r.label)).map((r) => r.label));
    assert.ok(bindRows('bind', 'memory', sizeSamples(10_000, 1, 1)).some((r) => r.label.startsWith('controller peak RSS') && r.target !== undefined));
  });
});
