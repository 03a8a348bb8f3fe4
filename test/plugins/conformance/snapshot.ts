/**
 * The snapshot sub-suite: the capability is declared (src/plugins/api/capabilities/snapshot.ts)
 * for the snapshot issue, which brings its checks; until then no plugin may claim it.
 */
import assert from 'node:assert/strict';
import { canSnapshot } from '../../../src/plugins/api/capabilities/snapshot.js';
import type { ConformanceCheck } from './subject.js';
import { withSubject } from './subject.js';

export const SNAPSHOT_SUITE: readonly ConformanceCheck[] = [
  {
    name: 'no plugin claims the snapshot capability before the snapshot issue defines its contract',
    run: (make) =>
      withSubject(make, async (s) => {
        assert.equal(canSnapshot(s.plugin), false, `${s.plugin.name} claims snapshot, whose conformance checks do not exist yet`);
      }),
  },
];
