/**
 * `npm run cluster:build`: builds etcd, kube-apiserver, kube-controller-manager, kube-scheduler
 * and kubectl from the Go wrapper modules into the version-keyed cache (binaries.ts), skipping
 * those already there. Progress goes to stderr; the last line of stdout is the bin directory.
 */
import { spawn } from 'node:child_process';
import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import {
  binDir,
  binaryPath,
  ETCD_MODULE_DIR,
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

function packageOf(name: BinaryName): { dir: string; pkg: string } {
  if (name === 'etcd') return { dir: ETCD_MODULE_DIR, pkg: 'go.etcd.io/etcd/server/v3' };
  return { dir: K8S_MODULE_DIR, pkg: `k8s.io/kubernetes/cmd/${name}` };
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

async function buildOne(name: BinaryName, v: Versions): Promise<void> {
  const { dir, pkg } = packageOf(name);
  const ldflags = name === 'etcd' ? '-s -w' : `-s -w ${versionLdflags(v.kubernetes)}`;
  const out = binaryPath(name, v);
  const partial = `${out}.partial`;
  // -mod=mod: the go.sum in the repo pins every module; the go command fetches what the module
  // cache lacks from the module proxy.
  const env = { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=mod' };
  await run('go', ['build', '-trimpath', '-ldflags', ldflags, '-o', partial, pkg], dir, env);
  await rename(partial, out);
}

export async function buildControlPlane(log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<string> {
  const v = versions();
  const missing = missingBinaries(v);
  if (missing.length === 0) {
    log(`control plane ${v.kubernetes} / etcd ${v.etcd}: every binary is already built`);
    return binDir(v);
  }
  if (!onPath('go')) throw new Error('go is not on PATH: the real control plane cannot be built on this machine');
  await mkdir(binDir(v), { recursive: true });
  const started = Date.now();
  for (const [i, name] of missing.entries()) {
    const t0 = Date.now();
    log(`[${i + 1}/${missing.length}] building ${name} (${name === 'etcd' ? `etcd ${v.etcd}` : `Kubernetes ${v.kubernetes}`}); a cold build takes minutes`);
    const tick = setInterval(() => log(`  … ${name}: ${Math.round((Date.now() - t0) / 1000)} s`), 30_000);
    try {
      await buildOne(name, v);
    } finally {
      clearInterval(tick);
    }
    log(`  ${name} built in ${Math.round((Date.now() - t0) / 1000)} s -> ${join(binDir(v), name)}`);
  }
  log(`control plane built in ${Math.round((Date.now() - started) / 1000)} s`);
  return binDir(v);
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
