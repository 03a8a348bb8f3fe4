import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeMountInfoField, describeMount, mountsCrossed, parseMountInfo, type MountPoint } from '../../../src/plugins/fs-common/mount-points.js';

const SAMPLE = [
  '27 1 254:0 / / rw,relatime - ext4 /dev/vda rw',
  '61 27 0:40 / /srv/volumes rw,relatime shared:5 master:1 - xfs /dev/sdb1 rw',
  '62 61 254:0 /home/user /srv/volumes/vol\\040a/in\\011ner\\134x rw - ext4 /dev/vda rw',
  '63 61 0:41 / /srv/volumes/team rw - tmpfs none rw',
  '64 27 0:42 / /srv/volumes-other rw - tmpfs none rw',
  'not a mountinfo line',
  '',
].join('\n');

function mount(id: number, path: string): MountPoint {
  return { id, path, fsRoot: '/', fsType: 'tmpfs', source: 'none' };
}

test('mountinfo fields are split with optional fields skipped and octal escapes (space, tab, backslash) decoded', () => {
  const mounts = parseMountInfo(SAMPLE);
  assert.deepEqual(
    mounts.map((m) => [m.id, m.path, m.fsRoot, m.fsType, m.source]),
    [
      [27, '/', '/', 'ext4', '/dev/vda'],
      [61, '/srv/volumes', '/', 'xfs', '/dev/sdb1'],
      [62, '/srv/volumes/vol a/in\tner\\x', '/home/user', 'ext4', '/dev/vda'],
      [63, '/srv/volumes/team', '/', 'tmpfs', 'none'],
      [64, '/srv/volumes-other', '/', 'tmpfs', 'none'],
    ],
  );
  assert.equal(decodeMountInfoField('a\\012b'), 'a\nb');
});

test('a bind mount is described with the directory of its filesystem it shows', () => {
  const bind = parseMountInfo(SAMPLE).find((m) => m.id === 62)!;
  assert.equal(describeMount(bind), '"/srv/volumes/vol a/in\tner\\x" is a mount point (mount 62: ext4 "/dev/vda" showing its "/home/user")');
});

test('mounts crossed: the path itself, a parent below the root and anything inside count; the root and what lies beside do not', () => {
  const root = '/srv/volumes';
  const mounts = [
    mount(1, '/'),
    mount(2, root),
    mount(3, `${root}/team`),
    mount(4, `${root}/team/vol/data/inner`),
    mount(5, `${root}/vol2`),
    mount(6, `${root}/volume-beside`),
    mount(7, '/srv/volumes-other'),
  ];
  const ids = (path: string): number[] => mountsCrossed(mounts, root, path).map((m) => m.id);
  assert.deepEqual(ids(`${root}/team/vol`), [3, 4]);
  assert.deepEqual(ids(`${root}/vol2`), [5]);
  assert.deepEqual(ids(`${root}/vol`), [], 'a string prefix of another mount point is not crossed');
  assert.deepEqual(ids(`${root}/plain`), [], 'a root that is itself a mount point is fine');
});
