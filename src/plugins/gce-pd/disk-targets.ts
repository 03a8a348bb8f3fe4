/**
 * The GCE plugin's long-running parts: waiting for zone/region operations, deleting a disk
 * (with "attached" reported as InUse), and finding which disks a delete request means.
 */
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import type { WaitPolicy } from '../cloud-common/options.js';
import { isOwnedForBackingName } from '../cloud-common/tags.js';
import { zonesOfVolume } from '../cloud-common/topology.js';
import { waitFor } from '../cloud-common/wait.js';
import type { DeleteRequest } from '../api/core.js';
import { PluginError } from '../api/errors.js';
import type { ComputeClient, GceDisk, GceLocation, GceOperation } from './compute-client.js';
import { tagsOfDescription } from './labels.js';
import { regionOfZone } from './parameters.js';

export type RetryingCall = <T>(what: string, op: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal) => Promise<T>;

/** Operation error codes that may clear up by themselves. */
const TRANSIENT_OPERATION_ERRORS = new Set(['QUOTA_EXCEEDED', 'ZONE_RESOURCE_POOL_EXHAUSTED', 'RESOURCE_NOT_READY']);
const IN_USE_OPERATION_ERROR = 'RESOURCE_IN_USE_BY_ANOTHER_RESOURCE';

export interface DiskRef {
  name: string;
  location: GceLocation;
}

function inUse(name: string, cause?: unknown): PluginError {
  return new PluginError('InUse', `GCE disk ${name} is in use (attached to an instance); not deleted`, true, { cause });
}

export class GceDiskTargets {
  constructor(
    private readonly compute: ComputeClient,
    private readonly call: RetryingCall,
  ) {}

  /** Polls an operation until DONE; an operation that failed is thrown as a PluginError. */
  async waitForOperation(project: string, op: GceOperation, signal: AbortSignal | undefined, wait: WaitPolicy): Promise<GceOperation> {
    const done =
      op.status === 'DONE'
        ? op
        : await waitFor(
            async () => {
              const now = await this.call('operations.get', (s) => this.compute.getOperation(project, op, s), signal);
              return now.status === 'DONE' ? now : undefined;
            },
            { ...wait, what: `GCE operation ${op.name}`, signal },
          );
    if (done.errorCodes.length === 0 || done.errorCodes.includes('RESOURCE_ALREADY_EXISTS')) return done;
    if (done.errorCodes.includes(IN_USE_OPERATION_ERROR)) throw inUse(op.name);
    const retryable = done.errorCodes.some((code) => TRANSIENT_OPERATION_ERRORS.has(code));
    throw new PluginError('Backend', `GCE operation ${op.name} failed: ${done.errorMessage ?? done.errorCodes.join(', ')}`, retryable);
  }

  /** Deletes a disk and waits for the deletion; a missing disk is 'absent'. */
  async deleteDisk(project: string, disk: DiskRef, signal: AbortSignal | undefined, wait: WaitPolicy): Promise<'deleted' | 'absent'> {
    const op = await this.call('disks.delete', (s) => this.compute.deleteDisk(project, disk.location, disk.name, s), signal);
    if (op === undefined) return 'absent';
    try {
      await this.waitForOperation(project, op, signal, wait);
    } catch (err) {
      if (err instanceof PluginError && err.code === 'InUse') throw inUse(disk.name, err);
      throw err;
    }
    return 'deleted';
  }

  /** A disk that failed to create is ours and useless: delete it, and say so. */
  async discardFailed(project: string, disk: GceDisk, signal: AbortSignal | undefined, wait: WaitPolicy): Promise<never> {
    await this.deleteDisk(project, disk, signal, wait);
    throw new PluginError('Backend', `GCE disk ${disk.name} went to status FAILED after creation; it was deleted`, false);
  }

  /**
   * The disks a delete request means. With a PV: the disk it names, in the zone(s) its labels or
   * node affinity record. Without (a claim deleted mid-provision): disks of the backing name
   * anywhere in the project that carry the tag of the cluster the name was made for.
   */
  async forDelete(project: string, req: DeleteRequest, signal: AbortSignal | undefined, csiHandle?: string): Promise<DiskRef[]> {
    const name = req.pv?.spec.gcePersistentDisk?.pdName ?? csiHandle?.split('/').pop() ?? req.backingName;
    const recorded = req.pv === undefined ? undefined : diskOfVolume(req.pv, csiHandle);
    if (recorded) return [recorded];
    const found = await this.call('disks.aggregatedList', (s) => this.compute.aggregatedDisks(project, `name = "${name}"`, s), signal);
    const named = found.filter((disk) => disk.name === name);
    return named.filter((disk) => isOwnedForBackingName(tagsOfDescription(disk.description), name));
  }
}

/**
 * The disk a PV names: a CSI handle `projects/<p>/<zones|regions>/<where>/disks/<name>` says where
 * it is; an in-tree source is in the zone (or, with two zones, the region) its labels or node
 * affinity record.
 */
export function diskOfVolume(pv: PersistentVolume, csiHandle?: string): DiskRef | undefined {
  const handle = /^projects\/[^/]+\/(zones|regions)\/([^/]+)\/disks\/([^/]+)$/.exec(csiHandle ?? '');
  if (handle) return { name: handle[3], location: { scope: handle[1] as 'zones' | 'regions', name: handle[2] } };
  const name = pv.spec.gcePersistentDisk?.pdName;
  const zones = zonesOfVolume(pv);
  if (name === undefined || zones.length === 0) return undefined;
  return zones.length === 1
    ? { name, location: { scope: 'zones', name: zones[0] } }
    : { name, location: { scope: 'regions', name: regionOfZone(zones[0]) } };
}
