/**
 * Snapshots, restores and clones of sized host-path volumes with real loop devices and ext4,
 * run inside a private mount namespace (snapshot-main.ts): on the sandbox's tmpfs (no reflinks:
 * the copy path) and on an XFS filesystem made with reflink=1 (the reflink path; skipped, saying
 * why, without mkfs.xfs). Every scenario ends with none of its loop devices attached.
 */
import { execFileSync } from 'node:child_process';
import { promises as fs, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import type { CopyReport } from '../../../src/plugins/fs-common/directory-snapshots.js';
import { parseMountInfo } from '../../../src/plugins/fs-common/mount-points.js';
import { HostPathPlugin, volumePath } from '../../../src/plugins/host-path/index.js';
import { ImageVolumes, runCommand, type Command } from '../../../src/plugins/host-path/image-volume.js';
import { sha256Of } from '../../helpers/tree-manifest.js';
import { snapshotRequest } from '../conformance/snapshot.js';
import { conformanceRequest, conformanceVolume } from '../conformance/subject.js';
import { attempt, layout } from '../mount-namespace/common.js';

const MIB = 1024 * 1024;
const SIZED = { sizing: 'image' };

export type SizedSnapshotResult = Record<string, unknown> & { attachedAtEnd: number };

/** Loop devices whose backing file lies below `dir`. */
export function loopDevicesBelow(dir: string): string[] {
  const out = execFileSync('losetup', ['--noheadings', '--output', 'NAME,BACK-FILE', '--list'], { encoding: 'utf8' });
  return out.split('\n').map((l) => l.trim().split(/\s+/)).filter(([, back]) => back?.startsWith(`${dir}/`)).map(([name]) => name);
}

/** Unmounts everything mounted below `dir`, deepest first (a loop mount's device goes with it). */
export function unmountBelow(dir: string): void {
  const mounts = parseMountInfo(readFileSync('/proc/self/mountinfo', 'utf8')).filter((m) => m.path.startsWith(`${dir}/`));
  for (const m of mounts.sort((a, b) => b.path.length - a.path.length)) execFileSync('umount', [m.path]);
}

/** A runner that records every command before running it. */
function recording(log: string[]): Command {
  return (file, args, signal) => {
    log.push([file, ...args].join(' '));
    return runCommand(file, args, signal);
  };
}

function isFrozen(path: string): boolean {
  try {
    execFileSync('fsfreeze', ['--unfreeze', path], { stdio: 'ignore' });
    return true; // it was frozen (now thawed again)
  } catch {
    return false;
  }
}

async function writeRandom(file: string, bytes: number): Promise<string> {
  await fs.writeFile(file, (await import('node:crypto')).randomBytes(bytes));
  return sha256Of(file);
}

async function sizedVolume(plugin: HostPathPlugin, bytes: number): Promise<{ pv: PersistentVolume; dir: string }> {
  const req = conformanceRequest(plugin, { parameters: SIZED, requestBytes: BigInt(bytes) });
  const pv = conformanceVolume(plugin, req, await plugin.provision(req));
  return { pv, dir: volumePath(pv)! };
}

/** The whole cycle on a root of the given kind; `reflinks` says what the stats must show. */
async function cycle(root: string, reports: CopyReport[], commands: string[], freezeTimeoutMs?: number): Promise<Record<string, unknown>> {
  const plugin = new HostPathPlugin({ roots: [root], overcommitRatio: 100, images: new ImageVolumes(recording(commands)), onCopy: (r) => reports.push(r), ...(freezeTimeoutMs ? { freezeTimeoutMs } : {}) });
  const source = await sizedVolume(plugin, 32 * MIB);
  const atSnapshot = { a: await writeRandom(join(source.dir, 'a.bin'), 4 * MIB), b: await writeRandom(join(source.dir, 'b.bin'), 3 * MIB + 5) };
  commands.length = 0;
  const info = await plugin.createSnapshot(snapshotRequest(source.pv));
  const freezeCommands = commands.filter((c) => c.startsWith('fsfreeze'));
  const snapshotStats = reports.at(-1)!;
  const changed = await writeRandom(join(source.dir, 'a.bin'), 2 * MIB);
  await fs.rm(join(source.dir, 'b.bin'));
  const restoreReq = conformanceRequest(plugin, { parameters: SIZED, requestBytes: BigInt(48 * MIB) });
  const restoredVolume = await plugin.provisionFromSnapshot(restoreReq, { snapshotId: info.snapshotId });
  const restored = volumePath(conformanceVolume(plugin, restoreReq, restoredVolume))!;
  const restoreStats = reports.at(-1)!;
  const restoredStatfs = await fs.statfs(restored);
  const cloneReq = conformanceRequest(plugin, { parameters: SIZED, requestBytes: BigInt(32 * MIB) });
  const clone = volumePath(conformanceVolume(plugin, cloneReq, await plugin.provisionClone(cloneReq, source.pv)))!;
  const plainInto = await attempt(async () => void (await plugin.provisionFromSnapshot(conformanceRequest(plugin), { snapshotId: info.snapshotId })));
  return {
    plugin,
    source,
    info: { sizeBytes: info.sizeBytes.toString() },
    freezeCommands,
    frozenPath: source.dir,
    frozenAfterSnapshot: isFrozen(source.dir),
    snapshot: { copied: Number(snapshotStats.stats.copiedBytes), reflinked: Number(snapshotStats.stats.reflinkedBytes), frozenSeconds: snapshotStats.frozenSeconds },
    restore: { copied: Number(restoreStats.stats.copiedBytes), reflinked: Number(restoreStats.stats.reflinkedBytes) },
    restoredCapacity: restoredVolume.capacity,
    restoredFilesystemMiB: Number(restoredStatfs.blocks * restoredStatfs.bsize) / MIB,
    restoredMatches: (await sha256Of(join(restored, 'a.bin'))) === atSnapshot.a && (await sha256Of(join(restored, 'b.bin'))) === atSnapshot.b,
    cloneMatches: (await sha256Of(join(clone, 'a.bin'))) === changed && !(await fs.stat(join(clone, 'b.bin')).then(() => true, () => false)),
    plainInto,
  };
}

/** On the sandbox tmpfs: the copy path, a frozen-then-thawed filesystem, restore grown, clone, the freeze bound, recover thaws. */
export async function copyRoot(base: string): Promise<SizedSnapshotResult> {
  const { root, decoysIntact } = await layout(base);
  const reports: CopyReport[] = [];
  const commands: string[] = [];
  const { plugin, source, ...result } = await cycle(root, reports, commands);
  const { pv, dir } = source as { pv: PersistentVolume; dir: string };
  const bounded = new HostPathPlugin({ roots: [root], overcommitRatio: 100, freezeTimeoutMs: 1 });
  const overBound = await attempt(async () => void (await bounded.createSnapshot(snapshotRequest(pv))));
  const frozenAfterBound = isFrozen(dir);
  const listedAfterBound = (await bounded.listSnapshots('conformance')).length;
  execFileSync('fsfreeze', ['--freeze', dir]);
  await (plugin as HostPathPlugin).recover();
  const frozenAfterRecover = isFrozen(dir);
  unmountBelow(base);
  return { ...result, overBound, frozenAfterBound, listedAfterBound, frozenAfterRecover, decoysIntact: await decoysIntact(), attachedAtEnd: loopDevicesBelow(base).length };
}

/** Why the reflink scenario cannot run here, or undefined. */
export function reflinkSkipReason(): string | undefined {
  try {
    execFileSync('mkfs.xfs', ['-V'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'mkfs.xfs is not installed (Debian: apt-get install xfsprogs): the reflink path needs an XFS filesystem made with reflink=1';
  }
}

/** On an XFS loop filesystem with reflink=1 as the root: every image copy is a reflink. */
export async function reflinkRoot(base: string): Promise<SizedSnapshotResult> {
  const skipped = reflinkSkipReason();
  if (skipped) return { skipped, attachedAtEnd: 0 };
  const { root, decoysIntact } = await layout(base);
  const fsImage = join(base, 'xfs.img');
  execFileSync('truncate', ['-s', '600M', fsImage]);
  execFileSync('mkfs.xfs', ['-q', '-m', 'reflink=1', fsImage]);
  execFileSync('mount', ['-o', 'loop', fsImage, root]);
  let result: Record<string, unknown>;
  try {
    const { plugin: _plugin, source: _source, ...rest } = await cycle(root, [], []);
    result = rest;
  } finally {
    unmountBelow(base);
  }
  return { ...result, decoysIntact: await decoysIntact(), attachedAtEnd: loopDevicesBelow(base).length };
}
