/**
 * `npm run nodes:build`: what the test nodes (nodes.ts) run, built into the cache beside the
 * control plane: the kubelet from tools/k8s (the control plane's release, same Go build cache),
 * containerd, its runc shim and ctr from tools/containerd, our pause program, and the pause and
 * busybox image archives made from them. Each binary is built only when missing; the image
 * archives are rewritten every time (a second, not a build). Progress goes to stderr; the last
 * line of stdout is the runtime directory.
 */
import { isExecutable, K8S_MODULE_DIR, onPath, versions } from './binaries.js';
import { buildTargets, versionLdflags, type BuildTarget } from './build.js';
import { CONTAINERD_COMMANDS, CONTAINERD_MODULE, CONTAINERD_MODULE_DIR, containerdVersion, kubeletPath, runtimeDir, runtimePath } from './node-binaries.js';
import { buildNodeImages } from './node-images.js';

export function nodeTargets(): BuildTarget[] {
  const v = versions();
  const ctd = containerdVersion();
  // containerd's own Makefile: no btrfs snapshotter without cgo, no docs in the CLI.
  const ctdFlags = `-s -w -X ${CONTAINERD_MODULE}/version.Version=${ctd} -X ${CONTAINERD_MODULE}/version.Package=${CONTAINERD_MODULE}`;
  return [
    { name: 'kubelet', release: `Kubernetes ${v.kubernetes}`, dir: K8S_MODULE_DIR, pkg: 'k8s.io/kubernetes/cmd/kubelet', ldflags: `-s -w ${versionLdflags(v.kubernetes)}`, out: kubeletPath(v) },
    ...CONTAINERD_COMMANDS.map((name) => ({
      name,
      release: `containerd ${ctd}`,
      dir: CONTAINERD_MODULE_DIR,
      pkg: `${CONTAINERD_MODULE}/cmd/${name}`,
      ldflags: ctdFlags,
      tags: 'no_btrfs,urfave_cli_no_docs',
      out: runtimePath(name),
    })),
    { name: 'pause', release: 'our pause program', dir: CONTAINERD_MODULE_DIR, pkg: './cmd/pause', ldflags: '-s -w', out: runtimePath('pause') },
  ];
}

export async function buildNodes(log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<string> {
  const missing = nodeTargets().filter((t) => !isExecutable(t.out));
  if (missing.length === 0) log('kubelet, containerd, containerd-shim-runc-v2, ctr and pause: already built');
  else {
    if (!onPath('go')) throw new Error('go is not on PATH: the node binaries cannot be built on this machine');
    await buildTargets(missing, log);
  }
  const t0 = Date.now();
  const archives = buildNodeImages();
  log(`node images written in ${Date.now() - t0} ms: ${archives.join(', ')}`);
  return runtimeDir();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  buildNodes().then(
    (dir) => process.stdout.write(`${dir}\n`),
    (err: unknown) => {
      process.stderr.write(`nodes:build: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
