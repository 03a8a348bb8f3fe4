/**
 * The child side of mount-namespace.ts: run first thing by a script started through
 * runInMountNamespace. It refuses to mount anything unless this process is in a mount namespace
 * other than the test runner's, mounts a fresh tmpfs on the sandbox directory, and binds every
 * other mount read-only for this namespace (per-mount `remount,bind,ro`, never a superblock
 * remount): from then on the scenario can only write, mount and delete inside the sandbox.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseMountInfo } from '../../src/plugins/fs-common/mount-points.js';
import { HOST_MOUNT_NAMESPACE_ENV, SANDBOX_DIR_ENV } from './mount-namespace.js';

function mount(...args: string[]): void {
  execFileSync('mount', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

export function bindMount(from: string, onto: string): void {
  mount('--bind', from, onto);
}

export function mountTmpfs(onto: string, size = '16m'): void {
  mount('-t', 'tmpfs', '-o', `mode=0755,size=${size}`, 'pv-test-tmpfs', onto);
}

export function unmount(path: string): void {
  execFileSync('umount', [path], { stdio: ['ignore', 'ignore', 'pipe'] });
}

function isAtOrBelow(path: string, dir: string): boolean {
  return path === dir || path.startsWith(`${dir}/`);
}

/**
 * A mount copied into this namespace whose mount point the machine removed meanwhile (a
 * container's rootfs of a real node, tools/cluster/nodes.ts, whose directory containerd deleted
 * after unmounting it) cannot be remounted ("mount point does not exist"); no path reaches it
 * any more, so nothing can write through it and it is skipped. Any other failure still throws.
 */
function bindEverythingElseReadOnly(sandbox: string): void {
  const mounts = parseMountInfo(readFileSync('/proc/self/mountinfo', 'utf8'));
  for (const { path } of mounts) {
    if (isAtOrBelow(path, sandbox)) continue;
    try {
      mount('-o', 'remount,bind,ro', path);
    } catch (err) {
      if (existsSync(path)) throw err;
    }
  }
}

function assertReadOnlyOutside(sandbox: string): void {
  const probe = join(dirname(sandbox), `${Date.now()}-write-probe`);
  try {
    writeFileSync(probe, 'x');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EROFS') return;
    throw err;
  }
  throw new Error(`"${probe}" could be written: the system is not read-only in this namespace`);
}

/** Enters the sandbox and returns its directory (also made this process's TMPDIR). */
export function enterSandbox(): string {
  const hostNamespace = process.env[HOST_MOUNT_NAMESPACE_ENV];
  const sandbox = process.env[SANDBOX_DIR_ENV];
  if (!hostNamespace || !sandbox) throw new Error('not started through runInMountNamespace');
  if (readlinkSync('/proc/self/ns/mnt') === hostNamespace) {
    throw new Error('refusing to mount anything: this process shares the test runner\'s mount namespace');
  }
  mountTmpfs(sandbox, '256m');
  bindEverythingElseReadOnly(sandbox);
  assertReadOnlyOutside(sandbox);
  process.env.TMPDIR = sandbox;
  return sandbox;
}
