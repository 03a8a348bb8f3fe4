import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { peakRssText, rotated, sideRatio, trafficText } from '../../bench/scenarios/side-by-side.js';

describe('bench side by side with kube-controller-manager', () => {
  it('ratios pair the repetitions (ours[i] / KCM[i]) and report their median; an unknown value gives n/a', () => {
    assert.equal(sideRatio([10, 30, 20], [5, 10, 40]), '2.00×');
    assert.equal(sideRatio([10, null], [5, 5]), 'n/a');
  });

  it('every repetition starts with the next side, so drift favours none', () => {
    const sides = ['floor', 'ours', 'kcm'];
    assert.deepEqual([0, 1, 2, 3].map((rep) => rotated(sides, rep)[0]), ['floor', 'ours', 'kcm', 'floor']);
  });

  it('states peak RSS and audit-log traffic of both controllers, per unit of work', () => {
    const MB = 1024 * 1024;
    assert.equal(peakRssText([150 * MB], [60 * MB]), 'pv-controller 150 MB, kube-controller-manager 60 MB (ours/KCM 2.50×)');
    assert.equal(trafficText([{ requests: 400, writes: 400, conflicts: 1, byComponent: { 'pv-controller': 400 } }], 100), '4.00 requests, 4.00 writes, 0.010 409s');
    const kcm = { requests: 520, writes: 500, conflicts: 0, byComponent: { 'persistent-volume-binder': 400, 'pvc-protection-controller': 120 } };
    assert.equal(
      trafficText([kcm], 100),
      '5.20 requests, 5.00 writes, 0.000 409s (requests: persistent-volume-binder 4.00 + pvc-protection-controller 1.20)',
    );
  });
});
