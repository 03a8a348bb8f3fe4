/**
 * The conformance suite itself: a plugin is run through the sub-suites of exactly the
 * capabilities its type guards find, passes them when it keeps the contracts, and fails the
 * sub-suite of a capability it claims but breaks (a deliberately broken in-memory plugin).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CORE_SUITE } from './core.js';
import { MemoryPlugin, memorySubject } from './memory-plugin.js';
import { CAPABILITY_SUITES, runPluginConformance, subjectCapabilities } from './run.js';
import type { ConformanceCheck, SubjectFactory } from './subject.js';

runPluginConformance('in-memory reference plugin', memorySubject());

/** The names of the checks of `checks` that fail against the subjects `make` builds. */
async function failingChecks(checks: readonly ConformanceCheck[], make: SubjectFactory): Promise<string[]> {
  const failed: string[] = [];
  for (const check of checks) {
    await check.run(make).catch((err: unknown) => {
      assert.ok(err instanceof assert.AssertionError, `a broken contract is an assertion failure, got ${String(err)}`);
      failed.push(check.name);
    });
  }
  return failed;
}

class HalfStrayFilesPlugin extends MemoryPlugin {
  async listStrayFiles(): Promise<[]> {
    return [];
  }
}

describe('the conformance suite', () => {
  it('runs the sub-suites of the capabilities the type guards find, and the reference plugin passes them all', async () => {
    const make = memorySubject();
    assert.deepEqual(await subjectCapabilities(make), ['expand', 'list-backing-volumes', 'snapshot']);
    assert.deepEqual(await failingChecks([...CORE_SUITE, ...CAPABILITY_SUITES.expand, ...CAPABILITY_SUITES['list-backing-volumes'], ...CAPABILITY_SUITES.snapshot], make), []);
  });

  it('a plugin that claims expand but does not grow its volumes fails the expand sub-suite, not the core one', async () => {
    const make = memorySubject({ expandDoesNotGrow: true });
    assert.ok((await subjectCapabilities(make)).includes('expand'));
    assert.deepEqual(await failingChecks(CORE_SUITE, make), []);
    assert.deepEqual(await failingChecks(CAPABILITY_SUITES.expand, make), ['expanding a volume gives at least the size asked, and a repeat keeps that size']);
  });

  it("a plugin that lists other clusters' volumes as its own fails the list-backing-volumes sub-suite", async () => {
    const make = memorySubject({ listsEveryCluster: true });
    assert.deepEqual(await failingChecks(CAPABILITY_SUITES['list-backing-volumes'], make), ['backing volumes are listed for their own cluster only']);
  });

  it('a plugin whose snapshots are not idempotent per name fails the snapshot sub-suite on exactly that', async () => {
    const make = memorySubject({ snapshotsTwice: true });
    assert.deepEqual(await failingChecks(CAPABILITY_SUITES.snapshot, make), [CAPABILITY_SUITES.snapshot[0].name]);
  });

  it('a plugin that takes a garbage snapshot handle for a delete (and deletes what it should not) fails the snapshot sub-suite', async () => {
    const make = memorySubject({ deletesAnyHandle: true });
    assert.deepEqual(await failingChecks(CAPABILITY_SUITES.snapshot, make), ['deleting a garbage, escaping or foreign handle is refused and deletes nothing']);
  });

  it('a plugin whose restores lose the data fails the snapshot sub-suite on the restore check', async () => {
    const make = memorySubject({ restoresEmpty: true });
    assert.deepEqual(await failingChecks(CAPABILITY_SUITES.snapshot, make), [CAPABILITY_SUITES.snapshot[2].name]);
  });

  it('a plugin that implements a capability in part does not have it, and fails the core sub-suite', async () => {
    const make = memorySubject({}, (flaws) => new HalfStrayFilesPlugin(flaws));
    assert.equal((await subjectCapabilities(make)).includes('stray-files'), false);
    assert.deepEqual(await failingChecks(CORE_SUITE, make), ['implements every capability it has in full (no capability in part)']);
  });
});
