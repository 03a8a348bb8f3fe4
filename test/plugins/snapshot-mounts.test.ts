/**
 * Snapshot deletes, snapshots, clones and restores never follow a symlink planted in the
 * snapshot area nor cross a mount. Every scenario runs in a child process inside a private mount
 * namespace with the system bound read-only (mount-namespace/snapshot-main.ts), against decoys
 * beside the root; skipped, saying why, where such a namespace cannot be made.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { before, describe, test } from 'node:test';
import { mountNamespaceSkipReason, runInMountNamespace } from '../helpers/mount-namespace.js';
import type { SnapshotScenarioResult } from './mount-namespace/snapshot-scenarios.js';

const CHILD = fileURLToPath(new URL('./mount-namespace/snapshot-main.js', import.meta.url));

function assertRefused(r: SnapshotScenarioResult, what: string, mentions: RegExp): void {
  assert.equal(r.attempt.outcome, 'failed', `${what} must be refused`);
  assert.equal(r.attempt.code, 'Unsafe', `${what}: ${r.attempt.message}`);
  assert.equal(r.attempt.retryable, false);
  assert.match(r.attempt.message ?? '', mentions);
  if (r.mountPoint) assert.ok(r.attempt.message?.includes(`"${r.mountPoint}"`), `${what} names "${r.mountPoint}": ${r.attempt.message}`);
  assert.equal(r.decoysIntact, true, 'the decoys are untouched');
}

describe('snapshots never follow a symlink in the snapshot area nor cross a mount (private mount namespace)', { skip: mountNamespaceSkipReason() }, () => {
  let results: Record<string, SnapshotScenarioResult & { error?: string }>;
  before(async () => {
    results = await runInMountNamespace(CHILD);
    for (const [name, r] of Object.entries(results)) assert.equal(r.error, undefined, `${name}: ${String(r.error)}`);
  });

  test('a symlink to the decoys in place of a snapshot: its delete is refused and the link and decoys stay', () => {
    const r = results.symlinkAsSnapshot;
    assertRefused(r, 'deleteSnapshot', /not a directory|symbolic link/);
    assert.equal(r.snapshotIntact, true);
  });

  test('the snapshot area itself a symlink to the decoys: delete and restore are refused, nothing is made', () => {
    const r = results.symlinkAsArea;
    assertRefused(r, 'deleteSnapshot', /snapshot area is not a directory/);
    assert.equal(r.nothingMade, true);
  });

  test('a bind mount inside a snapshot: its delete is refused naming the mount, the snapshot whole', () => {
    const r = results.mountInsideSnapshot;
    assertRefused(r, 'deleteSnapshot', /mount/);
    assert.equal(r.snapshotIntact, true);
  });

  test('a tmpfs on a snapshot directory: its delete is refused naming the mount, its files kept', () => {
    const r = results.mountOnSnapshot;
    assertRefused(r, 'deleteSnapshot', /mount/);
    assert.equal(r.snapshotIntact, true);
  });

  test('a bind mount inside the volume: the snapshot and a clone are refused naming it, no snapshot made, nothing copied from the decoys', () => {
    const r = results.mountInsideVolume;
    assertRefused(r, 'createSnapshot', /mount/);
    assert.equal(r.nothingMade, true);
  });

  test('a bind mount inside a snapshot being restored: the restore is refused naming it, no volume made', () => {
    const r = results.mountInsideRestoredSnapshot;
    assertRefused(r, 'provisionFromSnapshot', /mount/);
    assert.equal(r.nothingMade, true);
  });
});
