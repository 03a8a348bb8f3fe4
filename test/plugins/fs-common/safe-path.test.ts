import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PluginError } from '../../../src/plugins/api/errors.js';
import {
  emptyDirNoFollow,
  mkdirNoFollow,
  removeTreeNoFollow,
  renameInParentNoFollow,
  resolveInsideRoot,
} from '../../../src/plugins/fs-common/safe-path.js';

/** A root with a volume, and decoys outside it that must survive every test. */
interface Sandbox {
  base: string;
  root: string;
  outside: string;
  decoyFile: string;
  decoyDirFile: string;
}

async function makeSandbox(): Promise<Sandbox> {
  const base = await fs.realpath(await fs.mkdtemp(join(tmpdir(), 'h6-safe-path-')));
  const root = join(base, 'root');
  const outside = join(base, 'outside');
  await fs.mkdir(root);
  await fs.mkdir(join(outside, 'tree', 'deep'), { recursive: true });
  const decoyFile = join(outside, 'decoy.txt');
  const decoyDirFile = join(outside, 'tree', 'deep', 'keep.txt');
  await fs.writeFile(decoyFile, 'do not delete');
  await fs.writeFile(decoyDirFile, 'do not delete either');
  return { base, root, outside, decoyFile, decoyDirFile };
}

async function assertDecoysIntact(s: Sandbox): Promise<void> {
  assert.equal(await fs.readFile(s.decoyFile, 'utf8'), 'do not delete');
  assert.equal(await fs.readFile(s.decoyDirFile, 'utf8'), 'do not delete either');
}

async function exists(path: string): Promise<boolean> {
  return fs.lstat(path).then(
    () => true,
    () => false,
  );
}

function isUnsafe(pattern?: RegExp): (err: unknown) => boolean {
  return (err: unknown) => {
    assert.ok(err instanceof PluginError, `expected PluginError, got ${String(err)}`);
    assert.equal(err.code, 'Unsafe');
    assert.equal(err.retryable, false);
    if (pattern) assert.match(err.message, pattern);
    return true;
  };
}

