import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DONE, mostUrgent } from '../../../src/controller/runtime/sync-result.js';

test('mostUrgent prefers retry, then the shortest requeueAfter, then done', () => {
  assert.deepEqual(mostUrgent([]), DONE);
  assert.deepEqual(mostUrgent([DONE, { kind: 'requeueAfter', ms: 50 }, { kind: 'requeueAfter', ms: 10 }]), { kind: 'requeueAfter', ms: 10 });
  assert.equal(mostUrgent([{ kind: 'requeueAfter', ms: 5 }, { kind: 'retry', reason: 'x' }]).kind, 'retry');
});
