/**
 * The core sub-suite: what every plugin must honour (src/plugins/api/core.ts), whatever
 * capabilities it has — provision and delete idempotent, parameters checked naming the
 * parameter, its own PVs recognised, a usage provider, and no capability implemented in part.
 */
import assert from 'node:assert/strict';
import { partialCapabilitiesOf } from '../../../src/plugins/api/capabilities.js';
import {
  type ConformanceCheck,
  foreignVolume,
  provisionedVolume,
  requestFor,
  UNKNOWN_PARAMETER,
  withSubject,
} from './subject.js';

const PROVISION_AND_DELETE: ConformanceCheck[] = [
  {
    name: 'provisioning the same backing name twice yields one volume with the same source',
    run: (make) =>
      withSubject(make, async (s) => {
        const req = requestFor(s);
        const first = await s.plugin.provision(req);
        const second = await s.plugin.provision({ ...req });
        assert.deepEqual(second.source, first.source);
        assert.equal(second.capacity, first.capacity);
        assert.equal(await s.backingExists(req.backingName), true);
      }),
  },
  {
    name: 'deleting a provisioned volume twice succeeds both times and removes it',
    run: (make) =>
      withSubject(make, async (s) => {
        const { req, pv } = await provisionedVolume(s);
        await s.plugin.delete({ backingName: req.backingName, pv, parameters: req.parameters });
        assert.equal(await s.backingExists(req.backingName), false);
        await s.plugin.delete({ backingName: req.backingName, pv, parameters: req.parameters });
        assert.equal(await s.backingExists(req.backingName), false);
      }),
  },
  {
    name: 'deleting by backing name alone (claim gone mid-provision) removes the volume',
    run: (make) =>
      withSubject(make, async (s) => {
        const req = requestFor(s);
        await s.plugin.provision(req);
        // As the controller's cleanup: with the request it provisioned with (a CSI driver picks the id; the request finds it).
        await s.plugin.delete({ backingName: req.backingName, parameters: req.parameters, provision: req });
        assert.equal(await s.backingExists(req.backingName), false);
      }),
  },
  {
    name: 'deleting a backing name that was never created succeeds',
    run: (make) =>
      withSubject(make, async (s) => {
        const req = requestFor(s);
        await s.plugin.delete({ backingName: req.backingName, parameters: req.parameters, provision: req });
        assert.equal(await s.backingExists(req.backingName), false);
      }),
  },
];

const IDENTITY_AND_PARAMETERS: ConformanceCheck[] = [
  {
    name: 'accepted parameters produce no problems',
    run: (make) => withSubject(make, async (s) => assert.deepEqual(s.plugin.validateParameters({ ...(s.parameters ?? {}) }), [])),
  },
  {
    name: 'invalid parameters produce a problem naming the parameter',
    run: (make) =>
      withSubject(make, async (s) => {
        const bad = s.invalidParameters ?? { parameters: { ...(s.parameters ?? {}), [UNKNOWN_PARAMETER]: 'x' }, parameter: UNKNOWN_PARAMETER };
        const problems = s.plugin.validateParameters(bad.parameters);
        assert.ok(
          problems.some((p) => p.parameter === bad.parameter && p.message.length > 0),
          `expected a problem naming "${bad.parameter}", got ${JSON.stringify(problems)}`,
        );
      }),
  },
  {
    name: "handles its own PVs and not another plugin's",
    run: (make) =>
      withSubject(make, async (s) => {
        const { pv } = await provisionedVolume(s);
        assert.equal(s.plugin.handles(pv), true);
        assert.equal(s.plugin.handles(foreignVolume()), false);
      }),
  },
  {
    name: 'metricsFor returns a usage provider for its PVs',
    run: (make) =>
      withSubject(make, async (s) => {
        const { pv } = await provisionedVolume(s);
        assert.equal(typeof s.plugin.metricsFor(pv).getMetrics, 'function');
      }),
  },
  {
    name: 'has a provisioner name and a positive backing-name limit',
    run: (make) =>
      withSubject(make, async (s) => {
        // An in-tree style name (`kubernetes.io/host-path`) or a CSI driver name (a node agent's `host-path.pv-controller.io`).
        assert.match(s.plugin.name, /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(\/[A-Za-z0-9._-]+)?$/);
        assert.ok(s.plugin.maxBackingNameLength > 0);
      }),
  },
  {
    name: 'implements every capability it has in full (no capability in part)',
    run: (make) => withSubject(make, async (s) => assert.deepEqual(partialCapabilitiesOf(s.plugin), [])),
  },
];

export const CORE_SUITE: readonly ConformanceCheck[] = [...PROVISION_AND_DELETE, ...IDENTITY_AND_PARAMETERS];