describe('resolveInsideRoot', () => {
  let s: Sandbox;
  before(async () => {
    s = await makeSandbox();
    await fs.mkdir(join(s.root, 'vol', 'sub'), { recursive: true });
    await fs.symlink(s.outside, join(s.root, 'escape'));
    await fs.symlink(s.root, join(s.base, 'root-alias'));
    await fs.mkdir(join(s.base, 'root2', 'x'), { recursive: true });
  });
  after(() => fs.rm(s.base, { recursive: true, force: true }));

  test('accepts a path strictly inside a root and names the canonical root', async () => {
    const r = await resolveInsideRoot([s.root], join(s.root, 'vol', 'sub'));
    assert.deepEqual(r, { root: s.root, path: join(s.root, 'vol', 'sub'), exists: true });
  });

  test('a root configured through a symlink is canonicalised and paths under either form resolve', async () => {
    const alias = join(s.base, 'root-alias');
    assert.deepEqual(await resolveInsideRoot([alias], join(alias, 'vol')), {
      root: s.root,
      path: join(s.root, 'vol'),
      exists: true,
    });
    assert.equal((await resolveInsideRoot([alias], join(s.root, 'vol'))).path, join(s.root, 'vol'));
  });

  test('a path that does not exist yet is accepted with exists=false', async () => {
    const r = await resolveInsideRoot([s.root], join(s.root, 'not-yet', 'deeper'));
    assert.equal(r.exists, false);
  });

  test('the nested root with the longest match wins', async () => {
    const r = await resolveInsideRoot([s.root, join(s.root, 'vol')], join(s.root, 'vol', 'sub'));
    assert.equal(r.root, join(s.root, 'vol'));
  });

  const refusals: Array<[string, (s: Sandbox) => string, RegExp]> = [
    ['the filesystem root "/"', () => '/', /filesystem root/],
    ['"/etc" (outside every root)', () => '/etc', /not inside any configured root/],
    ['the root itself', (s) => s.root, /configured root/],
    ['an ancestor of the root', (s) => s.base, /configured root/],
    ['a relative path', () => 'root/vol', /not absolute/],
    ['a ".." component, even one that lands inside', (s) => join(s.root, 'vol') + '/../vol', /"\.\."/],
    ['root/../x', (s) => `${s.root}/../outside`, /"\.\."/],
    ['an empty component', (s) => `${s.root}//vol`, /empty/],
    ['a sibling directory sharing the root as a string prefix', (s) => join(s.base, 'root2', 'x'), /not inside/],
    ['a symlink out of the root', (s) => join(s.root, 'escape'), /symbolic link/],
    ['a path through a symlinked component', (s) => join(s.root, 'escape', 'tree'), /symbolic link/],
    ['a NUL byte', (s) => `${s.root}/vol\0x`, /NUL/],
  ];
  for (const [what, candidate, reason] of refusals) {
    test(`refuses ${what}`, async () => {
      await assert.rejects(resolveInsideRoot([s.root], candidate(s)), isUnsafe(reason));
      await assertDecoysIntact(s);
    });
  }

  test('the error names the path and the configured roots', async () => {
    await assert.rejects(resolveInsideRoot([s.root], '/etc/passwd'), (err: unknown) => {
      assert.ok(err instanceof PluginError);
      assert.ok(err.message.includes('"/etc/passwd"'));
      assert.ok(err.message.includes(s.root));
      return true;
    });
  });

  test('"/" can never be configured as a root', async () => {
    await assert.rejects(resolveInsideRoot(['/'], '/etc'), isUnsafe(/cannot be a volume root/));
  });

  test('a root that does not exist is a retryable backend error, not success', async () => {
    const missing = join(s.base, 'missing-root');
    await assert.rejects(resolveInsideRoot([missing], join(missing, 'vol')), (err: unknown) => {
      assert.ok(err instanceof PluginError);
      assert.equal(err.code, 'Backend');
      assert.equal(err.retryable, true);
      return true;
    });
  });
});

describe('removeTreeNoFollow', () => {
  let s: Sandbox;
  before(async () => {
    s = await makeSandbox();
  });
  after(() => fs.rm(s.base, { recursive: true, force: true }));

  async function populatedVolume(name: string): Promise<string> {
    const vol = join(s.root, name);
    await fs.mkdir(join(vol, 'a', 'b', 'c'), { recursive: true });
    await fs.writeFile(join(vol, 'a', 'b', 'c', 'file'), 'x'.repeat(5000));
    await fs.writeFile(join(vol, 'top'), 'y');
    await fs.symlink(s.outside, join(vol, 'a', 'link-to-outside-dir'));
    await fs.symlink(s.decoyFile, join(vol, 'a', 'b', 'link-to-outside-file'));
    await fs.symlink('/etc', join(vol, 'link-to-etc'));
    await fs.symlink(join(vol, 'nowhere'), join(vol, 'dangling'));
    await fs.link(s.decoyFile, join(vol, 'hardlink-to-decoy'));
    return vol;
  }

  test('deletes a tree, unlinking symlinks inside without touching their targets', async () => {
    const vol = await populatedVolume('vol1');
    await removeTreeNoFollow(s.root, vol);
    assert.equal(await exists(vol), false);
    await assertDecoysIntact(s);
    assert.ok(await exists('/etc'));
  });

  test('a path that is already gone is success', async () => {
    await removeTreeNoFollow(s.root, join(s.root, 'never-was'));
    await removeTreeNoFollow(s.root, join(s.root, 'never-was', 'deeper'));
  });

  test('re-verifies containment: a symlink out of the root is refused and nothing is touched', async () => {
    const link = join(s.root, 'evil');
    await fs.symlink(join(s.outside, 'tree'), link);
    await assert.rejects(removeTreeNoFollow(s.root, link), isUnsafe(/symbolic link/));
    assert.ok(await exists(link));
    await assertDecoysIntact(s);
  });

  test('refuses the root itself and leaves it in place', async () => {
    await fs.writeFile(join(s.root, 'sentinel'), 'z');
    await assert.rejects(removeTreeNoFollow(s.root, s.root), isUnsafe());
    assert.ok(await exists(join(s.root, 'sentinel')));
  });

  test('removes a single file volume', async () => {
    const file = join(s.root, 'file-volume');
    await fs.writeFile(file, 'data');
    await removeTreeNoFollow(s.root, file);
    assert.equal(await exists(file), false);
  });

  test('an aborted signal stops the deletion', async () => {
    const vol = await populatedVolume('vol-abort');
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(removeTreeNoFollow(s.root, vol, controller.signal), { name: 'AbortError' });
    assert.ok(await exists(vol));
    await assertDecoysIntact(s);
  });
});

