import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tenTimesKcmRow } from '../../bench/scenarios/side-by-side.js';

// Times in ms per repetition; a rate ratio is the inverse of the time ratio.
describe('the 10× kube-controller-manager target and its floor proviso', () => {
  it('ours 10× KCM passes whatever the floor', () => {
    const r = tenTimesKcmRow('x', 'bind', { ours: [10], kcm: [100], floor: [9] });
    assert.deepEqual(r.target, { text: '≥ 10× KCM', pass: true });
  });

  it('a floor that allows 10× holds ours to 10×', () => {
    const r = tenTimesKcmRow('x', 'bind', { ours: [20], kcm: [200], floor: [15] });
    assert.deepEqual(r.target, { text: '≥ 10× KCM', pass: true });
    const slow = tenTimesKcmRow('x', 'bind', { ours: [30], kcm: [200], floor: [15] });
    assert.deepEqual(slow.target, { text: '≥ 10× KCM', pass: false });
  });

  it('a floor below 10× KCM holds ours to 1.2× the floor', () => {
    const near = tenTimesKcmRow('x', 'bind', { ours: [11], kcm: [40], floor: [10] });
    assert.deepEqual(near.target, { text: '≤ 1.2× floor (floor < 10× KCM)', pass: true });
    const far = tenTimesKcmRow('x', 'bind', { ours: [13], kcm: [40], floor: [10] });
    assert.deepEqual(far.target, { text: '≤ 1.2× floor (floor < 10× KCM)', pass: false });
    assert.match(far.measured, /ours 3\.08× KCM's rate; the floor 4\.00× KCM's rate; ours 1\.30× the floor's time/);
  });

  it('a missing measurement gives no verdict', () => {
    assert.equal(tenTimesKcmRow('x', 'bind', { ours: [10], kcm: [], floor: [10] }).target?.pass, null);
  });
});
