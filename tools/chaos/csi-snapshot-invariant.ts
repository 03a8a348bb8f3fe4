/**
 * The `csi-snapshots` invariant, over what the CSI driver holds (ListSnapshots, asked of the
 * driver, never through the proxy) and the snapshot objects once the run settled:
 * - every snapshot the driver holds belongs to exactly one VolumeSnapshotContent of the driver
 *   (its `status.snapshotHandle`, or `spec.source.snapshotHandle` for a pre-provisioned one) —
 *   or is being deleted (that content carries a deletionTimestamp), or is being cut (no content
 *   names it yet, but the CreateSnapshot name, `snapshot-<uid>` or ours `<cluster>-snapshot-<uid>`, is that of a VolumeSnapshot
 *   whose content is still waiting for its handle);
 * - every ready VolumeSnapshot's content exists and names a snapshot the driver holds.
 */
import { SNAPSHOT_BACKEND_NAME_PREFIX, type VolumeSnapshot, type VolumeSnapshotContent } from '@pv-controller/kube/snapshot-types.js';

/** One snapshot the driver holds, and the CreateSnapshot name that made it where the driver's log says. */
export interface DriverSnapshot {
  id: string;
  sourceVolumeId: string;
  name?: string;
}

export interface CsiSnapshotsInput {
  driver: string;
  driverSnapshots: DriverSnapshot[];
  contents: VolumeSnapshotContent[];
  snapshots: VolumeSnapshot[];
}

export interface CsiSnapshotsResult {
  checked: number;
  violations: string[];
}

/** The driver snapshot a content names ('' while it names none). */
export function contentHandle(c: VolumeSnapshotContent): string {
  return c.status?.snapshotHandle ?? c.spec.source.snapshotHandle ?? '';
}

const contentName = (c: VolumeSnapshotContent): string => c.metadata.name ?? '';

function describe(s: DriverSnapshot): string {
  return `driver snapshot ${s.id} (of volume ${s.sourceVolumeId}${s.name !== undefined ? `, ${s.name}` : ''})`;
}

/**
 * The VolumeSnapshot uid a CreateSnapshot name was made for: external-snapshotter's
 * `snapshot-<uid>`, or ours, `<cluster>-snapshot-<uid>` (naming.ts snapshotBackendName).
 */
export function snapshotUidOf(name: string): string | undefined {
  const m = new RegExp(`(?:^|-)${SNAPSHOT_BACKEND_NAME_PREFIX}([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$`).exec(name);
  return m?.[1];
}

/** Contents still waiting for their handle, by the uid of the VolumeSnapshot they were made for. */
function awaitingHandle(contents: VolumeSnapshotContent[]): Set<string> {
  return new Set(contents.filter((c) => contentHandle(c) === '' && c.spec.volumeSnapshotRef.uid).map((c) => c.spec.volumeSnapshotRef.uid ?? ''));
}

function checkDriverSnapshots(s: CsiSnapshotsInput, ours: VolumeSnapshotContent[], out: CsiSnapshotsResult): void {
  const byHandle = new Map<string, VolumeSnapshotContent[]>();
  for (const c of ours) {
    const h = contentHandle(c);
    if (h !== '') byHandle.set(h, [...(byHandle.get(h) ?? []), c]);
  }
  const cutting = awaitingHandle(ours);
  for (const snap of s.driverSnapshots) {
    out.checked++;
    const naming = byHandle.get(snap.id) ?? [];
    if (naming.length > 1) {
      out.violations.push(`${describe(snap)} belongs to ${naming.length} VolumeSnapshotContents: ${naming.map(contentName).join(', ')}`);
    } else if (naming.length === 0) {
      const uid = snap.name !== undefined ? snapshotUidOf(snap.name) : undefined;
      if (uid !== undefined && cutting.has(uid)) continue;
      out.violations.push(`${describe(snap)} belongs to no VolumeSnapshotContent and is not being cut for one: leaked`);
    }
  }
}

function checkReadySnapshots(s: CsiSnapshotsInput, ours: VolumeSnapshotContent[], out: CsiSnapshotsResult): void {
  const held = new Set(s.driverSnapshots.map((d) => d.id));
  const byName = new Map(s.contents.map((c) => [contentName(c), c]));
  for (const vs of s.snapshots) {
    if (vs.status?.readyToUse !== true) continue;
    out.checked++;
    const who = `ready VolumeSnapshot ${vs.metadata.namespace ?? ''}/${vs.metadata.name ?? ''}`;
    const bound = vs.status.boundVolumeSnapshotContentName ?? vs.spec.source.volumeSnapshotContentName ?? '';
    const content = byName.get(bound);
    if (!content) {
      out.violations.push(`${who} is bound to content "${bound}", which does not exist`);
    } else if (ours.includes(content) && !held.has(contentHandle(content))) {
      out.violations.push(`${who}: its content ${bound} names driver snapshot "${contentHandle(content)}", which the driver does not hold`);
    }
  }
}

export function checkCsiSnapshots(s: CsiSnapshotsInput): CsiSnapshotsResult {
  const out: CsiSnapshotsResult = { checked: 0, violations: [] };
  const ours = s.contents.filter((c) => c.spec.driver === s.driver);
  checkDriverSnapshots(s, ours, out);
  checkReadySnapshots(s, ours, out);
  return out;
}
