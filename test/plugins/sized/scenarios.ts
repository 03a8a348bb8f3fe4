/**
 * Sized host-path volumes (`sizing: image`) through the real plugin, loop devices and ext4, run
 * inside a private mount namespace (main.ts) with the system read-only: every image, mount and
 * decoy lives on the sandbox tmpfs. Loop devices are the machine's, so every scenario ends with
 * none of its images attached (checked with `losetup --associated`).
 */
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import type { ProvisionRequest } from '../../../src/plugins/api/core.js';
import { HostPathPlugin } from '../../../src/plugins/host-path/index.js';
import { imagePathOf, isMountPoint } from '../../../src/plugins/host-path/image-volume.js';
import { mountTmpfs } from '../../helpers/mount-sandbox.js';
import { attempt, layout, type Attempt } from '../mount-namespace/common.js';

const MIB = 1024 * 1024;

export interface SizedResult {
  [key: string]: unknown;
  decoysIntact: boolean;
  /** Loop devices still backed by the scenario's images at its end. */
  attachedAtEnd: number;
}

function request(name: string, bytes: number, parameters: Record<string, string> = { sizing: 'image' }): ProvisionRequest {
  return {
    backingName: `kubernetes-dynamic-${name}`,
    clusterName: 'kubernetes',
    pvName: name,
    claim: { name: `claim-${name}`, namespace: 'default', uid: `uid-${name}`, labels: {}, annotations: {} },
    requestBytes: BigInt(bytes),
    accessModes: ['ReadWriteOnce'],
    volumeMode: 'Filesystem',
    parameters,
    mountOptions: [],
  };
}

