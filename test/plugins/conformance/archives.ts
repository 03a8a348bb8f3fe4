/**
 * The archives sub-suite (src/plugins/api/capabilities/archives.ts): `onDelete: archive` keeps the
 * data aside (the volume itself is gone), and the sweep deletes exactly the archives whose
 * retention has ended — never one kept without retention, never before its time.
 */
import assert from 'node:assert/strict';
import { canKeepArchives } from '../../../src/plugins/api/capabilities/archives.js';
import { claimed, type ConformanceCheck, provisionedVolume, withSubject } from './subject.js';

const HOUR_MS = 3_600_000;

export const ARCHIVES_SUITE: readonly ConformanceCheck[] = [
  {
    name: 'an archived volume is listed, kept without retention, and swept only once its retention has ended',
    run: (make) =>
      withSubject(make, async (s) => {
        const plugin = claimed(s.plugin, canKeepArchives);
        const parameters = { ...(s.parameters ?? {}), onDelete: 'archive' };
        const kept = await provisionedVolume(s, { parameters });
        const timed = await provisionedVolume(s, { parameters });
        await plugin.delete({ backingName: kept.req.backingName, pv: kept.pv, parameters });
        await plugin.delete({ backingName: timed.req.backingName, pv: timed.pv, parameters, archiveRetentionMs: HOUR_MS });
        assert.equal(await s.backingExists(timed.req.backingName), false, 'the volume itself is gone');
        const listed = await plugin.listArchives();
        assert.deepEqual(listed.map((a) => a.backingName).sort(), [kept.req.backingName, timed.req.backingName].sort());
        assert.deepEqual(await plugin.sweepArchives(new Date()), [], 'nothing is due yet');
        const later = new Date(Date.now() + 2 * HOUR_MS);
        assert.deepEqual((await plugin.sweepArchives(later)).map((a) => a.backingName), [timed.req.backingName]);
        assert.deepEqual((await plugin.listArchives()).map((a) => a.backingName), [kept.req.backingName], 'the archive without retention stays');
      }),
  },
];
