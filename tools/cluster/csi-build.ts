/**
 * `npm run csi:build`: builds the CSI peers into the control plane's bin directory (binaries.ts):
 * csi-mock from tools/k8s (Kubernetes' e2e CSI mock, so it shares the control plane's module
 * graph and build cache), then csi-provisioner and csi-resizer from tools/csi-sidecars. Each is
 * built when missing or when its `<name>.version` stamp no longer matches what the repository
 * asks for (a new sidecar release in tools/csi-sidecars/go.mod, a changed csi-mock main.go).
 * Progress goes to stderr; the last line of stdout is the bin directory.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  binDir,
  CSI_BINARIES,
  CSI_MOCK_MAIN,
  CSI_SIDECAR_MODULES,
  CSI_SIDECARS_MODULE_DIR,
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
};

/** What a csi-mock build is made of: the Kubernetes release and our main.go. */
function mockStamp(kubernetes: string): string {
  const digest = createHash('sha256').update(readFileSync(CSI_MOCK_MAIN)).digest('hex').slice(0, 12);
  return `csi-mock of Kubernetes ${kubernetes}, main.go sha256:${digest}`;
}

export function csiTarget(name: CsiBinaryName): BuildTarget {
  const v = versions();
  const out = csiBinaryPath(name, v);
  if (name === 'csi-mock') {
    const stamp = mockStamp(v.kubernetes);
    return { name, release: stamp, dir: K8S_MODULE_DIR, pkg: './cmd/csi-mock', ldflags: '-s -w', out, stamp };
  }
  const module = CSI_SIDECAR_MODULES[name];
  const version = csiSidecarVersion(name);
  // The sidecars' release Makefile (release-tools/build.make) stamps main.version the same way;
  // `--version` prints it.
  const ldflags = `-s -w -X main.version=${version}`;
  const stamp = `${module} ${version}`;
  return { name, release: stamp, dir: CSI_SIDECARS_MODULE_DIR, pkg: `${module}/${SIDECAR_COMMANDS[name]}`, ldflags, out, stamp };
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
