/** The capacity sub-suite (src/plugins/api/capabilities/capacity.ts): what CSIStorageCapacity publishes is consistent. */
import assert from 'node:assert/strict';
import { canReportCapacity } from '../../../src/plugins/api/capabilities/capacity.js';
import { claimed, type ConformanceCheck, withSubject } from './subject.js';

export const CAPACITY_SUITE: readonly ConformanceCheck[] = [
  {
    name: 'the capacity of a class is not negative and its largest volume fits in it',
    run: (make) =>
      withSubject(make, async (s) => {
        const plugin = claimed(s.plugin, canReportCapacity);
        const { capacityBytes, maximumVolumeBytes } = await plugin.storageCapacity({ ...(s.parameters ?? {}) });
        assert.equal(typeof capacityBytes, 'bigint');
        assert.ok(maximumVolumeBytes >= 0n, `maximumVolumeBytes ${maximumVolumeBytes} is negative`);
        assert.ok(maximumVolumeBytes <= capacityBytes, `maximumVolumeBytes ${maximumVolumeBytes} > capacityBytes ${capacityBytes}`);
      }),
  },
];
