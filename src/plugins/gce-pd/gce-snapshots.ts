/**
 * GCE persistent disk snapshots (global resources of the project) over the Compute REST API:
 * snapshots.insert from the disk, named by the snapshot name (unique per project, so the name is
 * the idempotency key: an insert that races an earlier, lost one ends in 409 and the snapshot is
 * read instead), with labels and a description carrying the tags as the disks do — the
 * description is what "is this ours?" trusts; CREATING / UPLOADING → readyToUse false, READY →
 * true, FAILED → deleted and cut again; snapshots.delete, then read until it is gone. Its handle
 * is `projects/<project>/global/snapshots/<name>`, as the GCE PD CSI driver's.
 */
import { randomUUID } from 'node:crypto';
import { TAG_CLUSTER_OWNED } from '@pv-controller/kube/annotations.js';
import type { SnapshotRequest } from '../api/capabilities/snapshot.js';
import { PluginError } from '../api/errors.js';
import { asRecord, asString, asWholeNumber, CloudHttpError, malformedAnswer, requireNewPageMarker } from '../cloud-common/http.js';
import type { WaitPolicy } from '../cloud-common/options.js';
import type { CloudSnapshot, SnapshotBackend } from '../cloud-common/snapshots.js';
import { waitFor } from '../cloud-common/wait.js';
import { clusterTagKey, isOwnedByCluster, snapshotTags } from '../cloud-common/tags.js';
import { type ComputeClient, resourcePath } from './compute-client.js';
import { descriptionForTags, labelKeyOf, labelsForTags, tagsOfDescription } from './labels.js';

const NAME = '[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?';
const HANDLE = new RegExp(`^projects/([a-z][-a-z0-9]{4,28}[a-z0-9])/global/snapshots/(${NAME})$`);
const SNAPSHOT_NAME = new RegExp(`^${NAME}$`);
const COMPUTE = 'the Compute API';

/** `projects/<project>/global/snapshots/<name>` (a project id and an RFC 1035 name): the only handles this plugin acts on. */
export function parseGceSnapshotHandle(handle: string): { project: string; name: string } | undefined {
  const m = HANDLE.exec(handle);
  return m ? { project: m[1], name: m[2] } : undefined;
}

function toSnapshot(raw: unknown, project: string): CloudSnapshot {
  const s = asRecord(raw);
  const name = asString(s?.name);
  if (!s || !name) throw malformedAnswer(COMPUTE, `a snapshot without a name: ${JSON.stringify(raw)?.slice(0, 200)}`);
  const status = asString(s.status) ?? 'UNKNOWN';
  const created = Date.parse(asString(s.creationTimestamp) ?? '');
  return {
    id: `projects/${project}/global/snapshots/${name}`,
    name,
    sourceVolumeId: resourcePath(s.sourceDisk),
    sizeGiB: asWholeNumber(s.diskSizeGb) ?? 0,
    createdAt: Number.isNaN(created) ? new Date(0) : new Date(created),
    ready: status === 'READY',
    failed: status === 'FAILED',
    tags: tagsOfDescription(asString(s.description)),
  };
}

export class GceSnapshots implements SnapshotBackend {
  readonly noun = 'GCE snapshot';

  constructor(
    private readonly compute: ComputeClient,
    private readonly projectId: () => Promise<string>,
    private readonly wait: WaitPolicy,
  ) {}

  owns(id: string): boolean {
    return parseGceSnapshotHandle(id) !== undefined;
  }

  /** The snapshot's name in this plugin's project; PluginError 'Unsafe' for a handle of another project. */
  private async nameIn(handle: string): Promise<{ project: string; name: string }> {
    const parsed = parseGceSnapshotHandle(handle);
    const project = await this.projectId();
    if (!parsed || parsed.project !== project) throw new PluginError('Unsafe', `GCE snapshot "${handle}" is not in project ${project}: not touching it`, false);
    return parsed;
  }

