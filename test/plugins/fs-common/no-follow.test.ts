import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { OpenDir } from '../../../src/plugins/fs-common/no-follow.js';
import { PluginError } from '../../../src/plugins/api/errors.js';
import { emptyOpenDir } from '../../../src/plugins/fs-common/tree-walk.js';

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
      await emptyOpenDir(dir);
    } finally {
      await dir.close();
    }
    assert.deepEqual(await fs.readdir(join(base, 'vol-moved')), []);
    assert.equal(await fs.readFile(join(outside, 'precious'), 'utf8'), 'keep');
  });

  test('climbing back through ".." finds the directory the walk came down from, and refuses one the child was moved out of', async () => {
    await fs.mkdir(join(base, 'up', 'mid', 'low'), { recursive: true });
    await fs.mkdir(join(base, 'up', 'mid', 'stays'));
    await fs.mkdir(join(base, 'elsewhere'));
    const up = await OpenDir.open(join(base, 'up'));
    const mid = await up.child('mid');
    const [low, stays] = [await mid.child('low'), await mid.child('stays')];
    const { identity, place } = mid;
    await Promise.all([up.close(), mid.close()]);
    try {
      const again = await stays.parent(identity, place);
      assert.deepEqual(again.identity, identity);
      await again.close();
      await fs.rename(join(base, 'up', 'mid', 'low'), join(base, 'elsewhere', 'low'));
      await assert.rejects(low.parent(identity, place), (err: unknown) => {
        assert.ok(err instanceof PluginError, String(err));
        assert.equal(err.code, 'Transient');
        assert.equal(err.retryable, true);
        assert.match(err.message, /was moved out of ".*\/up\/mid"/);
        return true;
      });
    } finally {
      await Promise.all([low.close(), stays.close()]);
    }
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
