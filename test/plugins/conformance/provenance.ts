/** The provenance sub-suite (src/plugins/api/capabilities/provenance.ts): a plugin proves the volumes it made, and only those. */
import assert from 'node:assert/strict';
import { canProveProvenance } from '../../../src/plugins/api/capabilities/provenance.js';
import { claimed, CONFORMANCE_CLUSTER, foreignVolume, type ConformanceCheck, provisionedVolume, withSubject } from './subject.js';

export const PROVENANCE_SUITE: readonly ConformanceCheck[] = [
  {
    name: 'a volume the plugin provisioned is proven for its own PV, not for a PV of another name, nor a foreign PV',
    run: (make) =>
      withSubject(make, async (s) => {
        const plugin = claimed(s.plugin, canProveProvenance);
        const { pv } = await provisionedVolume(s);
        assert.equal(await plugin.provesProvisioned(pv, CONFORMANCE_CLUSTER), true, 'its own volume');
        const renamed = structuredClone(pv);
        renamed.metadata.name = `${pv.metadata.name ?? ''}-forged`;
        assert.equal(await plugin.provesProvisioned(renamed, CONFORMANCE_CLUSTER), false, 'the same backing volume under another PV name');
        assert.equal(await plugin.provesProvisioned(foreignVolume(), CONFORMANCE_CLUSTER), false, 'a volume it never made');
      }),
  },
];
