/** The recycle sub-suite (src/plugins/api/capabilities/recycle.ts): recycling scrubs the volume, never removes it. */
import assert from 'node:assert/strict';
import { canRecycle } from '../../../src/plugins/api/capabilities/recycle.js';
import { claimed, type ConformanceCheck, provisionedVolume, withSubject } from './subject.js';

export const RECYCLE_SUITE: readonly ConformanceCheck[] = [
  {
    name: 'recycling keeps the backing volume, and recycling it again succeeds',
    run: (make) =>
      withSubject(make, async (s) => {
        const plugin = claimed(s.plugin, canRecycle);
        const { req, pv } = await provisionedVolume(s);
        await plugin.recycle(pv);
        await plugin.recycle(pv);
        assert.equal(await s.backingExists(req.backingName), true);
      }),
  },
];