  private async get(project: string, name: string, signal: AbortSignal): Promise<CloudSnapshot | undefined> {
    try {
      return toSnapshot(await this.compute.call('GET', `/projects/${encodeURIComponent(project)}/global/snapshots/${encodeURIComponent(name)}`, signal), project);
    } catch (err) {
      if (err instanceof CloudHttpError && err.status === 404) return undefined;
      throw err;
    }
  }

  async describe(id: string, signal: AbortSignal): Promise<CloudSnapshot | undefined> {
    const { project, name } = await this.nameIn(id);
    return this.get(project, name, signal);
  }

  /** The snapshot of that name; one another cluster (or a person) made under it is refused for good. */
  async findOwned(req: SnapshotRequest, signal: AbortSignal): Promise<CloudSnapshot[]> {
    if (!SNAPSHOT_NAME.test(req.snapshotName)) throw new PluginError('InvalidParameter', `"${req.snapshotName}" is not a valid GCE snapshot name`, false);
    const found = await this.get(await this.projectId(), req.snapshotName, signal);
    if (found && !isOwnedByCluster(found.tags, req.clusterName)) {
      throw new PluginError('Backend', `a GCE snapshot named ${req.snapshotName} exists but was not created by cluster "${req.clusterName}"`, false);
    }
    return found ? [found] : [];
  }

  async cut(req: SnapshotRequest, sourceDisk: string, signal: AbortSignal): Promise<CloudSnapshot> {
    const project = await this.projectId();
    const tags = snapshotTags(req);
    const body = { name: req.snapshotName, sourceDisk, description: descriptionForTags(tags), labels: labelsForTags(tags) };
    try {
      await this.compute.call('POST', `/projects/${encodeURIComponent(project)}/global/snapshots?requestId=${randomUUID()}`, signal, body);
    } catch (err) {
      // 409: an earlier insert (whose answer was lost) or a concurrent one got there first.
      if (!(err instanceof CloudHttpError && err.status === 409)) throw err;
    }
    const made = await this.findOwned(req, signal);
    if (made[0] === undefined) throw new PluginError('Transient', `GCE snapshot ${req.snapshotName} is not there yet after its insert`, true);
    return made[0];
  }

  async listOfCluster(clusterName: string, signal: AbortSignal): Promise<CloudSnapshot[]> {
    const project = await this.projectId();
    const out: CloudSnapshot[] = [];
    const tokens = new Set<string>();
    let pageToken: string | undefined;
    do {
      const query = new URLSearchParams({ maxResults: '500', filter: `labels.${labelKeyOf(clusterTagKey(clusterName))} = "${TAG_CLUSTER_OWNED}"` });
      if (pageToken) query.set('pageToken', pageToken);
      const page = asRecord(await this.compute.call('GET', `/projects/${encodeURIComponent(project)}/global/snapshots?${query}`, signal));
      if (Array.isArray(page?.items)) out.push(...page.items.map((item) => toSnapshot(item, project)));
      pageToken = asString(page?.nextPageToken);
      if (pageToken) requireNewPageMarker(COMPUTE, tokens, pageToken);
    } while (pageToken);
    return out;
  }

  /**
   * Starts deleting the snapshot and answers 'deleted' once it is gone (a wait that runs out is
   * retryable); a snapshot a disk is being created from is InUse.
   */
  async remove(id: string, signal: AbortSignal): Promise<'deleted' | 'absent'> {
    const { project, name } = await this.nameIn(id);
    try {
      await this.compute.call('DELETE', `/projects/${encodeURIComponent(project)}/global/snapshots/${encodeURIComponent(name)}`, signal);
    } catch (err) {
      if (err instanceof CloudHttpError && err.status === 404) return 'absent';
      if (err instanceof CloudHttpError && err.reason === 'resourceInUseByAnotherResource') {
        throw new PluginError('InUse', `GCE snapshot ${name} is in use (a disk is being created from it); not deleted`, true, { cause: err });
      }
      throw err;
    }
    return waitFor(async () => ((await this.get(project, name, signal)) === undefined ? 'deleted' : undefined), { ...this.wait, what: `GCE snapshot ${name} to be deleted`, signal });
  }
}
