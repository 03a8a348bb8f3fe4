/**
 * From claim + StorageClass + plugin to the plugin's ProvisionRequest, or the reason it cannot be
 * made. Everything checked here is checked before the intent finalizer is written and before the
 * plugin creates anything, so a bad class costs one event and no cleanup.
 */
import { ANN_SELECTED_NODE } from '@pv-controller/kube/annotations.js';
import type { PersistentVolumeClaim, StorageClass, VolumeAttributesClass } from '@pv-controller/kube/types.js';
import { claimRequestBytes } from '@pv-controller/kube/volume-helpers.js';
import { backingName } from '../../plugins/naming.js';
import type { ProvisionRequest, VolumePlugin } from '../../plugins/api/core.js';
import { canModify } from '../../plugins/api/capabilities/modify.js';
import { canSnapshot } from '../../plugins/api/capabilities/snapshot.js';
import { backingGeneration } from './claim-intent.js';
import { claimDataSource } from './data-source.js';
import { msgCannotClone, msgCannotRestore } from './data-source-messages.js';
import { errorText, msgMountOptionsUnsupported, msgProvisionFailed } from './events.js';

export const PV_NAME_PREFIX = 'pvc-';

/** The one name a claim's provisioned PV can have (upstream: "pvc-" + claim UID). */
export function provisionedVolumeName(claim: PersistentVolumeClaim): string {
  const uid = claim.metadata.uid;
  if (!uid) throw new Error(`claim "${claim.metadata.namespace}/${claim.metadata.name}" has no uid`);
  return `${PV_NAME_PREFIX}${uid}`;
}

/** The backing name a plugin uses for this claim's volume: deterministic, so a retry finds it again. */
export function claimBackingName(claim: PersistentVolumeClaim, plugin: VolumePlugin, clusterName: string): string {
  return backingName(clusterName, provisionedVolumeName(claim), plugin.maxBackingNameLength);
}

export type ProvisionPlan =
  | { ok: true; request: ProvisionRequest }
  | { ok: false; message: string };

export interface PlanInput {
  claim: PersistentVolumeClaim;
  storageClass: StorageClass;
  plugin: VolumePlugin;
  clusterName: string;
  /** The VolumeAttributesClass the claim names, read live; undefined when it names none or it does not exist. */
  attributesClass?: VolumeAttributesClass;
}

function refused(message: string): ProvisionPlan {
  return { ok: false, message };
}

/** Checks a claim can be provisioned by `plugin` with this class and builds the request. */
export function planProvision({ claim, storageClass, plugin, clusterName, attributesClass }: PlanInput): ProvisionPlan {
  const className = storageClass.metadata.name ?? '';
  const sourceProblem = dataSourceProblem(claim, plugin);
  if (sourceProblem !== undefined) return refused(msgProvisionFailed(className, sourceProblem));
  // Validation would refuse the PV anyway: mount options on a volume type that has none.
  const mountOptions = storageClass.mountOptions ?? [];
  if (plugin.supportsMountOptions === false && mountOptions.length > 0) return refused(msgMountOptionsUnsupported(className, mountOptions));
  const parameters = { ...(storageClass.parameters ?? {}) };
  const problems = plugin.validateParameters(parameters);
  if (problems.length > 0) {
    const detail = problems.map((p) => `invalid parameter "${p.parameter}": ${p.message}`).join('; ');
    return refused(msgProvisionFailed(className, detail));
  }
  let requestBytes: bigint;
  try {
    requestBytes = claimRequestBytes(claim);
  } catch (err) {
    return refused(msgProvisionFailed(className, `invalid storage request: ${errorText(err)}`));
  }
  const volumeMode = claim.spec.volumeMode ?? 'Filesystem';
  if (volumeMode !== 'Filesystem' && volumeMode !== 'Block') {
    return refused(msgProvisionFailed(className, `unknown volumeMode "${volumeMode}"`));
  }
  const pvName = provisionedVolumeName(claim);
  let name: string;
  try {
    name = backingName(clusterName, pvName, plugin.maxBackingNameLength);
  } catch (err) {
    return refused(msgProvisionFailed(className, errorText(err)));
  }
  const request: ProvisionRequest = {
    backingName: name,
    clusterName,
    pvName,
    claim: {
      name: claim.metadata.name ?? '',
      namespace: claim.metadata.namespace ?? '',
      uid: claim.metadata.uid ?? '',
      labels: { ...(claim.metadata.labels ?? {}) },
      annotations: { ...(claim.metadata.annotations ?? {}) },
    },
    requestBytes,
    accessModes: [...(claim.spec.accessModes ?? [])],
    volumeMode,
    parameters,
    mountOptions: [...(storageClass.mountOptions ?? [])],
  };
  const attributes = attributesFor(claim, plugin, attributesClass);
  if (typeof attributes === 'string') return refused(msgProvisionFailed(className, attributes));
  if (attributes) request.attributes = attributes;
  const selectedNode = claim.metadata.annotations?.[ANN_SELECTED_NODE];
  if (selectedNode) request.selectedNode = selectedNode;
  const generation = backingGeneration(claim);
  if (generation > 0) request.generation = generation;
  if (storageClass.allowedTopologies) request.allowedTopologies = structuredClone(storageClass.allowedTopologies);
  return { ok: true, request };
}

/**
 * Why the claim's data source cannot be provisioned by `plugin` at all (not how the source itself
 * stands: content-source.ts reads that live). A populator's kind is not refused here: the
 * operation leaves such claims alone before planning.
 */
function dataSourceProblem(claim: PersistentVolumeClaim, plugin: VolumePlugin): string | undefined {
  const source = claimDataSource(claim);
  if (source.kind === 'invalid') return source.message;
  if (source.kind === 'snapshot' && !canSnapshot(plugin)) return msgCannotRestore(plugin.name);
  if (source.kind === 'clone' && !(canSnapshot(plugin) && plugin.supportsClone)) return msgCannotClone(plugin.name);
  return undefined;
}

/**
 * The parameters of the claim's VolumeAttributesClass for the plugin (KEP-3751: the provisioner
 * passes them as mutable parameters), or why the claim cannot be provisioned with it.
 */
function attributesFor(
  claim: PersistentVolumeClaim,
  plugin: VolumePlugin,
  vac: VolumeAttributesClass | undefined,
): Record<string, string> | string | undefined {
  const name = claim.spec.volumeAttributesClassName ?? '';
  if (name === '') return undefined;
  if (!vac) return `VolumeAttributesClass "${name}" not found`;
  const parameters = { ...(vac.parameters ?? {}) };
  if (!canModify(plugin)) return `volume plugin ${plugin.name} takes no VolumeAttributesClass parameters`;
  const problems = plugin.validateAttributes(parameters);
  if (problems.length > 0) {
    return `VolumeAttributesClass "${name}": ${problems.map((p) => `invalid parameter "${p.parameter}": ${p.message}`).join('; ')}`;
  }
  return parameters;
}
