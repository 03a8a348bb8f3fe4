/**
 * The sweep's plan: every volume and snapshot the cloud lists under cluster N's tag, each with
 * what the sweep will do with it and why. Only an `orphan` is ever deleted: proven ours for N
 * (proof.ts), older than the age guard, not attached, in a state the cloud deletes in. Nothing
 * here calls the cloud but the two lists.
 */
import type { CloudSweeper, SweepSnapshot, SweepVolume } from '../../plugins/cloud-common/sweep.js';
import { type Proof, proveSnapshot, proveVolume } from '../../plugins/cloud-common/proof.js';

export type SweepStatus = 'orphan' | 'too-young' | 'age-unknown' | 'in-use' | 'busy' | 'not-proven';

interface ItemBase {
  id: string;
  name: string;
  sizeGiB: number;
  createdAt?: Date;
  tags: Record<string, string>;
  state: string;
  status: SweepStatus;
  /** Why it is not an orphan (empty for one). */
  reason: string;
  /** Who it was made for, when proven: the claim (volume) or the VolumeSnapshot (snapshot). */
  claim?: { namespace: string; name: string };
}

export interface VolumeItem extends ItemBase {
  kind: 'volume';
  pvName?: string;
}

export interface SnapshotItem extends ItemBase {
  kind: 'snapshot';
  sourceVolumeId: string;
}

export type SweepItem = VolumeItem | SnapshotItem;

export interface SweepPlan {
  cloud: string;
  clusterName: string;
  olderThanMs: number;
  /** When the plan was made: ages are counted to it. */
  now: Date;
  volumes: VolumeItem[];
  snapshots: SnapshotItem[];
  /** Lists that failed: then nothing is deleted. */
  failures: string[];
}

export interface PlanOptions {
  clusterName: string;
  olderThanMs: number;
  now?: Date;
}

/** Lists the cluster's volumes and snapshots and decides about each. */
export async function planSweep(sweeper: CloudSweeper, options: PlanOptions): Promise<SweepPlan> {
  const now = options.now ?? new Date();
  const failures: string[] = [];
  const listed = async <T>(what: string, list: () => Promise<T[]>): Promise<T[]> => {
    try {
      return await list();
    } catch (err) {
      failures.push(`cannot list ${what}: ${err instanceof Error ? err.message : String(err)}`);
      return [];
    }
  };
  const [volumes, snapshots] = [
    await listed('volumes', () => sweeper.listVolumes(options.clusterName)),
    await listed('snapshots', () => sweeper.listSnapshots(options.clusterName)),
  ];
  const judge = { ...options, now, maxNameLength: sweeper.maxNameLength };
  return {
    cloud: sweeper.cloud,
    clusterName: options.clusterName,
    olderThanMs: options.olderThanMs,
    now,
    volumes: volumes.map((v) => volumeItem(v, judge)).sort(byName),
    snapshots: snapshots.map((s) => snapshotItem(s, judge)).sort(byName),
    failures,
  };
}

interface Judge {
  clusterName: string;
  olderThanMs: number;
  now: Date;
  maxNameLength: number;
}

function byName(a: SweepItem, b: SweepItem): number {
  return a.name.localeCompare(b.name) || a.id.localeCompare(b.id);
}

export function volumeItem(v: SweepVolume, judge: Judge): VolumeItem {
  const proof = proveVolume(v, judge.clusterName, judge.maxNameLength);
  const item: VolumeItem = { kind: 'volume', ...common(v, proof), ...decide(v, proof, judge) };
  if (proof.ours && proof.pvName !== undefined) item.pvName = proof.pvName;
  return item;
}

export function snapshotItem(s: SweepSnapshot, judge: Judge): SnapshotItem {
  const proof = proveSnapshot(s, judge.clusterName, judge.maxNameLength);
  return { kind: 'snapshot', sourceVolumeId: s.sourceVolumeId, ...common(s, proof), ...decide({ ...s, inUse: false }, proof, judge) };
}

function common(x: SweepVolume | SweepSnapshot, proof: Proof): Omit<ItemBase, 'status' | 'reason'> {
  return {
    id: x.id,
    name: x.name,
    sizeGiB: x.sizeGiB,
    ...(x.createdAt ? { createdAt: x.createdAt } : {}),
    tags: x.tags,
    state: x.state,
    ...(proof.ours ? { claim: proof.claim } : {}),
  };
}

/** The first reason not to delete, in order of what a person most needs to know. */
function decide(
  x: { createdAt?: Date; inUse: boolean; settled: boolean; state: string },
  proof: Proof,
  judge: Judge,
): { status: SweepStatus; reason: string } {
  if (!proof.ours) return { status: 'not-proven', reason: proof.why };
  if (x.inUse) return { status: 'in-use', reason: `attached (state ${x.state}): never deleted` };
  if (x.createdAt === undefined) return { status: 'age-unknown', reason: 'the cloud gives no creation time' };
  const age = judge.now.getTime() - x.createdAt.getTime();
  if (age < judge.olderThanMs) return { status: 'too-young', reason: 'younger than --older-than' };
  if (!x.settled) return { status: 'busy', reason: `state ${x.state}` };
  return { status: 'orphan', reason: '' };
}
