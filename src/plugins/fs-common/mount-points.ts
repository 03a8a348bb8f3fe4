/**
 * Mounts as this process sees them, for safe-path's "never across a mount": the mount table of
 * this process's mount namespace (/proc/self/mountinfo, proc(5)) and the mount an open file
 * descriptor lies on (`mnt_id:` in /proc/self/fdinfo/<fd>, Linux 3.15+). Both answer undefined
 * where /proc does not have them; safe-path then falls back to comparing st_dev.
 */
import { promises as fs, readFileSync } from 'node:fs';

const MOUNT_INFO = '/proc/self/mountinfo';

export interface MountPoint {
  /** The mount id (what fdinfo's `mnt_id:` names). */
  id: number;
  /** Where it is mounted, as seen from this process's root. */
  path: string;
  /** The directory of its filesystem it shows (not `/` for a bind mount of a sub-directory). */
  fsRoot: string;
  fsType: string;
  source: string;
}

/** mountinfo writes space, tab, newline and backslash in paths as octal escapes (`\040`). */
export function decodeMountInfoField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/**
 * One entry per line: `id parent major:minor root mount-point options [optional...] - type source
 * super-options`. Lines that do not have that shape are skipped.
 */
export function parseMountInfo(text: string): MountPoint[] {
  const mounts: MountPoint[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    const separator = fields.indexOf('-', 6);
    if (fields.length < 5 || separator < 0 || !/^\d+$/.test(fields[0])) continue;
    mounts.push({
      id: Number(fields[0]),
      path: decodeMountInfoField(fields[4]),
      fsRoot: decodeMountInfoField(fields[3]),
      fsType: decodeMountInfoField(fields[separator + 1] ?? ''),
      source: decodeMountInfoField(fields[separator + 2] ?? ''),
    });
  }
  return mounts;
}

/** What every refusal says: the rule, whatever the operation was. */
export const NEVER_ACROSS_A_MOUNT = 'nothing is ever done across a mount';

/**
 * A /proc file, or undefined where this system has none. Any other failure (EMFILE, EIO) is
 * thrown: it must fail the operation retryably, never pass as "no mounts" nor as a mismatch.
 */
async function readProcFile(path: string): Promise<string | undefined> {
  try {
    return await fs.readFile(path, 'utf8');
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw err;
  }
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** This process's mount table, or undefined without /proc/self/mountinfo. */
export async function readMountPoints(): Promise<MountPoint[] | undefined> {
  const text = await readProcFile(MOUNT_INFO);
  return text === undefined ? undefined : parseMountInfo(text);
}

/**
 * The id of the mount the open descriptor `fd` lies on, or undefined where fdinfo lacks it. Read
 * synchronously: a few bytes the kernel writes from memory, never storage, and a walk asks once
 * per directory (a trip through the thread pool cost more than the read).
 */
export function mountIdOf(fd: number): number | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8');
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw err;
  }
  const match = /^mnt_id:\s*(\d+)$/m.exec(text);
  return match ? Number(match[1]) : undefined;
}

function isAtOrBelow(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir === '/' ? '/' : `${dir}/`);
}

/**
 * Mount points strictly below `root` that acting on `path` would cross: `path` itself, one of
 * its parents below the root, or anything inside `path`. `root` being a mount point is fine.
 */
export function mountsCrossed(mounts: readonly MountPoint[], root: string, path: string): MountPoint[] {
  return mounts.filter((m) => m.path !== root && isAtOrBelow(m.path, root) && (isAtOrBelow(path, m.path) || isAtOrBelow(m.path, path)));
}

/** The mount at exactly `path`, if `path` is a mount point. */
export async function mountPointAt(path: string): Promise<MountPoint | undefined> {
  return (await readMountPoints())?.find((m) => m.path === path);
}

/** The mount with id `id`, when the mount table still has it. */
export async function mountWithId(id: number): Promise<MountPoint | undefined> {
  return (await readMountPoints())?.find((m) => m.id === id);
}

export function describeMount(m: MountPoint): string {
  const shown = m.fsRoot === '/' ? '' : ` showing its "${m.fsRoot}"`;
  return `"${m.path}" is a mount point (mount ${m.id}: ${m.fsType} "${m.source}"${shown})`;
}
