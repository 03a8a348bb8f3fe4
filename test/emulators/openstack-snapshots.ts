/**
 * The snapshot half of the OpenStack emulator: Cinder v3 volume snapshots (create from a volume,
 * list/detail with a name filter and markers, get, delete). A new snapshot is `creating` for
 * `creatingPolls` reads, then `available` (or `statusAfterCreate`); a deleted one is `deleting`
 * for one more read, then gone. Cinder refuses to delete a snapshot that is not available or
 * error, and — as its RBD and other copy-on-write backends do — one a volume is still being created
 * from (`dependentVolume` names it, if any).
 */
import { randomUUID } from 'node:crypto';

export interface CinderSnapshotRecord {
  id: string;
  name: string;
  volumeId: string;
  size: number;
  status: string;
  metadata: Record<string, string>;
  description: string;
  createdAt: string;
}

export class CinderSnapshotError extends Error {
  constructor(
    readonly status: number,
    readonly kind: string,
    message: string,
  ) {
    super(message);
  }
}

export class CinderSnapshots {
  /** Status a snapshot reaches after `creatingPolls` reads (set 'error' to fail them). */
  statusAfterCreate: 'available' | 'error' = 'available';
  private readonly store = new Map<string, CinderSnapshotRecord>();
  private readonly pollsLeft = new Map<string, number>();

  constructor(private readonly creatingPolls: number) {}

  all(): CinderSnapshotRecord[] {
    return [...this.store.values()].map((s) => structuredClone(s));
  }

  add(fields: Partial<CinderSnapshotRecord> & { volumeId: string }): CinderSnapshotRecord {
    const snapshot: CinderSnapshotRecord = { id: randomUUID(), name: '', size: 1, status: 'available', metadata: {}, description: '', createdAt: new Date().toISOString(), ...fields };
    this.store.set(snapshot.id, snapshot);
    return structuredClone(snapshot);
  }

  find(id: string): CinderSnapshotRecord {
    const snapshot = this.store.get(id);
    if (!snapshot) throw new CinderSnapshotError(404, 'itemNotFound', `Snapshot ${id} could not be found.`);
    return snapshot;
  }

  /** The snapshot a volume is restored from: it must be available. */
  usable(id: string): CinderSnapshotRecord {
    const snapshot = this.find(id);
    if (snapshot.status !== 'available') throw new CinderSnapshotError(400, 'badRequest', `Invalid snapshot: Originating snapshot status must be one of 'available' values`);
    return snapshot;
  }

  create(request: Record<string, unknown>, volume: { id: string; size: number; status: string } | undefined): CinderSnapshotRecord {
    if (!volume) throw new CinderSnapshotError(404, 'itemNotFound', `Volume ${String(request.volume_id)} could not be found.`);
    if (volume.status !== 'available' && !(volume.status === 'in-use' && request.force === true)) {
      throw new CinderSnapshotError(400, 'badRequest', `Invalid volume: Volume ${volume.id} status must be available, but current status is: ${volume.status}.`);
    }
    const snapshot = this.add({
      volumeId: volume.id,
      name: typeof request.name === 'string' ? request.name : '',
      size: volume.size,
      status: 'creating',
      metadata: (request.metadata ?? {}) as Record<string, string>,
      description: typeof request.description === 'string' ? request.description : '',
    });
    this.pollsLeft.set(snapshot.id, this.creatingPolls);
    return this.find(snapshot.id);
  }

  /** Moves a creating snapshot on by one read, and a deleting one out. */
  advance(s: CinderSnapshotRecord): void {
    if (s.status === 'deleting') {
      this.store.delete(s.id);
      return;
    }
    if (s.status !== 'creating') return;
    const left = this.pollsLeft.get(s.id) ?? 0;
    if (left <= 0) s.status = this.statusAfterCreate;
    else this.pollsLeft.set(s.id, left - 1);
  }

  get(id: string): CinderSnapshotRecord {
    const snapshot = this.find(id);
    this.advance(snapshot);
    return this.find(id);
  }

  list(query: URLSearchParams): CinderSnapshotRecord[] {
    const name = query.get('name');
    const limit = Number(query.get('limit') ?? 1000);
    const marker = query.get('marker');
    const all = [...this.store.values()].filter((s) => name === null || s.name === name).sort((a, b) => a.id.localeCompare(b.id));
    all.forEach((s) => this.advance(s));
    const live = all.filter((s) => this.store.has(s.id));
    const start = marker ? live.findIndex((s) => s.id === marker) + 1 : 0;
    return live.slice(start, start + limit);
  }

  delete(id: string, dependentVolume: string | undefined): void {
    const snapshot = this.find(id);
    if (!['available', 'error'].includes(snapshot.status)) {
      throw new CinderSnapshotError(400, 'badRequest', `Invalid snapshot: Snapshot status must be available or error, but current status is: ${snapshot.status}.`);
    }
    if (dependentVolume !== undefined) {
      throw new CinderSnapshotError(400, 'badRequest', `Invalid snapshot: Snapshot ${id} is busy: volume ${dependentVolume} is being created from it.`);
    }
    snapshot.status = 'deleting';
  }
}

export function snapshotJson(s: CinderSnapshotRecord): unknown {
  return { id: s.id, name: s.name, volume_id: s.volumeId, size: s.size, status: s.status, metadata: s.metadata, description: s.description, created_at: s.createdAt };
}
