/**
 * What a failed run of the chart suite may leave under its volumes root on this machine (the
 * node agents' loop mounts reach it through Bidirectional propagation; the nodes run in this
 * machine's mount namespace): unmounted and detached
 * before the directory is removed, so nothing outlives the test whatever failed.
 */
import { execFileSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { unmountUnder } from '../../../tools/cluster/node-cleanup.js';

/**
 * Makes `root` a shared mount of its own (a bind mount onto itself): the root filesystem of these
 * machines is a private mount, and containerd refuses Bidirectional propagation from a host path
 * that is not on a shared mount ("... is mounted on / but it is not a shared mount"). The node
 * agents' loop mounts then propagate out of their containers to the machine, where the kubelet
 * bind-mounts them into the pods. removeVolumesRoot unmounts it.
 */
export function makeSharedRoot(root: string): void {
  execFileSync('mount', ['--bind', root, root]);
  execFileSync('mount', ['--make-rshared', root]);
}

/** Loop devices (name, backing file) whose backing file is under `dir`. */
export function loopsUnder(dir: string): Array<{ device: string; file: string }> {
  const out = execFileSync('losetup', ['--list', '--noheadings', '--raw', '--output', 'NAME,BACK-FILE'], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((l) => l.trim().split(' '))
    .filter(([device, file]) => device && file?.startsWith(`${dir}/`))
    .map(([device, file]) => ({ device, file }));
}

/** Unmounts (deepest first) and detaches everything under `root`, then removes `dir`. */
export async function removeVolumesRoot(root: string, dir: string): Promise<void> {
  unmountUnder(root);
  for (const loop of loopsUnder(root)) execFileSync('losetup', ['-d', loop.device], { stdio: 'ignore' });
  await rm(dir, { recursive: true, force: true });
}
