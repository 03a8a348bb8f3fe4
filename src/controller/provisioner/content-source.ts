/**
 * What a new volume is filled from, resolved from the claim's data source just before the
 * provisioning decision (live reads: restore-source.ts, clone-source.ts), and the one plugin call
 * that makes a volume of it. The result rides in ProvisionRequest.contentSource, so a cleanup that
 * repeats the create (CSI) repeats it with the same source.
 */
import type { PersistentVolumeClaim, StorageClass } from '@pv-controller/kube/types.js';
import { canSnapshot } from '../../plugins/api/capabilities/snapshot.js';
import type { ProvisionedVolume, ProvisionRequest, VolumeContentSource, VolumePlugin } from '../../plugins/api/core.js';
import { PluginError } from '../../plugins/api/errors.js';
import type { ApiClient } from '../runtime/context.js';
import type { ModuleRest } from '../runtime/rest-get.js';
import { checkClone, cloneSourceVolume } from './clone-source.js';
import { CLAIM_KIND, SNAPSHOT_KIND, type ClaimDataSource } from './data-source.js';
import { msgSourceProblem } from './data-source-messages.js';
import { checkRestore, readSnapshotObjects, snapshotSourceOf, type SourceCheck } from './restore-source.js';

/** What the sources are read through (ProvisionerDeps has both). */
export interface SourceReaders {
  ctx: { api: ApiClient };
  /** REST access for the snapshot kinds; without it a restore is refused. */
  rest?: ModuleRest;
}

/** The content source for a snapshot or clone claim (undefined for the others), or why it cannot be had now. */
export async function resolveContentSource(
  readers: SourceReaders,
  claim: PersistentVolumeClaim,
  storageClass: StorageClass,
  plugin: VolumePlugin,
  dataSource: ClaimDataSource,
): Promise<SourceCheck<VolumeContentSource | undefined>> {
  if (dataSource.kind === 'snapshot') {
    const read = await readSnapshotObjects(readers.rest, claim.metadata.namespace ?? '', dataSource.name);
    const checked = read.ok ? checkRestore(claim, storageClass, plugin, read.value) : read;
    if (!checked.ok) return { ...checked, message: msgSourceProblem(SNAPSHOT_KIND, dataSource.name, checked.message) };
    return { ok: true, value: { kind: 'snapshot', ...checked.value } };
  }
  if (dataSource.kind === 'clone') {
    const checked = await checkClone(readers.ctx.api, claim, plugin, dataSource.name);
    if (!checked.ok) return { ...checked, message: msgSourceProblem(CLAIM_KIND, dataSource.name, checked.message) };
    return { ok: true, value: { kind: 'volume', source: checked.value.pv } };
  }
  return { ok: true, value: undefined };
}

/**
 * The content source as it can be read now, without the provisioning checks: for a cleanup that
 * repeats the create of a claim deleted mid-restore or mid-clone. Undefined when it is gone.
 */
export async function contentSourceForCleanup(
  readers: SourceReaders,
  claim: PersistentVolumeClaim,
  dataSource: ClaimDataSource,
): Promise<VolumeContentSource | undefined> {
  if (dataSource.kind === 'snapshot') {
    const read = await readSnapshotObjects(readers.rest, claim.metadata.namespace ?? '', dataSource.name);
    const source = read.ok ? snapshotSourceOf(read.value) : undefined;
    return source ? { kind: 'snapshot', ...source } : undefined;
  }
  if (dataSource.kind === 'clone') {
    const pv = await cloneSourceVolume(readers.ctx.api, claim, dataSource.name);
    return pv ? { kind: 'volume', source: pv } : undefined;
  }
  return undefined;
}

/** The plugin call for the request: a plain provision, or a restore or clone of its contentSource. */
export function provisionFromRequest(plugin: VolumePlugin, req: ProvisionRequest): Promise<ProvisionedVolume> {
  const source = req.contentSource;
  if (!source) return plugin.provision(req);
  if (!canSnapshot(plugin)) {
    return Promise.reject(new PluginError('NotSupported', `volume plugin ${plugin.name} cannot fill a volume from a data source`, false));
  }
  if (source.kind === 'volume') return plugin.provisionClone(req, source.source);
  const { kind: _kind, ...snapshot } = source;
  return plugin.provisionFromSnapshot(req, snapshot);
}
