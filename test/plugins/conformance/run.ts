/**
 * The volume plugin conformance suite: the core sub-suite for every plugin, and the sub-suite of
 * each capability the plugin has. Which capabilities it has is decided by the same type guards
 * the controller calls (src/plugins/api/capabilities.ts), so a plugin that implements a
 * capability is checked against its contract without anyone listing it. A plugin's test file
 * calls it with a factory that builds a fresh, isolated plugin:
 *
 *   import { runPluginConformance } from './run.js';
 *   runPluginConformance('aws-ebs', async () => ({ plugin, cleanup, backingExists, attributes }));
 */
import { describe, it } from 'node:test';
import { capabilitiesOf, type CapabilityName } from '../../../src/plugins/api/capabilities.js';
import { LIST_BACKING_VOLUMES_SUITE } from './backing-volumes.js';
import { CAPACITY_SUITE } from './capacity.js';
import { CORE_SUITE } from './core.js';
import { EXPAND_SUITE } from './expand.js';
import { MODIFY_SUITE } from './modify.js';
import { NODE_SCOPED_SUITE } from './node-scoped.js';
import { PROVENANCE_SUITE } from './provenance.js';
import { ARCHIVES_SUITE } from './archives.js';
import { RECYCLE_SUITE } from './recycle.js';
import { SNAPSHOT_SUITE } from './snapshot.js';
import { STRAY_FILES_SUITE } from './stray-files.js';
import type { ConformanceCheck, SubjectFactory } from './subject.js';

/** One sub-suite per capability; the type makes a new capability without one a compile error. */
export const CAPABILITY_SUITES: Readonly<Record<CapabilityName, readonly ConformanceCheck[]>> = {
  expand: EXPAND_SUITE,
  modify: MODIFY_SUITE,
  recycle: RECYCLE_SUITE,
  'list-backing-volumes': LIST_BACKING_VOLUMES_SUITE,
  'stray-files': STRAY_FILES_SUITE,
  capacity: CAPACITY_SUITE,
  'node-scoped': NODE_SCOPED_SUITE,
  snapshot: SNAPSHOT_SUITE,
  provenance: PROVENANCE_SUITE,
  archives: ARCHIVES_SUITE,
};

/** The capabilities of the plugin a factory builds (built once and cleaned up). */
export async function subjectCapabilities(make: SubjectFactory): Promise<CapabilityName[]> {
  const subject = await make();
  try {
    return capabilitiesOf(subject.plugin);
  } finally {
    await subject.cleanup();
  }
}

function registerChecks(checks: readonly ConformanceCheck[], make: SubjectFactory): void {
  for (const check of checks) it(check.name, () => check.run(make));
}

export function runPluginConformance(name: string, make: SubjectFactory): void {
  describe(`volume plugin conformance: ${name}`, async () => {
    const capabilities = await subjectCapabilities(make);
    describe('core', () => registerChecks(CORE_SUITE, make));
    for (const capability of capabilities) describe(`capability: ${capability}`, () => registerChecks(CAPABILITY_SUITES[capability], make));
  });
}
