/**
 * Orphaned backing volumes: disks, directories or cloud volumes that carry this cluster's mark
 * but that nothing in the cluster accounts for — no PersistentVolume refers to them (by the PV's
 * backing name, its volume id or path, or the PV name in the volume's tags) and no claim is in the
 * middle of provisioning them (a claim holding the `pv-controller.io/provisioning` finalizer
 * whose uid yields that backing name).
 *
 * Reading order matters, because provisioning goes "finalizer → backing volume → PV → finalizer
 * released": backing volumes are listed first, then claims, then PVs. A volume in the list was
 * created before the claims were read, so its claim still held the finalizer then, or its PV was
 * created before the PVs were read. Deleting re-reads claims and PVs just before each delete.
 *
 * Stray files are not volumes: files a killed operation left on the backend (a temporary volume
 * record). They are listed beside the orphans and removed by the plugin itself, which knows which
 * of them no operation in progress can own.
 */
import { basename } from 'node:path/posix';
import type { Logger } from 'pino';
import { FINALIZER_PROVISIONING } from '@pv-controller/kube/annotations.js';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { backingName } from '../../plugins/naming.js';
import type { VolumePlugin } from '../../plugins/api/core.js';
import { canListBackingVolumes, type BackingVolume } from '../../plugins/api/capabilities/backing-volumes.js';
import { canSweepStrayFiles, type StrayFile, type StrayFileSweeper } from '../../plugins/api/capabilities/stray-files.js';
import { PV_NAME_PREFIX } from '../provisioner/request.js';

/** Live reads of the cluster's claims and PVs (not a cache: deciding to delete needs the truth). */
export interface ClusterObjects {
  listClaims(): Promise<PersistentVolumeClaim[]>;
  listVolumes(): Promise<PersistentVolume[]>;
}

export interface Orphan {
  /** Provisioner name of the plugin that listed it. */
  plugin: string;
  volume: BackingVolume;
}

export interface PluginListFailure {
  plugin: string;
  message: string;
}

export interface OrphanScan {
  orphans: Orphan[];
  /** Plugins that could list their backing volumes (each gets a count, zero included). */
  scannedPlugins: string[];
  /** Plugins whose listing failed: their orphans are unknown, not zero. */
  failures: PluginListFailure[];
}

export interface FoundStrayFile {
  plugin: string;
  file: StrayFile;
}

export interface StrayFileScan {
  files: FoundStrayFile[];
  failures: PluginListFailure[];
}

export type DeletionOutcome = 'deleted' | 'referenced' | 'still-present' | 'failed';

export interface OrphanDeletion {
  orphan: Orphan;
  outcome: DeletionOutcome;
  /** Who refers to it now (referenced), or what went wrong (failed, still-present). */
  detail?: string;
}

/** What refers to a backing volume, keyed by every string a backing volume may be matched on. */
export type References = Map<string, string>;

/** The backing name `plugin` would use for a PV name, or undefined when it cannot fit. */
function backingNameFor(clusterName: string, pvName: string, plugin: VolumePlugin): string | undefined {
  try {
    return backingName(clusterName, pvName, plugin.maxBackingNameLength);
  } catch {
    return undefined;
  }
}

/** Volume ids and paths a PV's source names, with the bare EBS id and the paths' last parts. */
export function volumeIdsOfPv(pv: PersistentVolume): string[] {
  const { spec } = pv;
  const ids: string[] = [];
  const ebs = spec.awsElasticBlockStore?.volumeID;
  if (ebs) ids.push(ebs, ebs.slice(ebs.lastIndexOf('/') + 1));
  if (spec.gcePersistentDisk?.pdName) ids.push(spec.gcePersistentDisk.pdName);
  if (spec.cinder?.volumeID) ids.push(spec.cinder.volumeID);
  // A migrated volume written with a csi source (a cloud plugin's PV with a VolumeAttributesClass) names its disk there.
  const handle = spec.csi?.['volumeHandle'];
  if (typeof handle === 'string') ids.push(handle, handle.slice(handle.lastIndexOf('/') + 1));
  for (const path of [spec.hostPath?.path, spec.local?.path, spec.nfs?.path]) {
    if (path) ids.push(path, basename(path));
  }
  return ids.filter((id) => id !== '');
}

