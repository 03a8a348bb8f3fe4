/**
 * Cinder v3 volume snapshots over the plugin's fetch client: POST /snapshots named by the
 * snapshot name with the tags as metadata (as the volumes carry them; `force` so an attached
 * volume can be snapshotted, crash-consistent as EBS and GCE snapshots are). Cinder names are not
 * unique and a create carries no idempotency token, so every attempt first looks the snapshot up
 * by its name and this cluster's metadata: a retry after a lost answer finds it. creating →
 * readyToUse false, available → true, error → deleted and cut again; DELETE, then read until it is
 * gone. The handle is the snapshot's UUID.
 */
import { TAG_AWS_NAME } from '@pv-controller/kube/annotations.js';
import type { SnapshotRequest } from '../api/capabilities/snapshot.js';
import { PluginError } from '../api/errors.js';
import { asRecord, asString, asWholeNumber, CloudHttpError, malformedAnswer } from '../cloud-common/http.js';
import type { WaitPolicy } from '../cloud-common/options.js';
import type { CloudSnapshot, SnapshotBackend } from '../cloud-common/snapshots.js';
import { isOwnedByCluster, snapshotTags } from '../cloud-common/tags.js';
import { waitFor } from '../cloud-common/wait.js';
import type { CinderClient } from './cinder-client.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CINDER = 'Cinder';

export function isCinderSnapshotId(id: string): boolean {
  return UUID.test(id);
}

function toSnapshot(raw: unknown): CloudSnapshot {
  const s = asRecord(raw);
  const id = asString(s?.id);
  if (!s || !id) throw malformedAnswer(CINDER, `a snapshot without an id: ${JSON.stringify(raw)?.slice(0, 200)}`);
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(asRecord(s.metadata) ?? {})) if (typeof value === 'string') metadata[key] = value;
  const status = asString(s.status) ?? 'unknown';
  const created = Date.parse(asString(s.created_at) ?? '');
  return {
    id,
    name: asString(s.name) ?? '',
    sourceVolumeId: asString(s.volume_id) ?? '',
    sizeGiB: asWholeNumber(s.size) ?? 0,
    createdAt: Number.isNaN(created) ? new Date(0) : new Date(created),
    ready: status === 'available',
    failed: status === 'error',
    tags: metadata,
  };
}

export class CinderSnapshots implements SnapshotBackend {
  readonly noun = 'Cinder snapshot';

  constructor(
    private readonly cinder: CinderClient,
    private readonly wait: WaitPolicy,
  ) {}

  owns(id: string): boolean {
    return isCinderSnapshotId(id);
  }

  async describe(id: string, signal: AbortSignal): Promise<CloudSnapshot | undefined> {
    try {
      return toSnapshot(asRecord(await this.cinder.call('GET', `/snapshots/${encodeURIComponent(id)}`, signal))?.snapshot);
    } catch (err) {
      if (err instanceof CloudHttpError && err.status === 404) return undefined;
      throw err;
    }
  }

  /** Snapshots (with details), by name when given; metadata is checked by the caller. */
  private list(name: string | undefined, signal: AbortSignal): Promise<CloudSnapshot[]> {
    return this.cinder.listAll('snapshots', new URLSearchParams(name === undefined ? {} : { name }), toSnapshot, signal);
  }

  async findOwned(req: SnapshotRequest, signal: AbortSignal): Promise<CloudSnapshot[]> {
    const named = await this.list(req.snapshotName, signal);
    return named.filter((s) => s.name === req.snapshotName && isOwnedByCluster(s.tags, req.clusterName));
  }

  listOfCluster(clusterName: string, signal: AbortSignal): Promise<CloudSnapshot[]> {
    return this.list(undefined, signal).then((all) => all.filter((s) => isOwnedByCluster(s.tags, clusterName)));
  }

  async cut(req: SnapshotRequest, volumeId: string, signal: AbortSignal): Promise<CloudSnapshot> {
    const metadata = snapshotTags(req);
    delete metadata[TAG_AWS_NAME]; // the snapshot's own name
    const body = { snapshot: { volume_id: volumeId, name: req.snapshotName, description: `VolumeSnapshot ${req.snapshot.namespace}/${req.snapshot.name}`, metadata, force: true } };
    return toSnapshot(asRecord(await this.cinder.call('POST', '/snapshots', signal, body))?.snapshot);
  }

  /**
   * Starts deleting the snapshot and answers 'deleted' once it is gone (a wait that runs out is
   * retryable); a snapshot Cinder will not delete now (volumes being made from it, a status in
   * flux) is InUse.
   */
  async remove(id: string, signal: AbortSignal): Promise<'deleted' | 'absent'> {
    try {
      await this.cinder.call('DELETE', `/snapshots/${encodeURIComponent(id)}`, signal);
    } catch (err) {
      if (err instanceof CloudHttpError && err.status === 404) return 'absent';
      if (err instanceof CloudHttpError && err.status === 400) {
        throw new PluginError('InUse', `Cinder snapshot ${id} cannot be deleted now: ${err.message}`, true, { cause: err });
      }
      throw err;
    }
    return waitFor(async () => ((await this.describe(id, signal)) === undefined ? 'deleted' : undefined), { ...this.wait, what: `Cinder snapshot ${id} to be deleted`, signal });
  }
}
