/**
 * CPU of pods, from the kubelet's cgroups. local-path-provisioner does its work in helper pods
 * that are deleted as soon as they succeed, so their CPU cannot be read from a process that is
 * still there at the end. A parent cgroup keeps the CPU of children that were removed (cgroup v1
 * `cpuacct.usage` is charged to every ancestor as it is spent; v2 `cpu.stat` usage_usec keeps a
 * dead child's time), so the pods' CPU over a run is the growth of the kubelet's `kubepods`
 * cgroup. The workload pods are alive until the harness deletes them: each one's own cgroup is
 * read just before, and what the pods spent beyond the workload is the helper pods' CPU:
 *
 *   helper CPU = Δ kubepods − Σ workload pods
 *
 * For our node agent (no helper pods) the same difference is the check that this accounting
 * finds about nothing where nothing runs. Not counted: containerd, its shims and runc outside
 * the pods' cgroups (reported apart, as the runtime's CPU, for both sides).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CgroupLayout {
  version: 1 | 2;
  /** The kubelet's pods cgroup (`kubepods` with cgroupfs, `kubepods.slice` with systemd). */
  kubepods: string;
}

const V1_CPU_MOUNTS = ['cpu,cpuacct', 'cpuacct,cpu', 'cpuacct'];
const KUBEPODS = ['kubepods', 'kubepods.slice'];

/**
 * Finds the kubelet's pods cgroup under `root` (default /sys/fs/cgroup), below the kubelet's
 * `cgroupRoot` (default: the top), v1 cpuacct first.
 */
export function findKubepods(root = '/sys/fs/cgroup', cgroupRoot = '/'): CgroupLayout | undefined {
  for (const mount of V1_CPU_MOUNTS) {
    const dir = join(root, mount, cgroupRoot);
    const found = searchDir(dir, 3);
    if (found && existsSync(join(found, 'cpuacct.usage'))) return { version: 1, kubepods: found };
  }
  const found = searchDir(join(root, cgroupRoot), 3);
  if (found && existsSync(join(found, 'cpu.stat'))) return { version: 2, kubepods: found };
  return undefined;
}

/** The shallowest directory named kubepods(.slice) under `dir`, at most `depth` levels down. */
function searchDir(dir: string, depth: number): string | undefined {
  let level = [dir];
  for (let d = 0; d <= depth && level.length > 0; d++) {
    const next: string[] = [];
    for (const parent of level) {
      let entries;
      try {
        entries = readdirSync(parent, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const e of entries) {
        if (!e.isDirectory()) continue;
        if (KUBEPODS.includes(e.name)) return join(parent, e.name);
        next.push(join(parent, e.name));
      }
    }
    level = next;
  }
  return undefined;
}

/** CPU ms a cgroup (and all it ever held) has used; null where unreadable. */
export function cgroupCpuMs(version: 1 | 2, dir: string): number | null {
  try {
    if (version === 1) return Number(readFileSync(join(dir, 'cpuacct.usage'), 'utf8').trim()) / 1e6;
    const usec = /^usage_usec (\d+)$/m.exec(readFileSync(join(dir, 'cpu.stat'), 'utf8'))?.[1];
    return usec === undefined ? null : Number(usec) / 1000;
  } catch {
    return null;
  }
}

/** The names a pod's cgroup can have: `pod<uid>` (cgroupfs) or `kubepods-<qos>-pod<uid_>.slice` (systemd). */
export function podCgroupMatches(name: string, uid: string): boolean {
  if (name === `pod${uid}`) return true;
  return name.endsWith(`pod${uid.replaceAll('-', '_')}.slice`);
}

/** A pod's cgroup directory under kubepods (directly, or under its QoS class), or undefined. */
export function findPodCgroup(layout: CgroupLayout, uid: string): string | undefined {
  const candidates = [layout.kubepods];
  for (const e of safeReaddir(layout.kubepods)) {
    if (podCgroupMatches(e, uid)) return join(layout.kubepods, e);
    if (/besteffort|burstable/.test(e)) candidates.push(join(layout.kubepods, e));
  }
  for (const dir of candidates.slice(1)) {
    for (const e of safeReaddir(dir)) if (podCgroupMatches(e, uid)) return join(dir, e);
  }
  return undefined;
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  } catch {
    return [];
  }
}

/** The helper pods' CPU: the pods cgroup's growth less the workload pods' own CPU (never below 0). */
export function helperCpuMs(kubepodsBefore: number, kubepodsAfter: number, workloadPodsMs: readonly number[]): number {
  const workload = workloadPodsMs.reduce((a, b) => a + b, 0);
  return Math.max(0, kubepodsAfter - kubepodsBefore - workload);
}

let ticks: number | undefined;

/**
 * CPU ms of a live process and of its children it has waited for (utime + stime + cutime +
 * cstime of /proc/<pid>/stat): our sized volumes run mkfs.ext4, losetup and mount as children,
 * and their CPU is the volume's as much as a helper pod's is; null where unreadable.
 */
export function cpuWithChildrenMs(pid: number, stat?: string): number | null {
  try {
    const text = stat ?? readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // After "pid (comm) ": state is field 3; utime, stime, cutime, cstime are fields 14-17 (proc(5)).
    const sum = [14, 15, 16, 17].reduce((a, f) => a + Number(fields[f - 3]), 0);
    ticks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    return Number.isFinite(sum) ? (sum * 1000) / ticks : null;
  } catch {
    return null;
  }
}
