/**
 * The snapshot calls of a CSI plugin (CREATE_DELETE_SNAPSHOT), as csi-snapshotter v8 makes them:
 * CreateSnapshot named by the snapshot's deterministic name with the PV's volume handle as its
 * source, DeleteSnapshot (NOT_FOUND is success), ListSnapshots paged (LIST_SNAPSHOTS).
 *
 * A CreateSnapshot whose outcome is unknown (deadline, unavailable, an answer that cannot be read)
 * is PluginError 'InProgress', never "no snapshot": the caller repeats it with the same name, and
 * the driver answers with the snapshot it cut (call.ts classifies every CSI failure).
 *
 * CSI snapshots carry no cluster mark: ListSnapshots is the driver's whole inventory, and the
 * driver names none of them (`snapshotName` is ''). Another cluster may share the driver's backend.
 */
import type { Logger } from 'pino';
import { ANN_SNAPSHOT_DELETION_SECRET_NAME, ANN_SNAPSHOT_DELETION_SECRET_NAMESPACE } from '@pv-controller/kube/snapshot-types.js';
import type { CsiConnection, CsiSnapshot } from '../../csi/types.js';
import type { DeleteSnapshotRequest, SnapshotRequest, VolumeSnapshotInfo } from '../api/capabilities/snapshot.js';
import { PluginError } from '../api/errors.js';
import { allPages, callOptions, csiCall, isNotFound } from './call.js';
import { createSnapshotParameters, snapshotterSecretRef } from './snapshot-params.js';
import { secretData, type SecretReader, type SecretRef } from './secrets.js';

export interface SnapshotContext {
  conn: CsiConnection;
  driver: string;
  secrets: SecretReader;
  timeoutMs: number;
  logger: Logger;
  /** The driver lists LIST_SNAPSHOTS. */
  canList: boolean;
}

/** The volume handle of a PV of this driver; PluginError 'InvalidParameter' for any other PV. */
function sourceVolumeId(driver: string, req: SnapshotRequest): string {
  const csi = req.pv.spec.csi;
  const handle = csi?.volumeHandle;
  if (csi?.driver !== driver || typeof handle !== 'string' || handle === '') {
    throw new PluginError('InvalidParameter', `PV "${req.pv.metadata.name ?? ''}" is no CSI volume of ${driver}: cannot snapshot it`, false);
  }
  return handle;
}

/** RFC 3339 creation time, else now (csi-snapshotter records the time of its answer when the driver gives none). */
function createdAtOf(snapshot: CsiSnapshot): Date {
  const at = snapshot.creationTime === undefined ? Number.NaN : Date.parse(snapshot.creationTime);
  return Number.isNaN(at) ? new Date() : new Date(at);
}

export function snapshotInfoOf(snapshotName: string, snapshot: CsiSnapshot): VolumeSnapshotInfo {
  return {
    snapshotName,
    snapshotId: snapshot.snapshotId,
    sourceVolumeId: snapshot.sourceVolumeId,
    sizeBytes: snapshot.sizeBytes < 0n ? 0n : snapshot.sizeBytes,
    createdAt: createdAtOf(snapshot),
    readyToUse: snapshot.readyToUse,
  };
}

export async function createCsiSnapshot(c: SnapshotContext, req: SnapshotRequest): Promise<VolumeSnapshotInfo> {
  const volumeId = sourceVolumeId(c.driver, req);
  const ctx = { contentName: req.snapshot.contentName, snapshot: { name: req.snapshot.name, namespace: req.snapshot.namespace } };
  const parameters = createSnapshotParameters(req.parameters, ctx);
  const secrets = await secretData(c.secrets, snapshotterSecretRef(req.parameters, ctx), 'snapshotter');
  const answer = await csiCall(`CreateSnapshot ${req.snapshotName}`, () =>
    c.conn.controller.createSnapshot({ sourceVolumeId: volumeId, name: req.snapshotName, secrets, parameters }, callOptions(c.timeoutMs, req.signal)),
  );
  if (answer.snapshotId === '') {
    // The driver answered without saying which snapshot it cut: ask again (same name) until it does.
    throw new PluginError('InProgress', `CreateSnapshot ${req.snapshotName}: the driver answered with no snapshot id`, true);
  }
  const info = snapshotInfoOf(req.snapshotName, { ...answer, sourceVolumeId: answer.sourceVolumeId || volumeId });
  c.logger.info({ snapshotName: req.snapshotName, snapshotId: info.snapshotId, volumeId, readyToUse: info.readyToUse }, 'CSI snapshot created');
  return info;
}

/**
 * The Secret DeleteSnapshot carries: the content's deletion-secret annotations (both present:
 * neither may be empty, as csi-snapshotter insists), else the class's snapshotter Secret resolved
 * for the content, else none.
 */
function deletionSecretRef(req: DeleteSnapshotRequest): SecretRef | undefined {
  const ann = req.annotations ?? {};
  if (ANN_SNAPSHOT_DELETION_SECRET_NAME in ann && ANN_SNAPSHOT_DELETION_SECRET_NAMESPACE in ann) {
    const name = ann[ANN_SNAPSHOT_DELETION_SECRET_NAME];
    const namespace = ann[ANN_SNAPSHOT_DELETION_SECRET_NAMESPACE];
    if (name === '' || namespace === '') {
      throw new PluginError('InvalidParameter', `the content's ${ANN_SNAPSHOT_DELETION_SECRET_NAME} / -namespace annotations name no secret (an empty value)`, false);
    }
    return { name, namespace };
  }
  if (!req.parameters) return undefined;
  return snapshotterSecretRef(req.parameters, { contentName: req.contentName ?? '' });
}

export async function deleteCsiSnapshot(c: SnapshotContext, req: DeleteSnapshotRequest): Promise<void> {
  if (req.snapshotId === '') throw new PluginError('InvalidParameter', 'DeleteSnapshot needs a snapshot id', false);
  const secrets = await secretData(c.secrets, deletionSecretRef(req), 'snapshotter');
  try {
    await csiCall(`DeleteSnapshot ${req.snapshotId}`, () => c.conn.controller.deleteSnapshot({ snapshotId: req.snapshotId, secrets }, callOptions(c.timeoutMs, req.signal)));
  } catch (err) {
    // Gone already: what delete wants.
    if (!(err instanceof PluginError && isNotFound(err.cause))) throw err;
  }
  c.logger.info({ snapshotId: req.snapshotId }, 'CSI snapshot deleted');
}

/** Pages through ListSnapshots (LIST_SNAPSHOTS): the driver's whole inventory (see the note at the top). */
export async function listCsiSnapshots(c: SnapshotContext, pageSize = 500, maxPages = 10_000): Promise<VolumeSnapshotInfo[]> {
  if (!c.canList) throw new PluginError('NotSupported', `CSI driver ${c.driver} does not list LIST_SNAPSHOTS among its controller capabilities`, false);
  const entries = await allPages(
    `ListSnapshots of ${c.driver}`,
    (token) => c.conn.controller.listSnapshots({ maxEntries: pageSize, ...(token ? { startingToken: token } : {}) }, callOptions(c.timeoutMs, undefined)),
    maxPages,
  );
  return entries.filter((e) => e.snapshotId !== '').map((e) => snapshotInfoOf('', e));
}
