/**
 * Where the real control plane's binaries live: one cache directory outside the repository per
 * pair of versions, read from the Go wrapper modules in tools/k8s and tools/etcd (their go.mod
 * files are the one place a version is chosen). helm, from tools/helm, sits beside them in a
 * directory of its own version.
 */
import { accessSync, constants, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

export const REPO_ROOT = new URL('../../..', import.meta.url).pathname.replace(/\/$/, '');
export const K8S_MODULE_DIR = join(REPO_ROOT, 'tools', 'k8s');
export const ETCD_MODULE_DIR = join(REPO_ROOT, 'tools', 'etcd');
export const HELM_MODULE_DIR = join(REPO_ROOT, 'tools', 'helm');
export const HELM_MODULE = 'helm.sh/helm/v4';

export const K8S_BINARIES = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler', 'kubectl'] as const;
export type BinaryName = (typeof K8S_BINARIES)[number] | 'etcd';

export interface Versions {
  kubernetes: string;
  etcd: string;
}

export function requiredVersion(goMod: string, module: string): string {
  const escaped = module.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const m = new RegExp(`^\\s*(?:require\\s+)?${escaped}\\s+(v\\S+)`, 'm').exec(goMod);
  if (!m) throw new Error(`no requirement on ${module} in its go.mod`);
  return m[1];
}

export function versions(): Versions {
  return {
    kubernetes: requiredVersion(readFileSync(join(K8S_MODULE_DIR, 'go.mod'), 'utf8'), 'k8s.io/kubernetes'),
    etcd: requiredVersion(readFileSync(join(ETCD_MODULE_DIR, 'go.mod'), 'utf8'), 'go.etcd.io/etcd/server/v3'),
  };
}

/** The helm release tools/helm/go.mod requires. */
export function helmVersion(): string {
  return requiredVersion(readFileSync(join(HELM_MODULE_DIR, 'go.mod'), 'utf8'), HELM_MODULE);
}

/** `$PV_CLUSTER_CACHE`, else `$XDG_CACHE_HOME/pv-controller/k8s`, else `~/.cache/pv-controller/k8s`. */
export function cacheRoot(): string {
  if (process.env.PV_CLUSTER_CACHE) return process.env.PV_CLUSTER_CACHE;
  const base = process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache');
  return join(base, 'pv-controller', 'k8s');
}

export function binDir(v: Versions = versions()): string {
  return join(cacheRoot(), `${v.kubernetes}-etcd${v.etcd.replace(/^v/, '')}`, 'bin');
}

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function binaryPath(name: BinaryName, v: Versions = versions()): string {
  return join(binDir(v), name);
}

/** The names of the binaries the cache still lacks. */
export function missingBinaries(v: Versions = versions()): BinaryName[] {
  return (['etcd', ...K8S_BINARIES] as BinaryName[]).filter((n) => !isExecutable(binaryPath(n, v)));
}

/** Why the real control plane cannot run here, or undefined when every binary is built. */
export function controlPlaneUnavailable(): string | undefined {
  const missing = missingBinaries();
  if (missing.length === 0) return undefined;
  const hint = onPath('go') ? 'run `npm run cluster:build`' : 'Go is not installed, so they cannot be built here';
  return `the real control plane is not built (missing ${missing.join(', ')} in ${binDir()}): ${hint}`;
}

export function onPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir !== '' && isExecutable(join(dir, command))) return join(dir, command);
  }
  return undefined;
}

export function builtHelmPath(version: string = helmVersion()): string {
  return join(cacheRoot(), `helm-${version}`, 'helm');
}

/** helm on PATH, else the one built from tools/helm, else undefined. */
export function findHelm(): string | undefined {
  const path = onPath('helm');
  if (path) return path;
  const built = builtHelmPath();
  return isExecutable(built) ? built : undefined;
}

/** Where a kubectl came from: built with the control plane (the version the project tests), or PATH. */
export interface KubectlChoice {
  path: string;
  source: 'control plane' | 'PATH';
}

/**
 * The kubectl built beside the control plane (`npm run cluster:build`, the Kubernetes version of
 * tools/k8s/go.mod) where there is one, else the one on PATH (whatever version that is), else
 * undefined. The built one first: PATH's may be years older than the API the tests check.
 */
