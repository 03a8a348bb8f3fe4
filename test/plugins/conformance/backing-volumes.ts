/**
 * The list-backing-volumes sub-suite (src/plugins/api/capabilities/backing-volumes.ts): what the
 * orphan scan relies on — a volume is listed once, for its own cluster only, and not after delete.
 */
import assert from 'node:assert/strict';
import { canListBackingVolumes } from '../../../src/plugins/api/capabilities/backing-volumes.js';
import { claimed, type ConformanceCheck, provisionedVolume, requestFor, withSubject } from './subject.js';

export const LIST_BACKING_VOLUMES_SUITE: readonly ConformanceCheck[] = [
  {
    name: 'a volume provisioned twice is listed once, with its PV name',
    run: (make) =>
      withSubject(make, async (s) => {
        const plugin = claimed(s.plugin, canListBackingVolumes);
        const req = requestFor(s);
        await plugin.provision(req);
        await plugin.provision({ ...req });
        const listed = (await plugin.listBackingVolumes(req.clusterName)).filter((v) => v.backingName === req.backingName);
        assert.equal(listed.length, 1, `listBackingVolumes(${req.clusterName}) lists ${req.backingName} ${listed.length} times`);
        assert.equal(listed[0].pvName, req.pvName);
      }),
  },
  {
    name: 'backing volumes are listed for their own cluster only',
    run: (make) =>
      withSubject(make, async (s) => {
        const plugin = claimed(s.plugin, canListBackingVolumes);
        const { req } = await provisionedVolume(s);
        const other = await plugin.listBackingVolumes('some-other-cluster');
        assert.equal(other.some((v) => v.backingName === req.backingName), false);
      }),
  },
  {
    name: 'a deleted volume is no longer listed',
    run: (make) =>
      withSubject(make, async (s) => {
        const plugin = claimed(s.plugin, canListBackingVolumes);
        const { req, pv } = await provisionedVolume(s);
        await plugin.delete({ backingName: req.backingName, pv, parameters: req.parameters });
        const listed = await plugin.listBackingVolumes(req.clusterName);
        assert.equal(listed.some((v) => v.backingName === req.backingName), false);
      }),
  },
];
