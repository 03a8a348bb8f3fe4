/**
 * A test node's footprint on the machine and its removal (nodes.ts): the node's cgroup root under
 * every cgroup v1 hierarchy (each kubelet gets its own, so two kubelets never manage each other's
 * pods), the processes in it, its containerd's shims, and the mounts under its directory.
 * Processes are signalled by pid, SIGTERM first; nothing is found by a broad name.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseMountInfo } from '../../src/plugins/fs-common/mount-points.js';
import { CGROUP_CONTROLLERS } from './node-binaries.js';

const CGROUP_FS = '/sys/fs/cgroup';

/**
 * The hierarchies a node's cgroups end up in: the v1 controllers nodes.ts creates the root under,
 * and, on a hybrid layout such as this machine's, the cgroup2 tree at /sys/fs/cgroup/unified,
 * where runc and the kubelet create the same paths themselves.
 */
function hierarchies(): string[] {
  return existsSync(join(CGROUP_FS, 'unified', 'cgroup.procs')) ? [...CGROUP_CONTROLLERS, 'unified'] : [...CGROUP_CONTROLLERS];
}

function readTrim(path: string): string {
  return readFileSync(path, 'utf8').trim();
}

/**
 * Creates `root` (e.g. /pv-nodes-1a2b/node-1) under each v1 hierarchy. A new cpuset cgroup has
 * no CPUs or memory nodes until given its parent's, and the kubelet refuses a root it cannot use.
 */
export function makeCgroupRoot(root: string): void {
  for (const controller of CGROUP_CONTROLLERS) {
    const base = join(CGROUP_FS, controller);
    let path = base;
    for (const part of root.split('/').filter(Boolean)) {
      const parent = path;
      path = join(path, part);
      if (!existsSync(path)) mkdirSync(path);
      if (controller === 'cpuset') {
        for (const f of ['cpuset.cpus', 'cpuset.mems']) {
          if (readTrim(join(path, f)) === '') writeFileSync(join(path, f), readTrim(join(parent, f)));
        }
      }
    }
  }
}

/** The cgroup directories at and below `root` in one hierarchy, deepest first. */
function cgroupDirs(controller: string, root: string): string[] {
  const top = join(CGROUP_FS, controller, root);
  if (!existsSync(top)) return [];
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) walk(join(dir, e.name));
    out.push(dir);
  };
  walk(top);
  return out;
}

/** Every pid in the node's cgroups (its pods' containers and their sandboxes). */
export function pidsUnder(root: string): number[] {
  const pids = new Set<number>();
  for (const controller of hierarchies()) {
    for (const dir of cgroupDirs(controller, root)) {
      for (const line of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n')) if (line.trim()) pids.add(Number(line));
    }
  }
  return [...pids];
}

function signal(pids: number[], sig: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch {
      // Gone already.
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM, up to `graceMs` for them to go, then SIGKILL. */
async function terminate(pids: number[], graceMs: number): Promise<void> {
  signal(pids, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && pids.some(alive)) await new Promise((r) => setTimeout(r, 100));
  signal(pids.filter(alive), 'SIGKILL');
}

/** Stops every process of the node's cgroups. */
export async function killCgroupTree(root: string): Promise<void> {
  await terminate(pidsUnder(root), 5_000);
}

/** The pids of containerd-shim-runc-v2 processes started by the containerd at `socket`. */
export function shimsOf(socket: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    const i = argv.indexOf('-address');
    if (argv[0]?.endsWith('containerd-shim-runc-v2') && i >= 0 && argv[i + 1] === socket) out.push(Number(entry));
  }
  return out;
}

export async function signalShims(socket: string): Promise<void> {
  await terminate(shimsOf(socket), 3_000);
}

/** Mount points at or below `dir` in this mount namespace, deepest first. */
export function mountsUnder(dir: string): string[] {
  return parseMountInfo(readFileSync('/proc/self/mountinfo', 'utf8'))
    .map((m) => m.path)
    .filter((p) => p === dir || p.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
}

/** Unmounts everything at or below `dir` (lazily where a plain unmount is refused). */
export function unmountUnder(dir: string): void {
  for (const path of mountsUnder(dir)) {
    try {
      execFileSync('umount', [path], { stdio: 'ignore' });
    } catch {
      try {
        execFileSync('umount', ['-l', path], { stdio: 'ignore' });
      } catch {
        // Gone with its parent.
      }
    }
  }
}

/** Removes the node's cgroups (empty by now), and their parent when it is empty too. */
export function removeCgroupRoot(root: string): void {
  for (const controller of hierarchies()) {
    for (const dir of [...cgroupDirs(controller, root), join(CGROUP_FS, controller, dirname(root))]) {
      try {
        rmdirSync(dir);
      } catch {
        // Still in use (reported by the caller's checks) or shared with another node.
      }
    }
  }
}
