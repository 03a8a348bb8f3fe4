/**
 * The modify sub-suite (src/plugins/api/capabilities/modify.ts): VolumeAttributesClass parameters
 * are checked naming the parameter, a volume provisioned with a class is one the plugin handles,
 * and applying a class to a live volume is idempotent.
 */
import assert from 'node:assert/strict';
import { canModify } from '../../../src/plugins/api/capabilities/modify.js';
import type { ConformanceSubject } from './subject.js';
import { claimed, type ConformanceCheck, provisionedVolume, UNKNOWN_PARAMETER, withSubject } from './subject.js';

function attributesOf(s: ConformanceSubject): Record<string, string> {
  assert.ok(s.attributes, `${s.plugin.name} has the modify capability: its conformance subject must name attributes it accepts`);
  return { ...s.attributes };
}

export const MODIFY_SUITE: readonly ConformanceCheck[] = [
  {
    name: 'accepted attributes produce no problems and an unknown one is named',
    run: (make) =>
      withSubject(make, async (s) => {
        const plugin = claimed(s.plugin, canModify);
        const attributes = attributesOf(s);
        assert.deepEqual(plugin.validateAttributes(attributes), []);
        const problems = plugin.validateAttributes({ ...attributes, [UNKNOWN_PARAMETER]: 'x' });
        assert.ok(problems.some((p) => p.parameter === UNKNOWN_PARAMETER), `expected a problem naming "${UNKNOWN_PARAMETER}", got ${JSON.stringify(problems)}`);
      }),
  },
  {
    name: 'a volume provisioned with attributes is its own, and applying them again twice succeeds',
    run: (make) =>
      withSubject(make, async (s) => {
        const plugin = claimed(s.plugin, canModify);
        const attributes = attributesOf(s);
        const { req, pv } = await provisionedVolume(s, { attributes });
        assert.equal(plugin.handles(pv), true);
        await plugin.modify({ pv, attributes });
        await plugin.modify({ pv, attributes });
        assert.equal(await s.backingExists(req.backingName), true);
      }),
  },
];