function add(refs: References, key: string | undefined, referrer: string): void {
  if (key !== undefined && key !== '' && !refs.has(key)) refs.set(key, referrer);
}

/** Everything in the cluster that accounts for a backing volume of `plugin`. */
export function referencesFor(
  plugin: VolumePlugin,
  clusterName: string,
  claims: readonly PersistentVolumeClaim[],
  volumes: readonly PersistentVolume[],
): References {
  const refs: References = new Map();
  for (const pv of volumes) {
    const name = pv.metadata.name ?? '';
    const referrer = `PV "${name}"`;
    add(refs, `pv:${name}`, referrer);
    add(refs, backingNameFor(clusterName, name, plugin), referrer);
    for (const id of volumeIdsOfPv(pv)) add(refs, id, referrer);
  }
  for (const claim of claims) {
    const uid = claim.metadata.uid;
    if (!uid || !(claim.metadata.finalizers ?? []).includes(FINALIZER_PROVISIONING)) continue;
    const referrer = `claim "${claim.metadata.namespace ?? ''}/${claim.metadata.name ?? ''}" (provisioning)`;
    const pvName = `${PV_NAME_PREFIX}${uid}`;
    add(refs, `pv:${pvName}`, referrer);
    add(refs, backingNameFor(clusterName, pvName, plugin), referrer);
  }
  return refs;
}

