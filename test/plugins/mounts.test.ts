/**
 * Delete and recycle never cross a mount. Every scenario runs in a child process inside a private
 * mount namespace with the system bound read-only (mount-namespace/main.ts): the mounts, the
 * volume roots and the decoys all live on a tmpfs there, and nothing here is mounted on the
 * machine itself. Skipped, saying why, where a private mount namespace cannot be made.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { before, describe, test } from 'node:test';
import { mountNamespaceSkipReason, runInMountNamespace } from '../helpers/mount-namespace.js';
import type { Attempt, ScenarioResult } from './mount-namespace/common.js';

const CHILD = fileURLToPath(new URL('./mount-namespace/main.js', import.meta.url));

function assertRefused(attempt: Attempt | undefined, mountPoint: string, what: string): void {
  assert.ok(attempt, `${what} was attempted`);
  assert.equal(attempt.outcome, 'failed', `${what} must be refused`);
  assert.equal(attempt.code, 'Unsafe', `${what}: ${attempt.message}`);
  assert.equal(attempt.retryable, false, `${what} is not retryable`);
  assert.ok(attempt.message?.includes(`"${mountPoint}"`), `${what} names the mount "${mountPoint}": ${attempt.message}`);
  assert.match(attempt.message ?? '', /mount/);
}

describe('delete and recycle never cross a mount (private mount namespace, system read-only)', { skip: mountNamespaceSkipReason() }, () => {
  let results: Record<string, ScenarioResult>;
  before(async () => {
    results = await runInMountNamespace<Record<string, ScenarioResult>>(CHILD);
  });

  test('a bind mount from the same filesystem on the volume directory: delete and recycle are refused naming it, the decoys untouched', () => {
    const r = results.bindOnVolume;
    assertRefused(r.delete, r.mountPoint, 'delete');
    assertRefused(r.recycle, r.mountPoint, 'recycle');
    assert.equal(r.decoysIntact, true);
  });

  test('a bind mount nested inside the volume: refused before anything is deleted, the decoys and the volume untouched', () => {
    const r = results.bindNested;
    assertRefused(r.delete, r.mountPoint, 'delete');
    assertRefused(r.recycle, r.mountPoint, 'recycle');
    assert.equal(r.decoysIntact, true);
    assert.equal(r.volumeIntact, true, "the volume's own files are all still there");
  });

  test('a tmpfs mounted on the volume directory: delete and recycle are refused, its files untouched', () => {
    const r = results.tmpfsOnVolume;
    assertRefused(r.delete, r.mountPoint, 'delete');
    assertRefused(r.recycle, r.mountPoint, 'recycle');
    assert.equal(r.decoysIntact, true);
  });

  test('a parent below the root that is a mount point (nfs-subdir pathPattern): delete, recycle and provisioning there are refused naming it', () => {
    const r = results.parentCrossesMount;
    assertRefused(r.delete, r.mountPoint, 'delete');
    assertRefused(r.recycle, r.mountPoint, 'recycle');
    assertRefused(r.provision, r.mountPoint, 'provision');
    assert.equal(r.decoysIntact, true);
  });

  test('a root that is itself a mount point still recycles and deletes its volumes', () => {
    const r = results.rootIsMount;
    assert.deepEqual(r.recycle, { outcome: 'ok' });
    assert.deepEqual(r.volumeEntries, []);
    assert.deepEqual(r.delete, { outcome: 'ok' });
    assert.equal(r.volumeGone, true);
    assert.equal(r.decoysIntact, true);
  });

  test('the recursive walk itself refuses a directory on another mount it descends into (bind mount, same st_dev)', () => {
    const r = results.walkRefusesMount;
    assertRefused(r.delete, r.mountPoint, 'the walk');
    assert.equal(r.decoysIntact, true);
  });

  test('a mount made on a directory the walk holds open is not entered: the directory underneath is emptied, removing it is refused', () => {
    const r = results.mountAfterOpen;
    assert.deepEqual(r.recycle, { outcome: 'ok' });
    assert.deepEqual(r.volumeEntries, [], 'the file underneath the mount was removed');
    assertRefused(r.delete, r.mountPoint, 'removing the mounted-over directory');
    assert.equal(r.decoysIntact, true, 'the file on the mount is untouched');
  });

  test('reclaim of a PV on a bind-mounted directory: Failed after one attempt with a Warning naming the mount, decoys untouched', () => {
    const r = results.reclaimFlowRefusesMount;
    assert.equal(r.phase, 'Failed attempts=1');
    const warnings = (r.events ?? []).filter((e) => e.startsWith('Warning VolumeFailedDelete: '));
    assert.equal(warnings.length, 1, JSON.stringify(r.events));
    assert.ok(warnings[0].includes(`"${r.mountPoint}"`), warnings[0]);
    assert.match(warnings[0], /refusing path .*mount/);
    assert.equal(r.decoysIntact, true);
  });

  test('released TTLs: forged ones (another namespace\'s volume, a bind-mounted directory) delete nothing; our own volume with the decoys mounted over it is refused at the mount', () => {
    const r = results.ttlForgedAndMounted;
    assert.equal(r.phase, 'forged-victim=Released forged-mount=Released own=Failed', JSON.stringify(r.events));
    for (const name of ['forged-victim', 'forged-mount']) {
      assert.ok((r.events ?? []).some((e) => e.startsWith(`${name} Warning ReleasedTTLRefused: `)), `${name}: ${JSON.stringify(r.events)}`);
      assert.ok(!(r.events ?? []).some((e) => e.startsWith(`${name} Warning VolumeFailedDelete`)), `${name}: no delete attempted`);
    }
    const refused = (r.events ?? []).filter((e) => e.startsWith('own Warning VolumeFailedDelete: '));
    assert.equal(refused.length, 1, JSON.stringify(r.events));
    assert.ok(refused[0].includes(`"${r.mountPoint}"`) && /mount/.test(refused[0]), refused[0]);
    assert.equal(r.volumeIntact, true, "the other namespace's volume keeps its data and its claim");
    assert.equal(r.decoysIntact, true);
  });
});
