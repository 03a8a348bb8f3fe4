import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FloorSample } from '../../bench/binding/provision-floor.js';
import type { ProvisionSample, Traffic } from '../../bench/binding/provision-run.js';
import { flatRows, floorRows, type ProvisionSizeSamples } from '../../bench/scenarios/provision-rows.js';

const traffic = (cpu: number): Traffic => ({
  writesPerVolume: 6,
  requestsPerVolume: 9,
  conflictsPerVolume: 0,
  controllerCpuMsPerVolume: cpu,
  serverCpuMsPerVolume: 1,
  byVerbResourcePerVolume: null,
});

function sample(provisionMs: number, deleteMs: number, cpu: { provision: number; delete: number }): ProvisionSample {
  const window = { from: 0, to: 0 };
  return {
    provisionMs,
    deleteMs,
    directoriesAfterProvision: 0,
    directoriesAfterDelete: 0,
    traffic: { provision: traffic(cpu.provision), delete: traffic(cpu.delete) },
    windowsWallMs: { provision: window, delete: window },
    controllerPeakRssBytes: null,
  };
}

const floor = (provisionMs: number, deleteMs: number): FloorSample => ({
  provisionMs,
  deleteMs,
  requests: { provision: null, delete: null },
  requestsPerVolume: { provision: 10, delete: 8 },
  cpuMsPerVolume: { provision: { client: 1, server: 1 }, delete: { client: 1, server: 1 } },
});

test('time / floor is the median of per-repetition ratios, each way, against ≤ 1.5×', () => {
  const s: ProvisionSizeSamples = {
    n: 1000,
    ours: [sample(3000, 4000, { provision: 1, delete: 1 }), sample(2500, 2000, { provision: 1, delete: 1 }), sample(3000, 3000, { provision: 1, delete: 1 })],
    floor: [floor(2000, 2000), floor(2000, 1000), floor(3000, 1500)],
    baseline: [],
  };
  const [provision, del] = floorRows('provision', 'memory', s);
  assert.match(provision.measured, /= 1\.25×$/);
  assert.equal(provision.target?.pass, true);
  assert.match(del.measured, /= 2\.00×$/);
  assert.equal(del.target?.pass, false);
});

test('the flat rows compare CPU per volume at the largest size with the smallest and miss above 1.2×', () => {
  const at = (n: number, provision: number, del: number): ProvisionSizeSamples => ({ n, ours: [sample(1, 1, { provision, delete: del })], floor: [], baseline: [] });
  const [provision, del] = flatRows('provision', 'memory', [at(10_000, 3.3, 6.6), at(1000, 3, 3)]);
  assert.match(provision.label, /10,000 \/ 1,000/);
  assert.equal(provision.target?.pass, true);
  assert.equal(del.target?.pass, false);
  assert.deepEqual(flatRows('provision', 'memory', [at(1000, 3, 3)]), []);
});
