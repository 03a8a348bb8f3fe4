/**
 * The fd-relative walk on its own, without safe-path's look at the mount table first: each
 * directory it opens must lie on the mount of the directory it started from, so a bind mount of
 * the decoy directory (same filesystem, same st_dev) met during a recursive delete is refused;
 * and a mount made on a directory the walk already holds open is never entered.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { OpenDir } from '../../../src/plugins/fs-common/no-follow.js';
import { emptyOpenDir, removeEntry } from '../../../src/plugins/fs-common/tree-walk.js';
import { bindMount, mountTmpfs, unmount } from '../../helpers/mount-sandbox.js';
import { attempt, exists, layout, type ScenarioResult } from './common.js';

export async function walkRefusesMount(base: string): Promise<ScenarioResult> {
  const { root, outside, decoysIntact } = await layout(base);
  const inner = join(root, 'vol', 'sub');
  await fs.mkdir(inner, { recursive: true });
  bindMount(outside, inner);
  const rootDir = await OpenDir.open(root);
  try {
    return { mountPoint: inner, delete: await attempt(() => removeEntry(rootDir, 'vol')), decoysIntact: await decoysIntact() };
  } finally {
    await rootDir.close();
  }
}

/**
 * The directory is opened, then a tmpfs is mounted on it: emptying the open directory empties
 * the one underneath (the volume's own file), the tmpfs keeps its file, and removing the
 * directory by name is refused naming the mount.
 */
export async function mountAfterOpen(base: string): Promise<ScenarioResult> {
  const { root, decoysIntact } = await layout(base);
  const vol = join(root, 'vol');
  await fs.mkdir(vol);
  await fs.writeFile(join(vol, 'underneath.txt'), 'volume data');
  const rootDir = await OpenDir.open(root);
  const volDir = await rootDir.child('vol');
  try {
    mountTmpfs(vol);
    await fs.writeFile(join(vol, 'on-tmpfs.txt'), 'other filesystem');
    const recycle = await attempt(() => emptyOpenDir(volDir));
    const del = await attempt(() => removeEntry(rootDir, 'vol'));
    const tmpfsIntact = await exists(join(vol, 'on-tmpfs.txt'));
    unmount(vol);
    const volumeEntries = await fs.readdir(vol);
    return { mountPoint: vol, recycle, delete: del, volumeEntries, decoysIntact: (await decoysIntact()) && tmpfsIntact };
  } finally {
    await volDir.close();
    await rootDir.close();
  }
}
