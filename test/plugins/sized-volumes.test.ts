/**
 * Sized host-path volumes with real loop devices and ext4, inside a private mount namespace with
 * the system read-only (sized/main.ts). Skipped, saying why, where that namespace or the tools
 * cannot be had.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { before, describe, test } from 'node:test';
import { imageSupportProblem } from '../../src/plugins/host-path/image-volume.js';
import { mountNamespaceSkipReason, runInMountNamespace } from '../helpers/mount-namespace.js';

const CHILD = fileURLToPath(new URL('./sized/main.js', import.meta.url));
const skip = mountNamespaceSkipReason() ?? imageSupportProblem();

type Results = Record<string, Record<string, unknown>>;

describe('host-path sizing: image (loop-mounted ext4 images, private mount namespace)', { skip }, () => {
  let r: Results;
  before(async () => {
    r = await runInMountNamespace<Results>(CHILD);
    for (const [name, result] of Object.entries(r)) assert.equal(result.error, undefined, `${name}: ${String(result.error)}`);
  });

  test('a volume holds its size: a write past it fails with ENOSPC, statfs measures what was written, a retry provisions the same volume', () => {
    const a = r.holdsItsSizeAndGrows;
    assert.equal(a.capacity, '20Mi');
    assert.equal(a.sameOnRetry, true);
    assert.deepEqual((a.overflow as { outcome: string }).outcome, 'failed');
    assert.match(String((a.overflow as { message?: string }).message), /ENOSPC|no space/i);
    assert.ok((a.usedMiB as number) >= 8 && (a.usedMiB as number) < 12, `used ${String(a.usedMiB)} MiB after writing 8`);
    assert.ok((a.capacityMiB as number) > 15 && (a.capacityMiB as number) <= 20, `capacity ${String(a.capacityMiB)} MiB`);
    assert.equal(a.attachedWhileMounted, 1);
  });

  test('a sized volume grows while mounted (online with CAP_SYS_RESOURCE, else offline when no other mount holds it): larger, its data kept, the new room writable', () => {
    const a = r.holdsItsSizeAndGrows;
    assert.equal(a.grown, String(40 * 1024 * 1024));
    assert.ok((a.grownCapacityMiB as number) > 35, `capacity after growing ${String(a.grownCapacityMiB)} MiB`);
    assert.equal(a.dataKept, true);
    assert.equal((a.moreFits as { outcome: string }).outcome, 'ok');
  });

  test('delete unmounts, detaches and removes: nothing mounted, attached or left, the decoys untouched', () => {
    const a = r.holdsItsSizeAndGrows;
    assert.equal((a.deleted as { outcome: string }).outcome, 'ok', JSON.stringify(a.deleted));
    assert.deepEqual([a.mountedAfterDelete, a.directoryGone, a.imageGone, a.attachedAtEnd, a.decoysIntact], [false, true, true, 0, true]);
  });

  test('capacity accounting refuses the claim that does not fit, naming the root and the numbers; plain directories are not counted', () => {
    const c = r.capacityAccounting;
    assert.equal((c.first as { outcome: string }).outcome, 'ok');
    const second = c.second as { outcome: string; message?: string; retryable?: boolean };
    assert.equal(second.outcome, 'failed');
    assert.match(String(second.message), /host-path root ".*\/root" cannot hold 40Mi more: 40Mi of 64Mi \(filesystem 64Mi\) already allocated to 1 sized volume\(s\)/);
    assert.equal(second.retryable, true, 'room may be freed later');
    assert.equal((c.third as { outcome: string }).outcome, 'ok', JSON.stringify(c.third));
    assert.equal(c.allocatedMiB, 56);
    assert.equal((c.plainStillWorks as { outcome: string }).outcome, 'ok');
    assert.deepEqual([c.leftInRoot, c.attachedAtEnd, c.decoysIntact], [[], 0, true]);
  });

  test('a restart between attaching the image and writing the PV leaves nothing attached or mounted after recovery', () => {
    const s = r.restartBetweenAttachAndPv;
    assert.equal(s.stray, true);
    assert.equal(s.attachedBefore, 2, 'the mount and the stray attachment');
    assert.equal(s.attachedAfterRetry, 1, 'the retry detached the stray device and kept the mount');
    assert.equal((s.deleted as { outcome: string }).outcome, 'ok', JSON.stringify(s.deleted));
    assert.deepEqual([s.mountedAfterDelete, s.directoryGone, s.imageGone, s.attachedAtEnd, s.decoysIntact], [false, true, true, 0, true]);
  });

  test('after a reboot (everything unmounted) the restarted plugin mounts each sized volume again, its data intact', () => {
    const b = r.remountAfterReboot;
    assert.deepEqual([b.unmounted, b.remounted, b.kept, b.attachedAtEnd, b.decoysIntact], [true, true, 'survives the reboot', 0, true]);
  });
});

test('without root, sizing: image is refused up front with a message that says why and what to do', { skip: process.getuid?.() === 0 ? false : 'needs root to drop to another uid' }, () => {
  // The child loads the module as root, then drops to nobody before asking: the checkout may sit
  // in a directory only root can read (CI's mktemp -d is 0700), so nobody could not import it.
  const module = fileURLToPath(new URL('../../src/plugins/host-path/image-volume.js', import.meta.url));
  const script = `import(${JSON.stringify(module)}).then((m) => { process.setgroups([]); process.setgid(65534); process.setuid(65534); process.stdout.write(String(m.imageSupportProblem())); })`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'sizing: image needs the provisioner to run as root (it attaches loop devices and mounts filesystems)');
});
