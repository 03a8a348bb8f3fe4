/**
 * The local-path side by side, small (5 claims a side), to keep its harness working: on one real
 * kubelet node, local-path-provisioner (helper pods running busybox) and our node agent (plain
 * directories and sized volumes) each provision 5 claims consumed by pods that write a file,
 * and delete them. Correctness only, never timing: every claim Bound, every pod Running, every
 * PV deleted, local-path's helper pods gone, and nothing left in any root (no entry, image,
 * mount or loop device). Part of the nodes suite: it skips, saying why, where there is no real
 * node, no local-path-provisioner build, no static busybox or no loop devices.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runOneSide, sideBySideUnavailable, startSideBySide } from '../../bench/local-path/harness.js';
import { SIDES } from '../../bench/local-path/objects.js';
import { realControlPlaneSkip } from '../helpers/control-plane.js';

const N = 5;

const skip = realControlPlaneSkip() || sideBySideUnavailable() || false;

test(`local-path-provisioner and our node agent side by side on a real node, ${N} claims each: all bind, pods run, deletes leave nothing`, { skip, timeout: 900_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'local-path-side-'));
  const ctx = await startSideBySide(dir, 20);
  try {
    for (const side of SIDES) {
      const r = await runOneSide(ctx, side, N, 'test', { concurrency: 4, timeoutMs: 300_000 });
      assert.equal(r.n, N, side);
      assert.ok(r.boundPerSecond > 0 && Number.isFinite(r.boundPerSecond), `${side}: every claim Bound`);
      assert.ok(r.runningP99Ms !== null && r.runningP99Ms > 0, `${side}: every pod Running`);
      assert.ok(Number.isFinite(r.deletePerSecond), `${side}: every PV deleted`);
      assert.deepEqual(r.leftovers, { entries: [], images: [], mounts: [], loopDevices: [] }, `${side}: nothing left in its root`);
      assert.ok(r.provisionerCpuMs !== null && r.provisionerCpuMs > 0, `${side}: the provisioner's CPU was read`);
    }
  } finally {
    await ctx.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