describe('emptyDirNoFollow', () => {
  let s: Sandbox;
  before(async () => {
    s = await makeSandbox();
  });
  after(() => fs.rm(s.base, { recursive: true, force: true }));

  test('empties the directory, keeps it, and leaves symlink targets outside intact', async () => {
    const vol = join(s.root, 'vol');
    await fs.mkdir(join(vol, 'nested'), { recursive: true, mode: 0o777 });
    await fs.chmod(vol, 0o777);
    await fs.writeFile(join(vol, 'nested', 'f'), 'data');
    await fs.symlink(s.outside, join(vol, 'out'));
    await emptyDirNoFollow(s.root, vol);
    assert.deepEqual(await fs.readdir(vol), []);
    assert.equal((await fs.stat(vol)).mode & 0o777, 0o777);
    await assertDecoysIntact(s);
  });

  test('a missing directory is an error (there is nothing to recycle)', async () => {
    await assert.rejects(emptyDirNoFollow(s.root, join(s.root, 'gone')), { name: 'PluginError', code: 'Backend' });
  });

  test('a symlink to a directory outside is refused, its target untouched', async () => {
    const link = join(s.root, 'link');
    await fs.symlink(s.outside, link);
    await assert.rejects(emptyDirNoFollow(s.root, link), isUnsafe());
    await assertDecoysIntact(s);
  });
});

describe('mkdirNoFollow and renameInParentNoFollow', () => {
  let s: Sandbox;
  before(async () => {
    s = await makeSandbox();
  });
  after(() => fs.rm(s.base, { recursive: true, force: true }));

  test('creates missing parents and the leaf with the exact mode, idempotently', async () => {
    const leaf = join(s.root, 'ns', 'claim', 'vol');
    assert.equal(await mkdirNoFollow(s.root, leaf, 0o777), true);
    assert.equal((await fs.stat(leaf)).mode & 0o777, 0o777);
    assert.equal((await fs.stat(join(s.root, 'ns'))).mode & 0o777, 0o755);
    assert.equal(await mkdirNoFollow(s.root, leaf, 0o777), false);
  });

  test('refuses to create through a symlinked component and creates nothing outside', async () => {
    await fs.symlink(s.outside, join(s.root, 'via-link'));
    await assert.rejects(mkdirNoFollow(s.root, join(s.root, 'via-link', 'newdir'), 0o777), isUnsafe());
    assert.equal(await exists(join(s.outside, 'newdir')), false);
  });

  test('renames beside itself, refuses to replace an existing entry, and reports a missing source', async () => {
    const vol = join(s.root, 'to-archive');
    await fs.mkdir(vol);
    assert.equal(await renameInParentNoFollow(s.root, vol, 'archived-to-archive'), join(s.root, 'archived-to-archive'));
    assert.equal(await exists(vol), false);
    await fs.mkdir(vol);
    await assert.rejects(renameInParentNoFollow(s.root, vol, 'archived-to-archive'), { code: 'Backend' });
    assert.equal(await renameInParentNoFollow(s.root, join(s.root, 'nope'), 'archived-nope'), undefined);
    await assert.rejects(renameInParentNoFollow(s.root, vol, '../escape'), isUnsafe());
  });
});
