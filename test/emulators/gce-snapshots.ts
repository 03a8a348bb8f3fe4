/**
 * The snapshot half of the GCE emulator: global snapshots of the project (insert from a disk,
 * get, list with a label filter, delete). A new snapshot goes CREATING → UPLOADING → READY (or
 * `statusAfterCreate`), one step per time it is read; a deleted one is DELETING for one more read,
 * then gone. Compute Engine refuses to delete a snapshot while a disk is being created from it
 * (resourceInUseByAnotherResource): `inUseBy` says which disk, if any, is.
 */
import { randomUUID } from 'node:crypto';
import { matchesFilter } from './gce-resources.js';

export interface GceSnapshotRecord {
  name: string;
  /** `projects/<p>/zones/<z>/disks/<d>` */
  sourceDisk: string;
  diskSizeGb: number;
  /** CREATING | UPLOADING | READY | FAILED | DELETING */
  status: string;
  labels: Record<string, string>;
  description?: string;
  creationTimestamp: string;
}

export class GceSnapshotError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

const STAGES = ['CREATING', 'UPLOADING'];

export class GceSnapshots {
  /** Status a snapshot reaches after CREATING and UPLOADING (set FAILED to fail them). */
  statusAfterCreate: 'READY' | 'FAILED' = 'READY';
  private readonly store = new Map<string, GceSnapshotRecord>();

  constructor(private readonly project: string) {}

  all(): GceSnapshotRecord[] {
    return [...this.store.values()].map((s) => structuredClone(s));
  }

  /** Puts a snapshot on the backend directly (another cluster's, or one a person made). */
  add(fields: Partial<GceSnapshotRecord> & { name: string }): GceSnapshotRecord {
    const snapshot: GceSnapshotRecord = { sourceDisk: '', diskSizeGb: 10, status: 'READY', labels: {}, creationTimestamp: new Date().toISOString(), ...fields };
    this.store.set(snapshot.name, snapshot);
    return structuredClone(snapshot);
  }

  /** The snapshot a disk is restored from: it must exist and be READY. */
  usable(name: string): GceSnapshotRecord {
    const snapshot = this.store.get(name);
    if (!snapshot) throw this.notFound(name);
    if (snapshot.status !== 'READY') throw new GceSnapshotError(400, 'resourceNotReady', `The resource 'projects/${this.project}/global/snapshots/${name}' is not ready`);
    return snapshot;
  }

  private notFound(name: string): GceSnapshotError {
    return new GceSnapshotError(404, 'notFound', `The resource 'projects/${this.project}/global/snapshots/${name}' was not found`);
  }

  insert(body: Record<string, unknown>, disk: (path: string) => { sizeGb: number } | undefined): unknown {
    const name = String(body.name ?? '');
    if (!/^[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$/.test(name)) throw new GceSnapshotError(400, 'invalid', `Invalid value for field 'resource.name': '${name}'`);
    if (this.store.has(name)) throw new GceSnapshotError(409, 'alreadyExists', `The resource 'projects/${this.project}/global/snapshots/${name}' already exists`);
    const sourceDisk = String(body.sourceDisk ?? '');
    const source = disk(sourceDisk);
    if (!source) throw new GceSnapshotError(404, 'notFound', `The resource '${sourceDisk}' was not found`);
    this.add({
      name,
      sourceDisk,
      diskSizeGb: source.sizeGb,
      status: STAGES[0],
      labels: (body.labels ?? {}) as Record<string, string>,
      ...(typeof body.description === 'string' ? { description: body.description } : {}),
    });
    return { kind: 'compute#operation', name: `operation-${randomUUID()}`, status: 'RUNNING', selfLink: `projects/${this.project}/global/operations/x` };
  }

  /** Reads a snapshot, moving a new one on by one stage and a deleted one out. */
  get(name: string): GceSnapshotRecord {
    const snapshot = this.store.get(name);
    if (!snapshot) throw this.notFound(name);
    this.advance(snapshot);
    if (!this.store.has(name)) throw this.notFound(name);
    return snapshot;
  }

  private advance(s: GceSnapshotRecord): void {
    if (s.status === 'DELETING') this.store.delete(s.name);
    else if (STAGES.includes(s.status)) s.status = STAGES[STAGES.indexOf(s.status) + 1] ?? this.statusAfterCreate;
  }

  list(filter: string): GceSnapshotRecord[] {
    const found = [...this.store.values()].filter((s) => matchesFilter(s, filter));
    found.forEach((s) => this.advance(s));
    return found.filter((s) => this.store.has(s.name));
  }

  delete(name: string, inUseBy: string | undefined): unknown {
    const snapshot = this.store.get(name);
    if (!snapshot) throw this.notFound(name);
    if (inUseBy !== undefined) {
      throw new GceSnapshotError(400, 'resourceInUseByAnotherResource', `The snapshot resource 'projects/${this.project}/global/snapshots/${name}' is already being used by '${inUseBy}'`);
    }
    snapshot.status = 'DELETING';
    return { kind: 'compute#operation', name: `operation-${randomUUID()}`, status: 'RUNNING' };
  }
}

export function snapshotJson(s: GceSnapshotRecord, project: string): Record<string, unknown> {
  const base = `https://www.googleapis.com/compute/v1`;
  return {
    kind: 'compute#snapshot',
    name: s.name,
    status: s.status,
    sourceDisk: `${base}/${s.sourceDisk}`,
    diskSizeGb: String(s.diskSizeGb),
    storageBytes: String(s.diskSizeGb * 1024 ** 3),
    labels: s.labels,
    creationTimestamp: s.creationTimestamp,
    selfLink: `${base}/projects/${project}/global/snapshots/${s.name}`,
    ...(s.description === undefined ? {} : { description: s.description }),
  };
}