function pvFor(name: string, path: string, capacity: string): PersistentVolume {
  return {
    metadata: { name, annotations: { 'pv.kubernetes.io/provisioned-by': 'kubernetes.io/host-path' } },
    spec: { capacity: { storage: capacity }, hostPath: { path }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Delete' },
  };
}

function attached(image: string): string[] {
  try {
    return execFileSync('losetup', ['--noheadings', '--output', 'NAME', '--associated', image], { encoding: 'utf8' })
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
  } catch {
    return [];
  }
}

async function writeBytes(file: string, bytes: number): Promise<Attempt> {
  return attempt(async () => {
    const handle = await fs.open(file, 'w');
    try {
      const chunk = Buffer.alloc(MIB, 7);
      for (let written = 0; written < bytes; written += MIB) await handle.write(chunk);
      await handle.sync();
    } finally {
      await handle.close();
    }
  });
}

async function gone(path: string): Promise<boolean> {
  return fs.lstat(path).then(() => false, () => true);
}

/** A 20 MiB volume refuses a 30 MiB write, statfs sees what was written, grows online to 40 MiB, and delete leaves nothing. */
export async function holdsItsSizeAndGrows(base: string): Promise<SizedResult> {
  const { root, decoysIntact } = await layout(base);
  const plugin = new HostPathPlugin({ roots: [root] });
  const made = await plugin.provision(request('pv-a', 20 * MIB));
  const path = made.source.hostPath?.path ?? '';
  const pv = pvFor('pv-a', path, made.capacity);
  const again = await plugin.provision(request('pv-a', 20 * MIB));
  const image = imagePathOf(root, 'kubernetes-dynamic-pv-a');
  const overflow = await writeBytes(join(path, 'too-big'), 30 * MIB);
  await fs.rm(join(path, 'too-big'));
  await writeBytes(join(path, 'data'), 8 * MIB);
  const usage = await plugin.metricsFor(pv).getMetrics();
  const grown = await plugin.growSized(pv, BigInt(40 * MIB));
  const after = await plugin.metricsFor(pv).getMetrics();
  const dataKept = (await fs.stat(join(path, 'data'))).size === 8 * MIB;
  const moreFits = await writeBytes(join(path, 'more'), 20 * MIB);
  const attachedWhileMounted = attached(image).length;
  const deleted = await attempt(() => plugin.delete({ backingName: 'kubernetes-dynamic-pv-a', pv }));
  return {
    capacity: made.capacity,
    sameOnRetry: again.source.hostPath?.path === path && again.capacity === made.capacity,
    overflow,
    usedMiB: Number(usage.usedBytes) / MIB,
    capacityMiB: Number(usage.capacityBytes) / MIB,
    grownCapacityMiB: Number(after.capacityBytes) / MIB,
    grown: grown.toString(),
    dataKept,
    moreFits,
    attachedWhileMounted,
    deleted,
    mountedAfterDelete: await isMountPoint(path),
    directoryGone: await gone(path),
    imageGone: await gone(image),
    attachedAtEnd: attached(image).length,
    decoysIntact: await decoysIntact(),
  };
}

/** A 64 MiB root takes 40 MiB, refuses 40 MiB more naming the numbers, still takes 16 MiB. */
export async function capacityAccounting(base: string): Promise<SizedResult> {
  const { root, decoysIntact } = await layout(base);
  mountTmpfs(root, '64m');
  const plugin = new HostPathPlugin({ roots: [root] });
  const first = await attempt(async () => void (await plugin.provision(request('pv-1', 40 * MIB))));
  const second = await attempt(async () => void (await plugin.provision(request('pv-2', 40 * MIB))));
  const third = await attempt(async () => void (await plugin.provision(request('pv-3', 16 * MIB))));
  const [capacity] = await plugin.capacity();
  const plainStillWorks = await attempt(async () => void (await plugin.provision(request('pv-4', 1024 * MIB, {}))));
  for (const name of ['pv-1', 'pv-3', 'pv-4']) await plugin.delete({ backingName: `kubernetes-dynamic-${name}` });
  const images = ['pv-1', 'pv-2', 'pv-3'].map((n) => imagePathOf(root, `kubernetes-dynamic-${n}`));
  return {
    first,
    second,
    third,
    allocatedMiB: Number(capacity.allocatedBytes) / MIB,
    plainStillWorks,
    leftInRoot: (await fs.readdir(root)).filter((n) => !n.startsWith('.')),
    attachedAtEnd: images.reduce((n, i) => n + attached(i).length, 0),
    decoysIntact: await decoysIntact(),
  };
}

/**
 * A controller killed between attaching the image and writing the PV: here a loop device left
 * attached without a mount (what a kill inside mount(8) leaves) and a mounted volume. A new
 * plugin (the restarted controller) provisions again without a second device, and a delete
 * without a PV (the claim went away meanwhile) leaves nothing attached or mounted.
 */
export async function restartBetweenAttachAndPv(base: string): Promise<SizedResult> {
  const { root, decoysIntact } = await layout(base);
  const first = new HostPathPlugin({ roots: [root] });
  const made = await first.provision(request('pv-r', 20 * MIB));
  const path = made.source.hostPath?.path ?? '';
  const image = imagePathOf(root, 'kubernetes-dynamic-pv-r');
  const stray = execFileSync('losetup', ['--find', '--show', image], { encoding: 'utf8' }).trim();
  const attachedBefore = attached(image).length;
  const restarted = new HostPathPlugin({ roots: [root] });
  await restarted.provision(request('pv-r', 20 * MIB));
  const attachedAfterRetry = attached(image).length;
  const deleted = await attempt(() => restarted.delete({ backingName: 'kubernetes-dynamic-pv-r' }));
  return {
    stray: stray.startsWith('/dev/loop'),
    attachedBefore,
    attachedAfterRetry,
    deleted,
    mountedAfterDelete: await isMountPoint(path),
    directoryGone: await gone(path),
    imageGone: await gone(image),
    attachedAtEnd: attached(image).length,
    decoysIntact: await decoysIntact(),
  };
}

/** A reboot unmounts everything: the restarted plugin's recover() mounts each sized volume again, its data intact. */
export async function remountAfterReboot(base: string): Promise<SizedResult> {
  const { root, decoysIntact } = await layout(base);
  const before = new HostPathPlugin({ roots: [root] });
  const made = await before.provision(request('pv-b', 20 * MIB));
  const path = made.source.hostPath?.path ?? '';
  await fs.writeFile(join(path, 'kept.txt'), 'survives the reboot');
  execFileSync('umount', [path]);
  const unmounted = !(await isMountPoint(path));
  const after = new HostPathPlugin({ roots: [root] });
  await after.recover();
  const remounted = await isMountPoint(path);
  const kept = await fs.readFile(join(path, 'kept.txt'), 'utf8').catch(() => '');
  await after.delete({ backingName: 'kubernetes-dynamic-pv-b' });
  return { unmounted, remounted, kept, attachedAtEnd: attached(imagePathOf(root, 'kubernetes-dynamic-pv-b')).length, decoysIntact: await decoysIntact() };
}
