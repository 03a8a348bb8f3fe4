/**
 * Snapshots, restores and clones of sized host-path volumes (loop-mounted ext4 images), inside a
 * private mount namespace with the system read-only (sized/snapshot-main.ts): a crash-consistent
 * copy of the image taken with its filesystem frozen and always thawed; the copy path on tmpfs
 * and the reflink path on XFS (reflink=1); the conformance snapshot sub-suite. Skipped, saying
 * why, where the namespace, loop devices or tools cannot be had.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { before, describe, test } from 'node:test';
import { imageSupportProblem } from '../../src/plugins/host-path/image-volume.js';
import { mountNamespaceSkipReason, runInMountNamespace } from '../helpers/mount-namespace.js';
import { SNAPSHOT_SUITE } from './conformance/snapshot.js';
import { reflinkSkipReason } from './sized/snapshot-scenarios.js';

const CHILD = fileURLToPath(new URL('./sized/snapshot-main.js', import.meta.url));
const skip = mountNamespaceSkipReason() ?? imageSupportProblem();
const MIB = 1024 * 1024;

type Result = Record<string, unknown> & { error?: string };

function assertCycle(r: Result): void {
  assert.equal(r.restoredMatches, true, 'the restored volume holds the snapshot moment (sha256 per file)');
  assert.equal(r.cloneMatches, true, "the clone holds the source's current data");
  assert.equal(r.restoredCapacity, '48Mi', 'restored into a larger claim: grown');
  assert.ok((r.restoredFilesystemMiB as number) > 36, `its filesystem has ${String(r.restoredFilesystemMiB)} MiB`);
  assert.equal(r.frozenAfterSnapshot, false, 'thawed after the copy');
  assert.equal((r.info as { sizeBytes: string }).sizeBytes, String(32 * MIB), "a snapshot's size is its image's");
  const plainInto = r.plainInto as { outcome: string; code?: string; retryable?: boolean };
  assert.deepEqual([plainInto.outcome, plainInto.code, plainInto.retryable], ['failed', 'NotSupported', false], 'a sized snapshot into a plain class is refused for good');
  assert.equal(r.decoysIntact, true);
  assert.equal(r.attachedAtEnd, 0, 'no loop device left attached');
}

describe('sized host-path snapshots (loop-mounted ext4 images, private mount namespace)', { skip }, () => {
  let r: Record<string, Result>;
  before(async () => {
    r = await runInMountNamespace<Record<string, Result>>(CHILD, [], 300_000);
    for (const name of ['copyRoot', 'reflinkRoot']) assert.equal(r[name].error, undefined, `${name}: ${String(r[name].error)}`);
  });

  test('a snapshot freezes the mounted filesystem for the copy and thaws it; restore (grown) and clone hold the right data (copy path, tmpfs root)', () => {
    const c = r.copyRoot;
    assertCycle(c);
    assert.deepEqual(c.freezeCommands, [`fsfreeze --freeze ${String(c.frozenPath)}`, `fsfreeze --unfreeze ${String(c.frozenPath)}`]);
    const snap = c.snapshot as { copied: number; reflinked: number };
    assert.equal(snap.reflinked, 0, 'tmpfs has no reflinks');
    assert.ok(snap.copied >= 7 * MIB && snap.copied < 32 * MIB, `copied ${snap.copied} bytes of a 32 MiB sparse image`);
  });

  test('a copy longer than the freeze bound is dropped: the filesystem is thawed, no snapshot is left, the failure is retryable', () => {
    const c = r.copyRoot;
    const over = c.overBound as { outcome: string; code?: string; retryable?: boolean; message?: string };
    assert.deepEqual([over.outcome, over.code, over.retryable], ['failed', 'Transient', true], over.message);
    assert.match(String(over.message), /frozen/);
    assert.equal(c.frozenAfterBound, false);
    assert.equal(c.listedAfterBound, 1, 'only the first snapshot is listed');
  });

  test('recover() thaws a filesystem a killed snapshot left frozen', () => {
    assert.equal(r.copyRoot.frozenAfterRecover, false);
  });

  test('on an XFS root with reflink=1 every image copy is a reflink: nothing copied, restore and clone hold the right data', { skip: reflinkSkipReason() }, () => {
    const x = r.reflinkRoot;
    assertCycle(x);
    assert.deepEqual(x.snapshot, { ...(x.snapshot as object), copied: 0, reflinked: 32 * MIB });
    assert.deepEqual(x.restore, { copied: 0, reflinked: 32 * MIB });
  });

  for (const check of SNAPSHOT_SUITE) {
    test(`conformance (sized host-path): ${check.name}`, () => {
      assert.equal((r.conformance as unknown as Record<string, string>)[check.name], 'ok');
    });
  }
});
