/**
 * The snapshot part of the chaos workload (`--snapshots`, with a CSI driver): VolumeSnapshots
 * of the workload's CSI claims, deletion of them, and claims restored from them, drawn beside
 * the other operations while controllers are killed and API and CSI calls fail. The class is the
 * driver's, deletionPolicy Delete, so every driver snapshot must go once its VolumeSnapshot
 * went: what `csi-snapshots` checks (csi-snapshot-invariant.ts).
 */
import { ANN_DEFAULT_SNAPSHOT_CLASS, SNAPSHOT_API_VERSION, type VolumeSnapshot, type VolumeSnapshotContent } from '@pv-controller/kube/snapshot-types.js';
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import type { Answer, RecordingClient } from './history.js';
import type { Prng } from './prng.js';
import { CSI_DRIVER_NAME } from './csi.js';
import { NAMESPACE, newClaim } from './world.js';

/** The workload's snapshot operations and their weights (added to its own only with `--snapshots`). */
export const SNAPSHOT_OPS = { snapshot: 2, unsnapshot: 1, restore: 1 } as const;
export type SnapshotOp = keyof typeof SNAPSHOT_OPS;

export const CHAOS_SNAPSHOT_CLASS = 'chaos-csi-snapshots';

const SNAPSHOTS_PATH = `/apis/${SNAPSHOT_API_VERSION}/namespaces/${NAMESPACE}/volumesnapshots`;
const CONTENTS_PATH = `/apis/${SNAPSHOT_API_VERSION}/volumesnapshotcontents`;
const CLASSES_PATH = `/apis/${SNAPSHOT_API_VERSION}/volumesnapshotclasses`;

type Outcome = Answer<unknown>['outcome'];

/** The driver's default VolumeSnapshotClass. */
export async function createSnapshotClass(client: RecordingClient): Promise<void> {
  const body = {
    apiVersion: SNAPSHOT_API_VERSION,
    kind: 'VolumeSnapshotClass',
    metadata: { name: CHAOS_SNAPSHOT_CLASS, annotations: { [ANN_DEFAULT_SNAPSHOT_CLASS]: 'true' } },
    driver: CSI_DRIVER_NAME,
    deletionPolicy: 'Delete',
  };
  const made = await client.send('setup', 'POST', CLASSES_PATH, body);
  if (made.outcome !== 'ok') throw new Error(`the server does not take a VolumeSnapshotClass (${made.error ?? made.outcome}): does it serve snapshot.storage.k8s.io/v1?`);
}

/** The snapshot objects, for the checks. */
export async function listSnapshotObjects(client: RecordingClient): Promise<{ snapshots: VolumeSnapshot[]; contents: VolumeSnapshotContent[] }> {
  const [snaps, contents] = await Promise.all([
    client.send<{ items: VolumeSnapshot[]; metadata?: { uid?: string } }>('list', 'GET', SNAPSHOTS_PATH),
    client.send<{ items: VolumeSnapshotContent[]; metadata?: { uid?: string } }>('list', 'GET', CONTENTS_PATH),
  ]);
  if (snaps.outcome !== 'ok' || contents.outcome !== 'ok') throw new Error(`listing the snapshot objects failed: ${snaps.error ?? contents.error ?? ''}`);
  return { snapshots: snaps.body?.items ?? [], contents: contents.body?.items ?? [] };
}

export class SnapshotWorkload {
  readonly counts: Record<SnapshotOp, number> = { snapshot: 0, unsnapshot: 0, restore: 0 };
  private readonly live = new Set<string>();
  private seq = 0;

  constructor(private readonly client: RecordingClient) {}

  /** A VolumeSnapshot of `claim` (the workload picked a CSI claim; it may not be bound yet, or be going). */
  async snapshot(claim: string): Promise<Outcome> {
    const name = `snap-${++this.seq}`;
    this.counts.snapshot++;
    const body = { apiVersion: SNAPSHOT_API_VERSION, kind: 'VolumeSnapshot', metadata: { name }, spec: { source: { persistentVolumeClaimName: claim } } };
    const made = await this.client.send('snapshot', 'POST', SNAPSHOTS_PATH, body, { object: `${SNAPSHOTS_PATH}/${name}` });
    if (made.outcome !== 'failed') this.live.add(name);
    return made.outcome;
  }

  /** Deletes one of the workload's VolumeSnapshots, ready or not. */
  async remove(r: Prng): Promise<Outcome> {
    const name = this.pick(r);
    if (name === undefined) return 'ok';
    this.counts.unsnapshot++;
    const removed = await this.client.send('snapshot', 'DELETE', `${SNAPSHOTS_PATH}/${name}`);
    if (removed.outcome !== 'failed' || /not found/i.test(removed.error ?? '')) this.live.delete(name);
    return removed.outcome;
  }

  /** A VolumeSnapshot to restore from, or undefined when there is none. */
  pick(r: Prng): string | undefined {
    const names = [...this.live];
    return names.length === 0 ? undefined : r.pick(names);
  }

  /** A claim of `className` restored from `snapshot` (which may not be ready yet, or be deleted meanwhile). */
  restoredClaim(name: string, className: string, snapshot: string): PersistentVolumeClaim {
    this.counts.restore++;
    return newClaim(name, className, { dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: snapshot } });
  }
}
