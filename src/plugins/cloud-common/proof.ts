/**
 * What proves that a cloud volume or snapshot was made by pv-controller for cluster N, from the
 * cloud's answer alone: `orphans --cloud` after the cluster is gone, and a Released volume's time
 * to live (the provenance capability, `provesVolumeFor` below) while it runs. Every part is
 * required; any one alone (a name prefix, the cluster tag) is not proof:
 *
 * - the cluster tag `kubernetes.io/cluster/<N>` = `owned`, and no other cluster's tag;
 * - a volume: the created-for tags our plugins write (`kubernetes.io/created-for/pv/name`,
 *   `…/pvc/name`, `…/pvc/namespace`, all non-empty) and a name that is exactly
 *   `backingName(N, <pv name tag>, <the plugin's name limit>)` (`<N>-dynamic-<pv>`, the prefix
 *   shortened as naming.ts shortens it);
 * - a snapshot: the created-for tags of its VolumeSnapshot and content (all non-empty) and a name
 *   that is exactly `snapshotBackendName(N, <uid>, <limit>)` for a uid of the Kubernetes form.
 */
import {
  TAG_CLUSTER_OWNED,
  TAG_CLUSTER_PREFIX,
  TAG_CREATED_FOR_PV_NAME,
  TAG_CREATED_FOR_PVC_NAME,
  TAG_CREATED_FOR_PVC_NAMESPACE,
  TAG_CREATED_FOR_SNAPSHOT_CONTENT_NAME,
  TAG_CREATED_FOR_SNAPSHOT_NAME,
  TAG_CREATED_FOR_SNAPSHOT_NAMESPACE,
} from '@pv-controller/kube/annotations.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import { backingName, SNAPSHOT_INFIX, snapshotBackendName } from '../naming.js';
import type { CloudSweeper } from './sweep.js';
import type { Tags } from './tags.js';

/** Either the proof's findings (who it was made for), or why there is none. */
export type Proof = { ours: true; pvName?: string; claim: { namespace: string; name: string } } | { ours: false; why: string };

const UID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Why the tags do not name cluster N alone; undefined when they do. */
function clusterProblem(tags: Tags, clusterName: string): string | undefined {
  const own = `${TAG_CLUSTER_PREFIX}${clusterName}`;
  if (tags[own] !== TAG_CLUSTER_OWNED) return `no tag ${own}=${TAG_CLUSTER_OWNED}`;
  const others = Object.keys(tags).filter((key) => key.startsWith(TAG_CLUSTER_PREFIX) && key !== own);
  if (others.length > 0) return `also tagged for another cluster (${others.sort().join(', ')})`;
  return undefined;
}

/** The value of each tag, or the first one missing or empty. */
function required(tags: Tags, keys: string[]): { values: string[] } | { missing: string } {
  const values: string[] = [];
  for (const key of keys) {
    const value = tags[key];
    if (value === undefined || value.trim() === '') return { missing: key };
    values.push(value);
  }
  return { values };
}

/** The name naming.ts would give, or undefined when none fits the limit. */
function expected(make: () => string): string | undefined {
  try {
    return make();
  } catch {
    return undefined;
  }
}

export function proveVolume(volume: { name: string; tags: Tags }, clusterName: string, maxNameLength: number): Proof {
  const problem = clusterProblem(volume.tags, clusterName);
  if (problem !== undefined) return { ours: false, why: problem };
  const found = required(volume.tags, [TAG_CREATED_FOR_PV_NAME, TAG_CREATED_FOR_PVC_NAMESPACE, TAG_CREATED_FOR_PVC_NAME]);
  if ('missing' in found) return { ours: false, why: `tag ${found.missing} missing` };
  const [pvName, namespace, name] = found.values;
  const want = expected(() => backingName(clusterName, pvName, maxNameLength));
  if (want === undefined || volume.name !== want) {
    return { ours: false, why: `name "${volume.name}" is not the one we give PV ${pvName} (${want ?? 'none fits'})` };
  }
  return { ours: true, pvName, claim: { namespace, name } };
}

export function proveSnapshot(snapshot: { name: string; tags: Tags }, clusterName: string, maxNameLength: number): Proof {
  const problem = clusterProblem(snapshot.tags, clusterName);
  if (problem !== undefined) return { ours: false, why: problem };
  const keys = [TAG_CREATED_FOR_SNAPSHOT_NAMESPACE, TAG_CREATED_FOR_SNAPSHOT_NAME, TAG_CREATED_FOR_SNAPSHOT_CONTENT_NAME];
  const found = required(snapshot.tags, keys);
  if ('missing' in found) return { ours: false, why: `tag ${found.missing} missing` };
  const [namespace, name] = found.values;
  const at = snapshot.name.lastIndexOf(SNAPSHOT_INFIX);
  const uid = at < 0 ? '' : snapshot.name.slice(at + SNAPSHOT_INFIX.length);
  const want = UID.test(uid) ? expected(() => snapshotBackendName(clusterName, uid, maxNameLength)) : undefined;
  if (want === undefined || snapshot.name !== want) {
    return { ours: false, why: `name "${snapshot.name}" is not <cluster>-snapshot-<uid> of cluster "${clusterName}"` };
  }
  return { ours: true, claim: { namespace, name } };
}

/**
 * The provenance capability of the cloud plugins (plugins/api/capabilities/provenance.ts): the
 * volume the PV names (`id`, in the sweeper's form), read from the cloud now, carries cluster
 * `clusterName`'s tags, the created-for tag of exactly this PV's name and the name we give it. The
 * tags are written by us at creation and no Kubernetes user can write them; a PV (which a user
 * may write) pointing at another cluster's or another PV's disk proves nothing. A cloud error is
 * no proof (false, asked again at the next sync).
 */
export async function provesVolumeFor(sweeper: CloudSweeper, id: string | undefined, pv: PersistentVolume, clusterName: string): Promise<boolean> {
  const pvName = pv.metadata.name;
  if (id === undefined || id === '' || pvName === undefined || pvName === '') return false;
  let volume;
  try {
    volume = await sweeper.describeVolume(id);
  } catch {
    return false;
  }
  if (volume === undefined || volume.id !== id) return false;
  const proof = proveVolume(volume, clusterName, sweeper.maxNameLength);
  return proof.ours && proof.pvName === pvName;
}
