/**
 * The capabilities of a CSI plugin beyond the core, each present only when the driver's
 * ControllerGetCapabilities lists it: expand (EXPAND_VOLUME, as external-resizer), modify
 * (MODIFY_VOLUME), capacity (GET_CAPACITY, as external-provisioner's capacity controller). The
 * methods are attached to the plugin object one capability at a time, because the type guards
 * decide by the methods a plugin has.
 */
import { ANN_CSI_MODIFY_SECRET_NAME, ANN_CSI_MODIFY_SECRET_NAMESPACE, CSI_PARAMETER_PREFIX } from '@pv-controller/kube/annotations.js';
import { formatBytes } from '@pv-controller/kube/quantity.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import type { CsiConnection } from '../../csi/types.js';
import type { StorageCapacity } from '../api/capabilities/capacity.js';
import type { ExpandedVolume, ExpandRequest } from '../api/capabilities/expand.js';
import type { ModifyRequest } from '../api/capabilities/modify.js';
import { PluginError, type ParameterProblem } from '../api/errors.js';
import { volumeCapability } from './access.js';
import { allPages, callOptions, csiCall } from './call.js';
import { refFromSource, secretData, type SecretReader } from './secrets.js';

export interface ExtrasContext {
  conn: CsiConnection;
  driver: string;
  singleNodeMultiWriter: boolean;
  secrets: SecretReader;
  timeoutMs: number;
}

function volumeIdOf(pv: PersistentVolume): string {
  const id = pv.spec.csi?.volumeHandle;
  if (typeof id !== 'string' || id === '') throw new PluginError('Unsafe', `PV "${pv.metadata.name ?? ''}" names no CSI volume handle`, false);
  return id;
}

/** ControllerExpandVolume: a `final` refusal (INVALID_ARGUMENT, OUT_OF_RANGE, …) is Infeasible (KEP-1790), anything else is retried. */
export async function expandCsiVolume(c: ExtrasContext, req: ExpandRequest): Promise<ExpandedVolume> {
  const { pv } = req;
  const volumeId = volumeIdOf(pv);
  const secrets = await secretData(c.secrets, refFromSource(pv.spec.csi?.controllerExpandSecretRef), 'controller-expand');
  const fsType = typeof pv.spec.csi?.fsType === 'string' ? pv.spec.csi.fsType : '';
  const capability = volumeCapability(pv.spec.accessModes ?? [], { volumeMode: pv.spec.volumeMode, fsType, mountOptions: pv.spec.mountOptions ?? [] }, c.singleNodeMultiWriter);
  const answer = await csiCall(`ControllerExpandVolume ${volumeId}`, () =>
    c.conn.controller.expandVolume({ volumeId, capacityRange: { requiredBytes: req.sizeBytes }, secrets, volumeCapability: capability }, callOptions(c.timeoutMs, req.signal)),
  );
  const bytes = answer.capacityBytes === 0n ? req.sizeBytes : answer.capacityBytes;
  return { capacity: formatBytes(bytes), nodeExpansionRequired: answer.nodeExpansionRequired };
}

/** Keys a VolumeAttributesClass may not carry to a driver: the provisioner's reserved namespace and our own. */
const RESERVED_ATTRIBUTE_PREFIXES = [CSI_PARAMETER_PREFIX, 'pv-controller.io/'];

/** The driver decides what its mutable parameters mean; only reserved or empty keys are refused here. */
export function validateCsiAttributes(attributes: Record<string, string>): ParameterProblem[] {
  return Object.keys(attributes).flatMap((parameter) => {
    if (parameter === '') return [{ parameter, message: 'an empty key' }];
    const prefix = RESERVED_ATTRIBUTE_PREFIXES.find((p) => parameter.startsWith(p));
    return prefix ? [{ parameter, message: `keys under "${prefix}" are reserved, not passed to the driver` }] : [];
  });
}

/** ControllerModifyVolume with the class's parameters and the modify Secret the PV's annotations name. */
export async function modifyCsiVolume(c: ExtrasContext, req: ModifyRequest): Promise<void> {
  const volumeId = volumeIdOf(req.pv);
  const ann = req.pv.metadata.annotations ?? {};
  const ref = refFromSource({ name: ann[ANN_CSI_MODIFY_SECRET_NAME], namespace: ann[ANN_CSI_MODIFY_SECRET_NAMESPACE] });
  const secrets = await secretData(c.secrets, ref, 'controller-modify');
  await csiCall(`ControllerModifyVolume ${volumeId}`, () =>
    c.conn.controller.modifyVolume({ volumeId, secrets, mutableParameters: { ...req.attributes } }, callOptions(c.timeoutMs, undefined)),
  );
}

/**
 * GetCapacity for a class (its parameters as they are, no volume capabilities: external-
 * provisioner assumes capacity does not depend on them) and, when given, one topology segment.
 * A driver that reports no maximum volume size can put all of it in one volume.
 */
export async function csiStorageCapacity(c: ExtrasContext, parameters: Record<string, string>, segment?: Record<string, string>): Promise<StorageCapacity> {
  const answer = await csiCall(`GetCapacity`, () =>
    c.conn.controller.getCapacity({ volumeCapabilities: [], parameters: { ...parameters }, ...(segment ? { accessibleTopology: { ...segment } } : {}) }, callOptions(c.timeoutMs, undefined)),
  );
  const capacityBytes = answer.availableCapacity < 0n ? 0n : answer.availableCapacity;
  const max = answer.maximumVolumeSize ?? capacityBytes;
  return { capacityBytes, maximumVolumeBytes: max > capacityBytes ? capacityBytes : max < 0n ? 0n : max };
}

/** A volume ListVolumes reports. */
export interface DriverVolume {
  volumeId: string;
  capacityBytes: bigint;
  publishedNodeIds: string[];
}

/** Pages through ListVolumes (LIST_VOLUMES). */
export async function listCsiVolumes(c: ExtrasContext, pageSize = 500, maxPages = 10_000): Promise<DriverVolume[]> {
  const entries = await allPages(
    `ListVolumes of ${c.driver}`,
    (token) => c.conn.controller.listVolumes({ maxEntries: pageSize, ...(token ? { startingToken: token } : {}) }, callOptions(c.timeoutMs, undefined)),
    maxPages,
  );
  return entries.map((e) => ({ volumeId: e.volume.volumeId, capacityBytes: e.volume.capacityBytes, publishedNodeIds: [...e.publishedNodeIds] }));
}
