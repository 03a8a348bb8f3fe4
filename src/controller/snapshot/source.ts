/**
 * Where a snapshot comes from: a VolumeSnapshot's source claim and its bound volume, the driver and
 * handle that name that volume to a VolumeSnapshotContent, the class (named or the driver's
 * default), and back from a content to the volume and the plugin that cuts it.
 *
 * A CSI volume is named as external-snapshotter names it (spec.csi.driver, spec.csi.volumeHandle).
 * A volume of one of our own plugins (host-path, nfs-subdir, the clouds) has no CSI handle: its
 * driver is the plugin's name and its handle is the PV's name, which the cluster keeps unique.
 */
import { ANN_PROVISIONED_BY } from '@pv-controller/kube/annotations.js';
import {
  ANN_DEFAULT_SNAPSHOT_CLASS,
  SNAPSHOT_CONTENT_NAME_PREFIX,
  type VolumeSnapshot,
  type VolumeSnapshotClass,
  type VolumeSnapshotContent,
} from '@pv-controller/kube/snapshot-types.js';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { canSnapshot, type Snapshotter } from '../../plugins/api/capabilities/snapshot.js';
import type { VolumePlugin } from '../../plugins/api/core.js';
import type { PluginRegistry } from '../../plugins/registry.js';
import type { SnapshotDeps } from './deps.js';

export type SnapshotPlugin = VolumePlugin & Snapshotter;

export const snapshotKey = (vs: VolumeSnapshot): string => `${vs.metadata.namespace ?? ''}/${vs.metadata.name ?? ''}`;

/** `snapcontent-<VolumeSnapshot uid>`: the one content a dynamic snapshot gets. */
export const dynamicContentName = (vs: VolumeSnapshot): string => `${SNAPSHOT_CONTENT_NAME_PREFIX}${vs.metadata.uid ?? ''}`;

/** A failure that upstream reports with this message (the caller wraps it as upstream does). */
export class SnapshotInputError extends Error {
  override readonly name = 'SnapshotInputError';
}

/** The source claim from the cache; SnapshotInputError when it is not there. */
export function sourceClaim(deps: SnapshotDeps, vs: VolumeSnapshot): PersistentVolumeClaim {
  const name = vs.spec.source.persistentVolumeClaimName;
  if (!name) throw new SnapshotInputError('the snapshot source PVC name is not specified');
  const pvc = deps.ctx.claims.get(`${vs.metadata.namespace ?? ''}/${name}`);
  if (!pvc) throw new SnapshotInputError(`failed to retrieve PVC ${name} from the lister: "persistentvolumeclaim \\"${name}\\" not found"`);
  return pvc;
}

/** The volume the source claim is bound to, both sides checked (upstream's getVolumeFromVolumeSnapshot). */
export async function sourceVolume(deps: SnapshotDeps, vs: VolumeSnapshot): Promise<{ pvc: PersistentVolumeClaim; pv: PersistentVolume }> {
  const pvc = sourceClaim(deps, vs);
  if (pvc.status?.phase !== 'Bound' || !pvc.spec.volumeName) {
    throw new SnapshotInputError(`the PVC ${pvc.metadata.name} is not yet bound to a PV, will not attempt to take a snapshot`);
  }
  const pv = deps.ctx.volumes.get(pvc.spec.volumeName) ?? (await deps.ctx.api.getVolume(pvc.spec.volumeName));
  if (!pv) throw new SnapshotInputError(`failed to retrieve PV ${pvc.spec.volumeName} from the API server: "persistentvolumes \\"${pvc.spec.volumeName}\\" not found"`);
  const ref = pv.spec.claimRef;
  if (!ref || ref.name !== pvc.metadata.name || ref.namespace !== pvc.metadata.namespace || (ref.uid && ref.uid !== pvc.metadata.uid)) {
    throw new SnapshotInputError('claim in dataSource not bound or invalid');
  }
  return { pvc, pv };
}

/** A PV's CSI source, typed for the two fields read here. */
export function csiOf(pv: PersistentVolume): { driver?: string; volumeHandle?: string } | undefined {
  const csi = pv.spec.csi as { driver?: unknown; volumeHandle?: unknown } | undefined;
  if (!csi) return undefined;
  return { ...(typeof csi.driver === 'string' ? { driver: csi.driver } : {}), ...(typeof csi.volumeHandle === 'string' ? { volumeHandle: csi.volumeHandle } : {}) };
}

/** The driver a volume's snapshots are cut by: its CSI driver, else the plugin that owns it (or names itself its provisioner). */
export function volumeDriver(pv: PersistentVolume, plugins: PluginRegistry): string | undefined {
  return csiOf(pv)?.driver ?? plugins.forVolume(pv)?.name ?? pv.metadata.annotations?.[ANN_PROVISIONED_BY];
}

/** The handle a content names the volume by (see the file's comment). */
export function volumeHandle(pv: PersistentVolume): string {
  return csiOf(pv)?.volumeHandle ?? pv.metadata.name ?? '';
}

/** The class a dynamic snapshot is cut with: the one it names, else the single default of its volume's driver. */
export function defaultClassFor(deps: SnapshotDeps, driver: string): VolumeSnapshotClass {
  const defaults = deps.stores.classes.list().filter((c) => c.metadata.annotations?.[ANN_DEFAULT_SNAPSHOT_CLASS] === 'true' && c.driver === driver);
  if (defaults.length === 0) throw new SnapshotInputError('cannot find default snapshot class');
  if (defaults.length > 1) throw new SnapshotInputError(`${defaults.length} default snapshot classes were found`);
  return defaults[0];
}

/** The plugin of this process that cuts snapshots for `driver`, if any. */
export function snapshotPluginFor(plugins: PluginRegistry, driver: string): SnapshotPlugin | undefined {
  return plugins.withCapability(canSnapshot).find((p) => p.name === driver);
}

/** The PV a dynamic content names, when it exists and its driver's plugin here owns it. */
export function contentVolume(deps: SnapshotDeps, content: VolumeSnapshotContent, plugin: SnapshotPlugin): PersistentVolume | undefined {
  const handle = content.spec.source.volumeHandle;
  if (!handle) return undefined;
  const named = deps.ctx.volumes.get(handle);
  const pv =
    named && !named.spec.csi
      ? named
      : deps.ctx.volumes.list().find((v) => csiOf(v)?.driver === content.spec.driver && csiOf(v)?.volumeHandle === handle);
  return pv && plugin.handles(pv) ? pv : undefined;
}
