/**
 * What a test node (nodes.ts) runs and where it lives: the kubelet beside the control plane
 * (built from tools/k8s, the same Kubernetes release), containerd 2, its runc shim, ctr and our
 * pause program from tools/containerd in a directory of containerd's version, runc from the
 * machine (Debian's package), and the OCI archives of the images every node loads.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { binDir, cacheRoot, isExecutable, onPath, REPO_ROOT, versions, type Versions } from './binaries.js';

export const CONTAINERD_MODULE_DIR = join(REPO_ROOT, 'tools', 'containerd');
export const CONTAINERD_MODULE = 'github.com/containerd/containerd/v2';
export const CONTAINERD_COMMANDS = ['containerd', 'containerd-shim-runc-v2', 'ctr'] as const;
export type ContainerdCommand = (typeof CONTAINERD_COMMANDS)[number];

/** The containerd release tools/containerd/go.mod requires, e.g. v2.4.2. */
export function containerdVersion(): string {
  const goMod = readFileSync(join(CONTAINERD_MODULE_DIR, 'go.mod'), 'utf8');
  const m = /^\s*(?:require\s+)?github\.com\/containerd\/containerd\/v2\s+(v\S+)/m.exec(goMod);
  if (!m) throw new Error(`no requirement on ${CONTAINERD_MODULE} in tools/containerd/go.mod`);
  return m[1];
}

export function kubeletPath(v: Versions = versions()): string {
  return join(binDir(v), 'kubelet');
}

/** containerd's binaries and our pause program, e.g. ~/.cache/pv-controller/k8s/containerd-v2.4.2/. */
export function runtimeDir(version: string = containerdVersion()): string {
  return join(cacheRoot(), `containerd-${version}`);
}

export function runtimePath(name: ContainerdCommand | 'pause'): string {
  return join(runtimeDir(), name);
}

/** The image archives (pause, busybox) every node imports, beside the runtime. */
export function imagesDir(): string {
  return join(runtimeDir(), 'images');
}

/** The binaries a node needs that are not built yet. */
export function missingNodeBinaries(): string[] {
  const wanted = [kubeletPath(), ...CONTAINERD_COMMANDS.map(runtimePath), runtimePath('pause')];
  return wanted.filter((p) => !isExecutable(p));
}

/** runc on PATH (Debian's package), which containerd's runc shim runs. */
export function findRunc(): string | undefined {
  return onPath('runc');
}

/** The cgroup v1 controllers a kubelet on this machine needs mounted under /sys/fs/cgroup. */
export const CGROUP_CONTROLLERS = ['cpu', 'cpuacct', 'cpuset', 'memory', 'pids', 'devices', 'freezer', 'blkio', 'systemd'] as const;

/**
 * Why a real node (kubelet + containerd) cannot run here, or undefined. Precise: which piece is
 * missing and how to get it.
 */
export function nodesUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'a kubelet and containerd need root (mounts, cgroups, namespaces); this run is not root';
  const missing = missingNodeBinaries();
  if (missing.length > 0) {
    const hint = onPath('go') ? 'run `npm run nodes:build`' : 'Go is not installed, so they cannot be built here';
    return `the node binaries are not built (missing ${missing.join(', ')}): ${hint}`;
  }
  if (!findRunc()) return 'runc is not on PATH (Debian: apt-get install runc)';
  const absent = CGROUP_CONTROLLERS.filter((c) => !existsSync(join('/sys/fs/cgroup', c, 'cgroup.procs')));
  if (absent.length > 0) return `cgroup v1 controllers not mounted under /sys/fs/cgroup: ${absent.join(', ')} (the nodes are set up for this machine's cgroup v1 layout)`;
  for (const image of NODE_IMAGE_ARCHIVES) {
    if (!existsSync(join(imagesDir(), image))) return `the node image ${join(imagesDir(), image)} is not built: run \`npm run nodes:build\``;
  }
  return undefined;
}

/** The pause image the CRI plugin starts each pod sandbox from, and the small test image. */
export const PAUSE_IMAGE = 'localhost/pv-controller/pause:3.10';
export const TEST_IMAGE = 'localhost/pv-controller/busybox:1.35';
export const NODE_IMAGE_ARCHIVES = ['pause.tar', 'busybox.tar'] as const;
