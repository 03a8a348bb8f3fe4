/**
 * The stray-files sub-suite (src/plugins/api/capabilities/stray-files.ts): a volume is never a
 * stray file, and removing stray files never removes a volume.
 */
import assert from 'node:assert/strict';
import { canSweepStrayFiles } from '../../../src/plugins/api/capabilities/stray-files.js';
import { claimed, type ConformanceCheck, provisionedVolume, withSubject } from './subject.js';

export const STRAY_FILES_SUITE: readonly ConformanceCheck[] = [
  {
    name: 'a provisioned volume is no stray file, and removing stray files keeps it',
    run: (make) =>
      withSubject(make, async (s) => {
        const plugin = claimed(s.plugin, canSweepStrayFiles);
        const { req } = await provisionedVolume(s);
        assert.deepEqual(await plugin.listStrayFiles(), []);
        assert.deepEqual(await plugin.removeStrayFiles(), []);
        assert.equal(await s.backingExists(req.backingName), true);
      }),
  },
];
