/** Archive names carry their fate; the sweeper deletes only expired archives it named, never through a symlink. */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ARCHIVE_DIR, archiveContained, archiveName, listArchives, parseArchiveName, sweepArchives } from '../../../src/plugins/fs-common/archive.js';
import { resolveInsideRoot } from '../../../src/plugins/fs-common/safe-path.js';

describe('archive names', () => {
  const at = new Date('2026-12-02T10:00:00.400Z');

  it('say when the archive expires (rounded up) or when it was archived', () => {
    assert.equal(archiveName('k-dynamic-pvc-1', at, 3_600_000), 'k-dynamic-pvc-1.expires-20261202T110001Z');
    assert.equal(archiveName('k-dynamic-pvc-1', at, undefined), 'k-dynamic-pvc-1.archived-20261202T100000Z');
  });

  it('parse back, dots in the backing name included; anything else is not an archive', () => {
    assert.deepEqual(parseArchiveName('a.b.expires-20261202T110001Z', '/r/a'), { path: '/r/a/a.b.expires-20261202T110001Z', backingName: 'a.b', expiresAt: new Date('2026-12-02T11:00:01Z') });
    assert.equal(parseArchiveName('x.archived-20261202T100000Z', '/r/a')?.archivedAt?.toISOString(), '2026-12-02T10:00:00.000Z');
    for (const name of ['x.expires-20261340T000000Z', 'x.expires-20261202T250000Z', '.expires-20261202T110001Z', 'x.expires-2026-12-02', 'handmade', 'x.deleted-20261202T110001Z']) {
      assert.equal(parseArchiveName(name, '/r/a'), undefined, name);
    }
  });
});

describe('archiving and sweeping', () => {
  it('moves a volume into the area and sweeps it after its time; a symlink, a file and names it did not make stay', async () => {
    const base = await mkdtemp(join(tmpdir(), 'pvc-archive-'));
    const root = join(base, 'root');
    const outside = join(base, 'outside');
    try {
      await mkdir(join(root, 'k-dynamic-pvc-1'), { recursive: true });
      await writeFile(join(root, 'k-dynamic-pvc-1', 'data'), 'user data');
      await mkdir(outside);
      await writeFile(join(outside, 'precious'), 'keep');
      const now = new Date('2026-12-02T10:00:00Z');
      const moved = await archiveContained(await resolveInsideRoot([root], join(root, 'k-dynamic-pvc-1')), 'k-dynamic-pvc-1', now, 60_000);
      const area = join(root, ARCHIVE_DIR);
      assert.equal(moved, join(area, 'k-dynamic-pvc-1.expires-20261202T100100Z'));
      await symlink(outside, join(area, 'k-dynamic-pvc-2.expires-20000101T000000Z'));
      await writeFile(join(area, 'k-dynamic-pvc-3.expires-20000101T000000Z'), 'a file');
      await mkdir(join(area, 'handmade'));
      assert.deepEqual((await listArchives([root])).map((a) => a.backingName).sort(), ['k-dynamic-pvc-1', 'k-dynamic-pvc-2', 'k-dynamic-pvc-3']);
      assert.deepEqual(await sweepArchives([root], now), [], 'not yet');
      assert.deepEqual((await sweepArchives([root], new Date('2026-12-02T10:01:00Z'))).map((a) => a.backingName), ['k-dynamic-pvc-1']);
      assert.deepEqual((await readdir(area)).sort(), ['handmade', 'k-dynamic-pvc-2.expires-20000101T000000Z', 'k-dynamic-pvc-3.expires-20000101T000000Z']);
      assert.deepEqual(await readdir(outside), ['precious'], 'the symlink was not followed');
      assert.equal(await archiveContained(await resolveInsideRoot([root], join(root, 'k-dynamic-pvc-1')), 'k-dynamic-pvc-1', now, undefined), undefined, 'gone already: nothing to do');
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  });
});
