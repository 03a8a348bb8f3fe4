/**
 * `npm run csi:build`: builds the CSI peers into the control plane's bin directory (binaries.ts):
 * csi-mock from tools/k8s (Kubernetes' e2e CSI mock, so it shares the control plane's module
 * graph and build cache) and csi-registrar beside it (the kubelet plugin registration), then csi-provisioner and csi-resizer from tools/csi-sidecars, and
 * snapshot-controller and csi-snapshotter from tools/csi-snapshotter. Each is
 * built when missing or when its `<name>.version` stamp no longer matches what the repository
 * asks for (a new sidecar release in its wrapper's go.mod, a changed csi-mock main.go).
 * Progress goes to stderr; the last line of stdout is the bin directory.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  binDir,
  CSI_BINARIES,
  CSI_MOCK_MAIN,
  CSI_REGISTRAR_MAIN,
  CSI_SIDECAR_MODULE_DIRS,
  CSI_SIDECAR_MODULES,
  csiBinaryPath,
  csiSidecarVersion,
  isExecutable,
  K8S_MODULE_DIR,
  onPath,
  versions,
  type CsiBinaryName,
  type CsiSidecarName,
} from './binaries.js';
import { buildTargets, type BuildTarget } from './build.js';

const SIDECAR_COMMANDS: Record<CsiSidecarName, string> = {
  'csi-provisioner': 'cmd/csi-provisioner',
  'csi-resizer': 'cmd/csi-resizer',
  'snapshot-controller': 'cmd/snapshot-controller',
  'csi-snapshotter': 'cmd/csi-snapshotter',
};

/** What a build of one of our mains in tools/k8s is made of: the Kubernetes release and the main.go. */
function k8sMainStamp(name: string, main: string, kubernetes: string): string {
  const digest = createHash('sha256').update(readFileSync(main)).digest('hex').slice(0, 12);
  return `${name} of Kubernetes ${kubernetes}, main.go sha256:${digest}`;
}

export function csiTarget(name: CsiBinaryName): BuildTarget {
  const v = versions();
  const out = csiBinaryPath(name, v);
  if (name === 'csi-mock' || name === 'csi-registrar') {
    const stamp = k8sMainStamp(name, name === 'csi-mock' ? CSI_MOCK_MAIN : CSI_REGISTRAR_MAIN, v.kubernetes);
    return { name, release: stamp, dir: K8S_MODULE_DIR, pkg: `./cmd/${name}`, ldflags: '-s -w', out, stamp };
  }
  const module = CSI_SIDECAR_MODULES[name];
  const version = csiSidecarVersion(name);
  // The sidecars' release Makefile (release-tools/build.make) stamps main.version the same way;
  // `--version` prints it.
  const ldflags = `-s -w -X main.version=${version}`;
  const stamp = `${module} ${version}`;
  return { name, release: stamp, dir: CSI_SIDECAR_MODULE_DIRS[name], pkg: `${module}/${SIDECAR_COMMANDS[name]}`, ldflags, out, stamp };
}

function stampOf(out: string): string | undefined {
  try {
    return readFileSync(`${out}.version`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** The CSI binaries (of those asked for) that are missing or were built from something else. */
export function staleCsiBinaries(names: readonly CsiBinaryName[] = CSI_BINARIES): CsiBinaryName[] {
  return names.filter((n) => {
    const t = csiTarget(n);
    return !isExecutable(t.out) || stampOf(t.out) !== t.stamp;
  });
}

/** Why a CSI binary cannot be used here (for a test's skip), or undefined when it is built. */
export function csiBinaryUnavailable(name: CsiBinaryName): string | undefined {
  if (isExecutable(csiBinaryPath(name))) return undefined;
  const hint = onPath('go') ? 'run `npm run csi:build`' : 'Go is not installed, so it cannot be built here';
  return `${name} is not built (${csiBinaryPath(name)}): ${hint}`;
}

export async function buildCsi(
  names: readonly CsiBinaryName[] = CSI_BINARIES,
  log: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
): Promise<string> {
  const stale = staleCsiBinaries(names);
  if (stale.length === 0) {
    log(`${names.join(', ')}: already built`);
    return binDir();
  }
  if (!onPath('go')) throw new Error('go is not on PATH: the CSI binaries cannot be built on this machine');
  await buildTargets(stale.map(csiTarget), log);
  return binDir();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  buildCsi().then(
    (dir) => process.stdout.write(`${dir}\n`),
    (err: unknown) => {
      process.stderr.write(`csi:build: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
