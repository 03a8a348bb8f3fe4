import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatRatio, median, medianOfRatios, percentile, ratio } from '../../bench/stats.js';

describe('bench statistics', () => {
  it('median of an odd and an even count picks the nearest-rank middle value', () => {
    assert.equal(median([5, 1, 3]), 3);
    assert.equal(median([4, 1, 3, 2]), 2);
  });

  it('percentiles use nearest rank and ignore input order', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1
    assert.equal(percentile(values, 50), 50);
    assert.equal(percentile(values, 99), 99);
    assert.equal(percentile(values, 100), 100);
    assert.equal(percentile([7], 99), 7);
  });

  it('statistics of nothing are null, not zero', () => {
    assert.equal(median([]), null);
    assert.equal(ratio(1, 0), null);
    assert.equal(ratio(null, 2), null);
    assert.equal(formatRatio(null), 'n/a');
  });

  it('median of ratios pairs repetitions, so a slow repetition slows both sides of its ratio', () => {
    // Repetition 2 ran on a busy machine: both numbers halved, its ratio unchanged.
    const ours = [600, 300, 610];
    const bare = [1000, 500, 1000];
    assert.equal(medianOfRatios(ours, bare), 0.6);
  });
});
