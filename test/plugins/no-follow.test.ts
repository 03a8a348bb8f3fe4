import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { emptyOpenDir, OpenDir } from '../../src/plugins/no-follow.js';

describe('fd-relative directory operations', () => {
  let base: string;
  before(async () => {
    base = await fs.realpath(await fs.mkdtemp(join(tmpdir(), 'h6-no-follow-')));
  });
  after(() => fs.rm(base, { recursive: true, force: true }));

  test('a directory swapped for a symlink after it was opened is emptied where it went, the link target untouched', async () => {
    const vol = join(base, 'vol');
    const outside = join(base, 'outside');
    await fs.mkdir(join(vol, 'sub'), { recursive: true });
    await fs.writeFile(join(vol, 'sub', 'data'), 'volume data');
    await fs.mkdir(outside);
    await fs.writeFile(join(outside, 'precious'), 'keep');

    const dir = await OpenDir.open(vol);
    try {
      // The attack: after the check and the open, the directory is replaced by a symlink.
      await fs.rename(vol, join(base, 'vol-moved'));
      await fs.symlink(outside, vol);
      await emptyOpenDir(dir, (await dir.stat()).dev);
    } finally {
      await dir.close();
    }
    assert.deepEqual(await fs.readdir(join(base, 'vol-moved')), []);
    assert.equal(await fs.readFile(join(outside, 'precious'), 'utf8'), 'keep');
  });

  test('opening a symlink as a directory fails instead of following it', async () => {
    const target = join(base, 'target');
    await fs.mkdir(target);
    await fs.symlink(target, join(base, 'link'));
    const parent = await OpenDir.open(base);
    try {
      await assert.rejects(parent.child('link'), (err: NodeJS.ErrnoException) => {
        assert.ok(err.code === 'ELOOP' || err.code === 'ENOTDIR', `unexpected ${err.code}`);
        return true;
      });
    } finally {
      await parent.close();
    }
  });
});

const safePathModule = fileURLToPath(new URL('../../src/plugins/safe-path.js', import.meta.url));

/** Runs in a private mount namespace: mounts a tmpfs inside a volume and tries to delete the volume. */
const MOUNT_SCRIPT = `
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
const { removeTreeNoFollow } = await import(process.argv[1]);
const [root, vol] = [process.argv[2], process.argv[2] + '/vol'];
execFileSync('mount', ['-t', 'tmpfs', 'none', vol + '/mnt']);
await fs.writeFile(vol + '/mnt/other-fs-file', 'x');
let outcome;
try { await removeTreeNoFollow(root, vol); outcome = 'deleted'; } catch (err) { outcome = err.code + ': ' + err.message; }
const survived = await fs.readFile(vol + '/mnt/other-fs-file', 'utf8').then(() => true, () => false);
execFileSync('umount', [vol + '/mnt']);
process.stdout.write(JSON.stringify({ outcome, survived }));
`;

test('deletion refuses to descend into another filesystem mounted inside the volume', async (t) => {
  const probe = spawnSync('unshare', ['-m', '--propagation', 'private', 'true']);
  if (probe.status !== 0) {
    t.skip('needs unshare -m (a private mount namespace)');
    return;
  }
  const root = await fs.realpath(await fs.mkdtemp(join(tmpdir(), 'h6-mount-')));
  try {
    await fs.mkdir(join(root, 'vol', 'mnt'), { recursive: true });
    const run = spawnSync(
      'unshare',
      ['-m', '--propagation', 'private', process.execPath, '--input-type=module', '-e', MOUNT_SCRIPT, safePathModule, root],
      { encoding: 'utf8', timeout: 60_000 },
    );
    assert.equal(run.status, 0, run.stderr);
    const result = JSON.parse(run.stdout) as { outcome: string; survived: boolean };
    assert.match(result.outcome, /^Unsafe: .*another filesystem/);
    assert.equal(result.survived, true);
  } finally {
    await fs.rm(root, { recursive: true, force: true });
  }
});