/** Who refers to `volume`, or undefined when nothing does (it is an orphan). */
export function referrerOf(volume: BackingVolume, refs: References): string | undefined {
  const keys = [volume.backingName, volume.id, basename(volume.id)];
  if (volume.pvName !== undefined) keys.push(`pv:${volume.pvName}`);
  for (const key of keys) {
    const referrer = refs.get(key);
    if (referrer !== undefined) return referrer;
  }
  return undefined;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Lists every plugin's backing volumes of this cluster, then claims, then PVs; returns the orphans. */
export async function findOrphans(
  plugins: readonly VolumePlugin[],
  clusterName: string,
  cluster: ClusterObjects,
): Promise<OrphanScan> {
  const listing = plugins.filter(canListBackingVolumes);
  const listed = await Promise.all(
    listing.map(async (plugin) => {
      try {
        return { plugin, volumes: await plugin.listBackingVolumes(clusterName) };
      } catch (err) {
        return { plugin, error: errorMessage(err) };
      }
    }),
  );
  const claims = await cluster.listClaims();
  const volumes = await cluster.listVolumes();
  const scan: OrphanScan = { orphans: [], scannedPlugins: [], failures: [] };
  for (const entry of listed) {
    if (entry.volumes === undefined) {
      scan.failures.push({ plugin: entry.plugin.name, message: entry.error ?? 'listing failed' });
      continue;
    }
    scan.scannedPlugins.push(entry.plugin.name);
    const refs = referencesFor(entry.plugin, clusterName, claims, volumes);
    for (const volume of entry.volumes) {
      if (referrerOf(volume, refs) === undefined) scan.orphans.push({ plugin: entry.plugin.name, volume });
    }
  }
  scan.orphans.sort((a, b) => a.plugin.localeCompare(b.plugin) || a.volume.backingName.localeCompare(b.volume.backingName));
  return scan;
}

/** Orphans per plugin, every scanned plugin present (0 included), for a gauge. */
export function orphanCountsByPlugin(scan: OrphanScan): Map<string, number> {
  const counts = new Map<string, number>(scan.scannedPlugins.map((name) => [name, 0]));
  for (const orphan of scan.orphans) counts.set(orphan.plugin, (counts.get(orphan.plugin) ?? 0) + 1);
  return counts;
}

/** `findOrphans` reduced to its counts (what `pv_controller_orphaned_volumes{plugin}` publishes). */
export async function countOrphans(
  plugins: readonly VolumePlugin[],
  clusterName: string,
  cluster: ClusterObjects,
): Promise<Map<string, number>> {
  return orphanCountsByPlugin(await findOrphans(plugins, clusterName, cluster));
}

export interface DeleteOrphansOptions {
  logger?: Logger;
  signal?: AbortSignal;
}

/**
 * Deletes each orphan through its plugin (`delete({ backingName })`), one at a time. Just before
 * each delete, claims and PVs are read again and the orphan is skipped if anything refers to it
 * now; after the delete the plugin's listing is asked whether it is really gone.
 */
export async function deleteOrphans(
  orphans: readonly Orphan[],
  plugins: readonly VolumePlugin[],
  clusterName: string,
  cluster: ClusterObjects,
  options: DeleteOrphansOptions = {},
): Promise<OrphanDeletion[]> {
  const results: OrphanDeletion[] = [];
  for (const orphan of orphans) {
    options.signal?.throwIfAborted();
    const plugin = plugins.find((p) => p.name === orphan.plugin);
    results.push(plugin ? await deleteOne(orphan, plugin, clusterName, cluster, options) : { orphan, outcome: 'failed', detail: `plugin "${orphan.plugin}" is not registered` });
  }
  return results;
}

async function deleteOne(
  orphan: Orphan,
  plugin: VolumePlugin,
  clusterName: string,
  cluster: ClusterObjects,
  options: DeleteOrphansOptions,
): Promise<OrphanDeletion> {
  const { volume } = orphan;
  const log = options.logger?.child({ plugin: plugin.name, backingName: volume.backingName, id: volume.id });
  try {
    const claims = await cluster.listClaims();
    const volumes = await cluster.listVolumes();
    const referrer = referrerOf(volume, referencesFor(plugin, clusterName, claims, volumes));
    if (referrer !== undefined) {
      log?.info({ referrer }, 'orphan is referenced now; not deleting it');
      return { orphan, outcome: 'referenced', detail: referrer };
    }
    await plugin.delete({ backingName: volume.backingName, ...(options.signal ? { signal: options.signal } : {}) });
    const left = canListBackingVolumes(plugin) ? await plugin.listBackingVolumes(clusterName) : [];
    if (left.some((v) => v.id === volume.id)) {
      log?.warn('plugin reported the orphan deleted but it is still listed');
      return { orphan, outcome: 'still-present', detail: 'the plugin could not find it by its backing name; delete it by hand' };
    }
    log?.info('orphaned backing volume deleted');
    return { orphan, outcome: 'deleted' };
  } catch (err) {
    log?.warn({ err: errorMessage(err) }, 'deleting orphaned backing volume failed');
    return { orphan, outcome: 'failed', detail: errorMessage(err) };
  }
}

/** Runs `step` on every plugin that has the stray-files capability, collecting what it returns and what failed. */
async function strayFilesOf(
  plugins: readonly VolumePlugin[],
  step: (plugin: VolumePlugin & StrayFileSweeper) => Promise<StrayFile[]>,
): Promise<StrayFileScan> {
  const scan: StrayFileScan = { files: [], failures: [] };
  for (const plugin of plugins.filter(canSweepStrayFiles)) {
    try {
      for (const file of await step(plugin)) scan.files.push({ plugin: plugin.name, file });
    } catch (err) {
      scan.failures.push({ plugin: plugin.name, message: errorMessage(err) });
    }
  }
  return scan;
}

/** The stray files every plugin that can list them knows of. */
export function findStrayFiles(plugins: readonly VolumePlugin[]): Promise<StrayFileScan> {
  return strayFilesOf(plugins, (plugin) => plugin.listStrayFiles());
}

/** Has every plugin remove the stray files no operation in progress can own; returns those removed. */
export async function removeStrayFiles(plugins: readonly VolumePlugin[], logger?: Logger): Promise<StrayFileScan> {
  const scan = await strayFilesOf(plugins, (plugin) => plugin.removeStrayFiles());
  for (const { plugin, file } of scan.files) logger?.info({ plugin, path: file.path }, 'removed a temporary file a killed operation left behind');
  for (const { plugin, message } of scan.failures) logger?.warn({ plugin, err: message }, 'could not remove stray files');
  return scan;
}
