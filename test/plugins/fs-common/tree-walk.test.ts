/**
 * The delete walk through both kinds of system calls (walk-io.ts): synchronous slices, as on a
 * local filesystem, and the thread pool, as on NFS (which the tests' temporary directories never
 * are, so the choice is forced here). A tree deeper than the walk's window of open directories
 * makes it climb back through `..`.
 */
import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { OpenDir } from '../../../src/plugins/fs-common/no-follow.js';
import { emptyOpenDir, removeEntry } from '../../../src/plugins/fs-common/tree-walk.js';
import { synchronousIo, THREAD_POOL_IO, type WalkIo } from '../../../src/plugins/fs-common/walk-io.js';
import { buildChain } from '../../helpers/deep-tree.js';

/** A volume with a chain deeper than the window, files at several levels, links out, an empty directory. */
async function plantTree(vol: string, outside: string): Promise<void> {
  await fs.mkdir(join(vol, 'a', 'b', 'empty'), { recursive: true });
  await fs.writeFile(join(vol, 'a', 'file'), 'x');
  await fs.writeFile(join(vol, 'a', 'b', 'file'), 'y');
  await fs.symlink(outside, join(vol, 'a', 'link-to-outside'));
  await fs.symlink(join(outside, 'keep.txt'), join(vol, 'a', 'b', 'link-to-file'));
  buildChain(join(vol, 'a', 'b'), 100);
  for (let i = 0; i < 300; i++) await fs.writeFile(join(vol, `wide-${i}`), '');
}

const IOS: Array<[string, () => WalkIo]> = [
  ['synchronous slices (local filesystems)', synchronousIo],
  ['the thread pool (network filesystems)', () => THREAD_POOL_IO],
];

describe('the delete walk', () => {
  let base: string;
  let outside: string;
  before(async () => {
    base = await fs.realpath(await fs.mkdtemp(join(tmpdir(), 'pvc-tree-walk-')));
    outside = join(base, 'outside');
    await fs.mkdir(outside);
    await fs.writeFile(join(outside, 'keep.txt'), 'outside the volume');
  });
  after(() => fs.rm(base, { recursive: true, force: true }));

  for (const [what, io] of IOS) {
    test(`through ${what}: removes a tree 100 deep without following its links, and empties one`, async () => {
      const root = await fs.mkdtemp(join(base, 'root-'));
      await plantTree(join(root, 'vol'), outside);
      await plantTree(join(root, 'kept'), outside);
      const dir = await OpenDir.open(root);
      try {
        await removeEntry(dir, 'vol', undefined, io());
        const kept = await dir.child('kept');
        try {
          await emptyOpenDir(kept, undefined, io());
        } finally {
          await kept.close();
        }
      } finally {
        await dir.close();
      }
      assert.deepEqual(await fs.readdir(root), ['kept']);
      assert.deepEqual(await fs.readdir(join(root, 'kept')), []);
      assert.equal(await fs.readFile(join(outside, 'keep.txt'), 'utf8'), 'outside the volume');
    });
  }
});