export function chooseKubectl(): KubectlChoice | undefined {
  const built = binaryPath('kubectl');
  if (isExecutable(built)) return { path: built, source: 'control plane' };
  const path = onPath('kubectl');
  return path ? { path, source: 'PATH' } : undefined;
}

/** chooseKubectl()'s path. */
export function findKubectl(): string | undefined {
  return chooseKubectl()?.path;
}

/** One line saying which kubectl the tests run, for CI's log. */
export function describeKubectl(choice: KubectlChoice | undefined = chooseKubectl()): string {
  if (!choice) return 'not found (kubectl tests will skip)';
  return choice.source === 'control plane' ? `${choice.path} (built with the control plane, Kubernetes ${versions().kubernetes})` : `${choice.path} (from PATH: no control plane built)`;
}

/**
 * The CSI peers: Kubernetes' e2e CSI mock driver served by tools/k8s/cmd/csi-mock, its kubelet
 * plugin registration (tools/k8s/cmd/csi-registrar, node-driver-registrar's part), the
 * external-provisioner and external-resizer sidecars from the tools/csi-sidecars wrapper module,
 * and external-snapshotter's snapshot-controller and csi-snapshotter sidecar from the
 * tools/csi-snapshotter wrapper module (a sibling: it pins the Kubernetes modules at another
 * release than the provisioner, see gomod.ts). They sit beside the control plane;
 * `<name>.version` next to each says what was built, so a new sidecar release (or a changed
 * csi-mock or csi-registrar main.go) is rebuilt (csi-build.ts).
 */
export const CSI_BINARIES = ['csi-mock', 'csi-registrar', 'csi-provisioner', 'csi-resizer', 'snapshot-controller', 'csi-snapshotter'] as const;
export type CsiBinaryName = (typeof CSI_BINARIES)[number];
export const CSI_SIDECARS_MODULE_DIR = join(REPO_ROOT, 'tools', 'csi-sidecars');
export const CSI_SNAPSHOTTER_MODULE_DIR = join(REPO_ROOT, 'tools', 'csi-snapshotter');
export const CSI_MOCK_MAIN = join(K8S_MODULE_DIR, 'cmd', 'csi-mock', 'main.go');
export const CSI_REGISTRAR_MAIN = join(K8S_MODULE_DIR, 'cmd', 'csi-registrar', 'main.go');
export const CSI_SIDECAR_MODULES = {
  'csi-provisioner': 'github.com/kubernetes-csi/external-provisioner/v6',
  'csi-resizer': 'github.com/kubernetes-csi/external-resizer/v2',
  'snapshot-controller': 'github.com/kubernetes-csi/external-snapshotter/v8',
  'csi-snapshotter': 'github.com/kubernetes-csi/external-snapshotter/v8',
} as const;
export type CsiSidecarName = keyof typeof CSI_SIDECAR_MODULES;
/** The wrapper module each sidecar is built in. */
export const CSI_SIDECAR_MODULE_DIRS: Record<CsiSidecarName, string> = {
  'csi-provisioner': CSI_SIDECARS_MODULE_DIR,
  'csi-resizer': CSI_SIDECARS_MODULE_DIR,
  'snapshot-controller': CSI_SNAPSHOTTER_MODULE_DIR,
  'csi-snapshotter': CSI_SNAPSHOTTER_MODULE_DIR,
};
/** external-snapshotter's module, whose client module is required at the same release. */
export const SNAPSHOTTER_MODULE = CSI_SIDECAR_MODULES['snapshot-controller'];
export const SNAPSHOTTER_CLIENT_MODULE = 'github.com/kubernetes-csi/external-snapshotter/client/v8';

export function csiBinaryPath(name: CsiBinaryName, v: Versions = versions()): string {
  return join(binDir(v), name);
}

/** The release its wrapper module's go.mod requires of a sidecar, e.g. v6.4.0. */
export function csiSidecarVersion(name: CsiSidecarName): string {
  return requiredVersion(readFileSync(join(CSI_SIDECAR_MODULE_DIRS[name], 'go.mod'), 'utf8'), CSI_SIDECAR_MODULES[name]);
}
