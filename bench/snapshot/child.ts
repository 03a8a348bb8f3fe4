/**
 * The snapshot bench, run only inside a private mount namespace (bench/scenarios/snapshot.ts
 * starts it through runInMountNamespace). On a tmpfs of its own it makes two roots, each an
 * image file loop-mounted: XFS with reflink=1 (the reflink root) and ext4 (the copy root). In
 * each, one sized volume of VOLUME_MIB is filled with DATA_MIB of random data, then snapshotted
 * and restored (a sized class of the same size) `repetitions` times; each snapshot and restore
 * is timed and its copied and reflinked bytes recorded (the plugin's onCopy observer), then both
 * are deleted. Prints one JSON object. Both roots live in memory (tmpfs), so the copy root's
 * times are what copying costs in CPU and memory bandwidth, not a disk's.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import type { CopyReport } from '../../src/plugins/fs-common/directory-snapshots.js';
import { HostPathPlugin, volumePath } from '../../src/plugins/host-path/index.js';
import { enterSandbox, mountTmpfs } from '../../test/helpers/mount-sandbox.js';
import { snapshotRequest } from '../../test/plugins/conformance/snapshot.js';
import { conformanceRequest, conformanceVolume } from '../../test/plugins/conformance/subject.js';
import { unmountBelow } from '../../test/plugins/sized/snapshot-scenarios.js';

const MIB = 1024 * 1024;
const [volumeMib, dataMib, repetitions] = process.argv.slice(2).map(Number);

interface Sample {
  seconds: number;
  copiedBytes: number;
  reflinkedBytes: number;
  frozenSeconds?: number;
}

async function fillVolume(dir: string): Promise<void> {
  const chunk = randomBytes(64 * MIB);
  const handle = await fs.open(join(dir, 'data.bin'), 'w');
  try {
    for (let written = 0; written < dataMib * MIB; written += chunk.length) await handle.write(chunk, 0, Math.min(chunk.length, dataMib * MIB - written));
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function sample(seconds: number, report: CopyReport): Sample {
  return {
    seconds,
    copiedBytes: Number(report.stats.copiedBytes),
    reflinkedBytes: Number(report.stats.reflinkedBytes),
    ...(report.frozenSeconds !== undefined ? { frozenSeconds: report.frozenSeconds } : {}),
  };
}

async function measureRoot(root: string): Promise<{ snapshots: Sample[]; restores: Sample[] }> {
  const reports: CopyReport[] = [];
  const plugin = new HostPathPlugin({ roots: [root], onCopy: (r) => reports.push(r), freezeTimeoutMs: 600_000 });
  const parameters = { sizing: 'image' };
  const req = conformanceRequest(plugin, { parameters, requestBytes: BigInt(volumeMib * MIB) });
  const pv = conformanceVolume(plugin, req, await plugin.provision(req));
  await fillVolume(volumePath(pv)!);
  const snapshots: Sample[] = [];
  const restores: Sample[] = [];
  for (let i = 0; i < repetitions; i++) {
    let t0 = performance.now();
    const { snapshotId } = await plugin.createSnapshot(snapshotRequest(pv));
    snapshots.push(sample((performance.now() - t0) / 1000, reports.at(-1)!));
    const restoreReq = conformanceRequest(plugin, { parameters, requestBytes: BigInt(volumeMib * MIB) });
    t0 = performance.now();
    const restored = conformanceVolume(plugin, restoreReq, await plugin.provisionFromSnapshot(restoreReq, { snapshotId }));
    restores.push(sample((performance.now() - t0) / 1000, reports.at(-1)!));
    await plugin.delete({ backingName: restoreReq.backingName, pv: restored });
    await plugin.deleteSnapshot({ snapshotId });
  }
  await plugin.delete({ backingName: req.backingName, pv });
  return { snapshots, restores };
}

async function withRoot<T>(store: string, kind: 'xfs' | 'ext4', body: (root: string) => Promise<T>): Promise<T> {
  const image = join(store, `${kind}.img`);
  const root = join(store, kind);
  await fs.mkdir(root);
  execFileSync('truncate', ['-s', `${volumeMib * 4 + 512}M`, image]);
  if (kind === 'xfs') execFileSync('mkfs.xfs', ['-q', '-m', 'reflink=1', image]);
  else execFileSync('mkfs.ext4', ['-q', '-F', '-m', '0', image]);
  execFileSync('mount', ['-o', 'loop', image, root]);
  try {
    return await body(root);
  } finally {
    unmountBelow(store);
    await fs.rm(image, { force: true });
  }
}

const sandbox = enterSandbox();
const store = join(sandbox, 'store');
await fs.mkdir(store);
mountTmpfs(store, `${volumeMib * 5 + 1024}m`);
const reflink = await withRoot(store, 'xfs', measureRoot);
const copy = await withRoot(store, 'ext4', measureRoot);
process.stdout.write(JSON.stringify({ volumeMib, dataMib, repetitions, reflink, copy }));
