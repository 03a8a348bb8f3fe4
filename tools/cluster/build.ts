/**
 * `npm run cluster:build`: builds etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
 * kubectl and helm from the Go wrapper modules into the version-keyed cache (binaries.ts),
 * skipping those already there. Progress goes to stderr; the last line of stdout is the bin
 * directory.
 */
import { spawn } from 'node:child_process';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  binDir,
  binaryPath,
  builtHelmPath,
  ETCD_MODULE_DIR,
  HELM_MODULE,
  HELM_MODULE_DIR,
  helmVersion,
  isExecutable,
  K8S_MODULE_DIR,
  missingBinaries,
  onPath,
  versions,
  type BinaryName,
  type Versions,
} from './binaries.js';

/** The -X flags that make `/version` and `kubectl version` say the release that was built. */
export function versionLdflags(kubernetes: string): string {
  const m = /^v(\d+)\.(\d+)\./.exec(kubernetes);
  if (!m) throw new Error(`not a release version: ${kubernetes}`);
  const values: Record<string, string> = {
    gitVersion: kubernetes,
    gitMajor: m[1],
    gitMinor: m[2],
    gitTreeState: 'clean',
    gitCommit: `module-${kubernetes}`,
  };
  const pkgs = ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version'];
  return pkgs.flatMap((p) => Object.entries(values).map(([k, v]) => `-X ${p}.${k}=${v}`)).join(' ');
}

/** One `go build` of a wrapper module's tool into the cache. */
export interface BuildTarget {
  name: string;
  release: string;
  dir: string;
  pkg: string;
  ldflags: string;
  out: string;
  /** Written to `<out>.version` once the binary is in place (what was built, to spot a stale one). */
  stamp?: string;
  /** Go build tags (comma-separated). */
  tags?: string;
}

function controlPlaneTarget(name: BinaryName, v: Versions): BuildTarget {
  const out = binaryPath(name, v);
  if (name === 'etcd') return { name, release: `etcd ${v.etcd}`, dir: ETCD_MODULE_DIR, pkg: 'go.etcd.io/etcd/server/v3', ldflags: '-s -w', out };
  const ldflags = `-s -w ${versionLdflags(v.kubernetes)}`;
  return { name, release: `Kubernetes ${v.kubernetes}`, dir: K8S_MODULE_DIR, pkg: `k8s.io/kubernetes/cmd/${name}`, ldflags, out };
}

/** helm, with the -X flags of Helm's own Makefile so `helm version` names the release. */
export function helmTarget(version: string = helmVersion()): BuildTarget {
  const values = { version, metadata: '', gitCommit: `module-${version}`, gitTreeState: 'clean' };
  const flags = Object.entries(values).map(([k, value]) => `-X ${HELM_MODULE}/internal/version.${k}=${value}`);
  return { name: 'helm', release: `Helm ${version}`, dir: HELM_MODULE_DIR, pkg: `${HELM_MODULE}/cmd/helm`, ldflags: `-s -w ${flags.join(' ')}`, out: builtHelmPath(version) };
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'inherit', 'inherit'] });
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} failed (${signal ?? `exit ${code}`})`)),
    );
  });
}

/**
 * The environment and flags every Go build of ours compiles with. -mod=mod: the go.sum in the
 * repo pins every module; the go command fetches what the module cache lacks from the module
 * proxy. A test that builds or runs another command of one of these modules (the protobuf
 * client) uses the same, so it reuses the packages cluster:build compiled from the Go build cache:
 * another -trimpath or cgo setting is another cache key, and recompiling client-go took 5 min of
 * a cold CI run's npm test.
 */
export const GO_BUILD_ENV = { CGO_ENABLED: '0', GOFLAGS: '-mod=mod' } as const;
export const GO_BUILD_FLAGS = ['-trimpath'] as const;

/** `go build` of `pkg` into `out` as cluster:build builds (see GO_BUILD_ENV). */
export function goBuildArgs(pkg: string, out: string, o: { tags?: string; ldflags?: string } = {}): string[] {
  return ['build', ...GO_BUILD_FLAGS, ...(o.tags ? ['-tags', o.tags] : []), '-ldflags', o.ldflags ?? '-s -w', '-o', out, pkg];
}

export async function buildOne(t: BuildTarget): Promise<void> {
  const partial = `${t.out}.partial`;
  await mkdir(dirname(t.out), { recursive: true });
  const env = { ...process.env, ...GO_BUILD_ENV };
  await run('go', goBuildArgs(t.pkg, partial, { ...(t.tags ? { tags: t.tags } : {}), ldflags: t.ldflags }), t.dir, env);
  await rename(partial, t.out);
  if (t.stamp !== undefined) await writeFile(`${t.out}.version`, `${t.stamp}\n`);
}

export async function buildControlPlane(log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<string> {
  const v = versions();
  const missing = missingBinaries(v).map((name) => controlPlaneTarget(name, v));
  const helm = helmTarget();
  if (!isExecutable(helm.out)) missing.push(helm);
  if (missing.length === 0) {
    log(`control plane ${v.kubernetes} / etcd ${v.etcd} and ${helm.release}: every binary is already built`);
    return binDir(v);
  }
  if (!onPath('go')) throw new Error('go is not on PATH: the real control plane cannot be built on this machine');
  await buildTargets(missing, log);
  return binDir(v);
}

/** Builds each target in turn, with progress lines every 30 s. */
export async function buildTargets(targets: BuildTarget[], log: (line: string) => void): Promise<void> {
  const started = Date.now();
  for (const [i, t] of targets.entries()) {
    const t0 = Date.now();
    log(`[${i + 1}/${targets.length}] building ${t.name} (${t.release}); a cold build takes minutes`);
    const tick = setInterval(() => log(`  … ${t.name}: ${Math.round((Date.now() - t0) / 1000)} s`), 30_000);
    try {
      await buildOne(t);
    } finally {
      clearInterval(tick);
    }
    log(`  ${t.name} built in ${Math.round((Date.now() - t0) / 1000)} s -> ${t.out}`);
  }
  log(`built in ${Math.round((Date.now() - started) / 1000)} s`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  buildControlPlane().then(
    (dir) => process.stdout.write(`${dir}\n`),
    (err: unknown) => {
      process.stderr.write(`cluster:build: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
