/**
 * Snapshots of directory volumes against decoys, inside a private mount namespace (run by
 * snapshot-main.ts): a symlink planted in the snapshot area (for a snapshot, and for the area
 * itself), a mount inside a snapshot, on a snapshot, inside a volume being snapshotted and inside
 * a snapshot being restored. Every one must be refused, deleting and copying nothing.
 */
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { SNAPSHOT_DIR } from '../../../src/plugins/fs-common/snapshot-area.js';
import { HostPathPlugin, volumePath } from '../../../src/plugins/host-path/index.js';
import { bindMount, mountTmpfs } from '../../helpers/mount-sandbox.js';
import { conformanceRequest, conformanceVolume } from '../conformance/subject.js';
import { snapshotRequest } from '../conformance/snapshot.js';
import { attempt, exists, layout, type Attempt } from './common.js';

export interface SnapshotScenarioResult {
  mountPoint?: string;
  attempt: Attempt;
  decoysIntact: boolean;
  /** The snapshot the scenario attacked is still there (listed, with its data). */
  snapshotIntact?: boolean;
  /** Nothing new appeared where a refused operation would have written (snapshot area, new volume). */
  nothingMade?: boolean;
}

async function setup(base: string): Promise<{ root: string; outside: string; decoysIntact: () => Promise<boolean>; plugin: HostPathPlugin; pv: PersistentVolume; dir: string }> {
  const { root, outside, decoysIntact } = await layout(base);
  const plugin = new HostPathPlugin({ roots: [root] });
  const req = conformanceRequest(plugin);
  const pv = conformanceVolume(plugin, req, await plugin.provision(req));
  const dir = volumePath(pv)!;
  await fs.writeFile(join(dir, 'own.txt'), 'volume data');
  return { root, outside, decoysIntact, plugin, pv, dir };
}

/** `<area>/<name>` replaced by a symlink to the decoys: deleting that handle is refused. */
export async function symlinkAsSnapshot(base: string): Promise<SnapshotScenarioResult> {
  const { root, outside, decoysIntact, plugin, pv } = await setup(base);
  const req = snapshotRequest(pv);
  const { snapshotId } = await plugin.createSnapshot(req);
  const place = join(root, SNAPSHOT_DIR, req.snapshotName);
  await fs.rename(place, join(root, SNAPSHOT_DIR, 'moved-away'));
  await fs.symlink(outside, place);
  const result = await attempt(() => plugin.deleteSnapshot({ snapshotId }));
  return { attempt: result, decoysIntact: await decoysIntact(), snapshotIntact: (await fs.lstat(place)).isSymbolicLink() };
}

/** The area itself a symlink to the decoys: delete, list and restore refuse it. */
export async function symlinkAsArea(base: string): Promise<SnapshotScenarioResult> {
  const { root, outside, decoysIntact, plugin, pv } = await setup(base);
  const req = snapshotRequest(pv);
  const { snapshotId } = await plugin.createSnapshot(req);
  await fs.rename(join(root, SNAPSHOT_DIR), join(root, 'area-moved'));
  await fs.mkdir(join(outside, req.snapshotName));
  await fs.symlink(outside, join(root, SNAPSHOT_DIR));
  const result = await attempt(() => plugin.deleteSnapshot({ snapshotId }));
  const restoreReq = conformanceRequest(plugin);
  const restore = await attempt(async () => void (await plugin.provisionFromSnapshot(restoreReq, { snapshotId })));
  const nothingMade = restore.outcome === 'failed' && !(await exists(join(root, restoreReq.backingName)));
  return { attempt: result, decoysIntact: (await decoysIntact()) && (await exists(join(outside, req.snapshotName))), nothingMade };
}

/** A snapshot with a bind mount of the decoys made inside its data afterwards. */
async function snapshotWithMountInside(base: string) {
  const setupDone = await setup(base);
  const { root, outside, plugin, pv, dir } = setupDone;
  await fs.mkdir(join(dir, 'sub'));
  const req = snapshotRequest(pv);
  const { snapshotId } = await plugin.createSnapshot(req);
  const mountPoint = join(root, SNAPSHOT_DIR, req.snapshotName, 'data', 'sub');
  bindMount(outside, mountPoint);
  return { ...setupDone, req, snapshotId, mountPoint };
}

/** A bind mount of the decoys inside a snapshot's data: its delete is refused naming it, nothing deleted. */
export async function mountInsideSnapshot(base: string): Promise<SnapshotScenarioResult> {
  const { root, decoysIntact, plugin, req, snapshotId, mountPoint } = await snapshotWithMountInside(base);
  const result = await attempt(() => plugin.deleteSnapshot({ snapshotId }));
  const snapshotIntact = (await exists(join(root, SNAPSHOT_DIR, req.snapshotName, 'data', 'own.txt'))) && (await plugin.listSnapshots(req.clusterName)).length === 1;
  return { mountPoint, attempt: result, decoysIntact: await decoysIntact(), snapshotIntact };
}

/** A tmpfs mounted on the snapshot's directory itself: refused. */
export async function mountOnSnapshot(base: string): Promise<SnapshotScenarioResult> {
  const { root, decoysIntact, plugin, pv } = await setup(base);
  const req = snapshotRequest(pv);
  const { snapshotId } = await plugin.createSnapshot(req);
  const mountPoint = join(root, SNAPSHOT_DIR, req.snapshotName);
  mountTmpfs(mountPoint);
  await fs.writeFile(join(mountPoint, 'on-tmpfs.txt'), 'other filesystem');
  const result = await attempt(() => plugin.deleteSnapshot({ snapshotId }));
  return { mountPoint, attempt: result, decoysIntact: await decoysIntact(), snapshotIntact: await exists(join(mountPoint, 'on-tmpfs.txt')) };
}

/** A bind mount of the decoys inside the volume: the snapshot is refused naming it, no snapshot made. */
export async function mountInsideVolume(base: string): Promise<SnapshotScenarioResult> {
  const { root, outside, decoysIntact, plugin, pv, dir } = await setup(base);
  const mountPoint = join(dir, 'data', 'inner');
  await fs.mkdir(mountPoint, { recursive: true });
  bindMount(outside, mountPoint);
  const req = snapshotRequest(pv);
  const result = await attempt(async () => void (await plugin.createSnapshot(req)));
  const clone = await attempt(async () => void (await plugin.provisionClone(conformanceRequest(plugin), pv)));
  const area = await fs.readdir(join(root, SNAPSHOT_DIR)).catch(() => []);
  const copiedDecoy = area.length > 0 && (await exists(join(root, SNAPSHOT_DIR, req.snapshotName)));
  return { mountPoint, attempt: result, decoysIntact: await decoysIntact(), nothingMade: !copiedDecoy && clone.outcome === 'failed' && (await plugin.listSnapshots(req.clusterName)).length === 0 };
}

/** A bind mount inside a snapshot's data: a restore from it is refused (its data is not the snapshot's), no volume made. */
export async function mountInsideRestoredSnapshot(base: string): Promise<SnapshotScenarioResult> {
  const { root, decoysIntact, plugin, snapshotId, mountPoint } = await snapshotWithMountInside(base);
  const restoreReq = conformanceRequest(plugin);
  const result = await attempt(async () => void (await plugin.provisionFromSnapshot(restoreReq, { snapshotId })));
  return { mountPoint, attempt: result, decoysIntact: await decoysIntact(), nothingMade: !(await exists(join(root, restoreReq.backingName))) };
}
