/** The TTL's pure parts: reading the annotation, the deadline's form, the wait handed to the queue. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ANN_RELEASED_DEADLINE, ANN_RELEASED_TTL, ANN_REUSE } from '@pv-controller/kube/annotations.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { deadlineAfter, deadlineOf, MAX_DEADLINE_WAIT_MS, releasedTtlOf, waitUntil, withoutReleaseMarks } from '../../../src/controller/reclaimer/released-ttl.js';

function pv(annotations?: Record<string, string>): PersistentVolume {
  return { metadata: { name: 'v', ...(annotations ? { annotations } : {}) }, spec: {} };
}

describe('releasedTtlOf', () => {
  it('reads Go durations', () => {
    assert.deepEqual(releasedTtlOf(pv({ [ANN_RELEASED_TTL]: '72h' })), { kind: 'valid', text: '72h', ms: 72 * 3_600_000 });
    assert.deepEqual(releasedTtlOf(pv({ [ANN_RELEASED_TTL]: '1h30m' })), { kind: 'valid', text: '1h30m', ms: 5_400_000 });
    assert.deepEqual(releasedTtlOf(pv({ [ANN_RELEASED_TTL]: '0' })), { kind: 'valid', text: '0', ms: 0 });
    assert.deepEqual(releasedTtlOf(pv()), { kind: 'none' });
  });

  it('refuses what is not a Go duration, negative, out of Go range or too long, saying why', () => {
    for (const [text, why] of [
      ['3d', /not a Go duration/],
      ['', /not a Go duration/],
      ['-5m', /negative/],
      ['3000000h', /out of range/],
      ['1h'.repeat(40), /longer than 64/],
    ] as const) {
      const ttl = releasedTtlOf(pv({ [ANN_RELEASED_TTL]: text }));
      assert.equal(ttl.kind, 'invalid', text);
      assert.match(ttl.kind === 'invalid' ? ttl.why : '', why, text);
    }
  });
});

describe('the deadline', () => {
  it('is RFC 3339 in whole seconds, rounded up so it is never early', () => {
    assert.equal(deadlineAfter(new Date('2026-12-02T10:00:00.200Z'), 30 * 60_000), '2026-12-02T10:30:01Z');
    assert.equal(deadlineAfter(new Date('2026-12-02T10:00:00Z'), 0), '2026-12-02T10:00:00Z');
  });

  it('reads back what was written; garbage is no deadline (it is written afresh)', () => {
    assert.equal(deadlineOf(pv({ [ANN_RELEASED_DEADLINE]: '2026-12-02T10:30:01Z' }))?.toISOString(), '2026-12-02T10:30:01.000Z');
    assert.equal(deadlineOf(pv({ [ANN_RELEASED_DEADLINE]: 'tomorrow' })), undefined);
    assert.equal(deadlineOf(pv()), undefined);
  });

  it('is waited for through the queue at most a day at a time, at least a millisecond', () => {
    const now = new Date('2026-12-02T10:00:00Z');
    assert.deepEqual(waitUntil(new Date('2026-12-02T10:00:05Z'), now), { kind: 'requeueAfter', ms: 5000 });
    assert.deepEqual(waitUntil(new Date('2027-12-02T10:00:00Z'), now), { kind: 'requeueAfter', ms: MAX_DEADLINE_WAIT_MS });
    assert.deepEqual(waitUntil(new Date('2026-12-01T10:00:00Z'), now), { kind: 'requeueAfter', ms: 1 });
  });

  it('and the reuse request go when a volume is bound or Available again; nothing else does', () => {
    const cleared = withoutReleaseMarks(pv({ [ANN_RELEASED_DEADLINE]: 'x', [ANN_REUSE]: 'true', [ANN_RELEASED_TTL]: '1h' }));
    assert.deepEqual(cleared.metadata.annotations, { [ANN_RELEASED_TTL]: '1h' });
    assert.equal(withoutReleaseMarks(pv({ [ANN_REUSE]: 'true' })).metadata.annotations, undefined);
  });
});
