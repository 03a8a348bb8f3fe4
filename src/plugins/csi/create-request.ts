/**
 * From our ProvisionRequest to CSI's CreateVolumeRequest and back to the PV's `spec.csi`, as pure
 * functions (external-provisioner's prepareProvision and Provision). The secrets' data and the
 * accessibility requirements are filled in by the plugin (they need I/O).
 */
import {
  ANN_CSI_DELETION_SECRET_NAME,
  ANN_CSI_DELETION_SECRET_NAMESPACE,
  ANN_CSI_MODIFY_SECRET_NAME,
  ANN_CSI_MODIFY_SECRET_NAMESPACE,
  CSI_ATTR_PROVISIONER_IDENTITY,
} from '@pv-controller/kube/annotations.js';
import { formatBytes } from '@pv-controller/kube/quantity.js';
import type { CreateVolumeRequest, CsiContentSource, CsiVolume } from '../../csi/types.js';
import type { ProvisionedVolume, ProvisionRequest, VolumeContentSource } from '../api/core.js';
import { PluginError } from '../api/errors.js';
import { createCapabilities } from './access.js';
import { driverParameters, fsTypeOf } from './parameters.js';
import type { SecretKind } from './secret-params.js';
import { resolveSecretRef, type SecretRef } from './secrets.js';
import type { TemplateContext } from './templates.js';
import { nodeAffinityOf } from './topology.js';

export interface DriverTraits {
  driver: string;
  /** The driver's ControllerGetCapabilities lists SINGLE_NODE_MULTI_WRITER. */
  singleNodeMultiWriter: boolean;
  /** external-provisioner's `--default-fstype` ('' = none: the driver picks). */
  defaultFsType: string;
  /** volumeAttributes `storage.kubernetes.io/csiProvisionerIdentity`. */
  identity: string;
}

/** The Secret references of one volume, resolved from the class at provisioning. */
export type SecretRefs = Partial<Record<SecretKind, SecretRef>>;

export function templateContext(req: ProvisionRequest): TemplateContext {
  return { pvName: req.pvName, claim: { name: req.claim.name, namespace: req.claim.namespace, annotations: req.claim.annotations } };
}

/** Every Secret reference the class names, resolved for this claim (throws a PluginError naming a bad template). */
export function secretRefsFor(req: ProvisionRequest): SecretRefs {
  const ctx = templateContext(req);
  const refs: SecretRefs = {};
  for (const kind of ['provisioner', 'controller-publish', 'node-stage', 'node-publish', 'controller-expand', 'node-expand', 'controller-modify'] as const) {
    const ref = resolveSecretRef(kind, req.parameters, ctx);
    if (ref) refs[kind] = ref;
  }
  return refs;
}

/** CreateVolume without secrets and accessibility requirements: deterministic for a request, so a retry sends the same. */
export function createVolumeRequest(req: ProvisionRequest, traits: DriverTraits): CreateVolumeRequest {
  const fsType = fsTypeOf(req.parameters, traits.defaultFsType);
  const shape = { volumeMode: req.volumeMode, fsType, mountOptions: req.mountOptions };
  const out: CreateVolumeRequest = {
    name: req.backingName,
    capacityRange: { requiredBytes: req.requestBytes },
    volumeCapabilities: createCapabilities(req.accessModes, shape, traits.singleNodeMultiWriter),
    parameters: driverParameters(req.parameters, { pvcName: req.claim.name, pvcNamespace: req.claim.namespace, pvName: req.pvName }),
    secrets: {},
  };
  if (req.attributes !== undefined) out.mutableParameters = { ...req.attributes };
  if (req.contentSource !== undefined) out.contentSource = csiContentSource(req.contentSource, traits.driver);
  return out;
}

/**
 * The volume_content_source of a restore (the snapshot's handle) or a clone (the source PV's
 * volume handle, which must be a volume of the same driver, as external-provisioner checks).
 */
export function csiContentSource(source: VolumeContentSource, driver: string): CsiContentSource {
  if (source.kind === 'snapshot') {
    if (source.snapshotId === '') throw new PluginError('InvalidParameter', 'a restore needs the snapshot handle', false);
    return { snapshot: { snapshotId: source.snapshotId } };
  }
  const csi = source.source.spec.csi;
  const handle = csi?.volumeHandle;
  if (csi?.driver !== driver || typeof handle !== 'string' || handle === '') {
    throw new PluginError('InvalidParameter', `the clone source PV "${source.source.metadata.name ?? ''}" is no CSI volume of ${driver}`, false);
  }
  return { volume: { volumeId: handle } };
}

function sourceRefs(refs: SecretRefs): Record<string, SecretRef> {
  const out: Record<string, SecretRef> = {};
  const fields: Array<[SecretKind, string]> = [
    ['controller-publish', 'controllerPublishSecretRef'],
    ['node-stage', 'nodeStageSecretRef'],
    ['node-publish', 'nodePublishSecretRef'],
    ['controller-expand', 'controllerExpandSecretRef'],
    ['node-expand', 'nodeExpandSecretRef'],
  ];
  for (const [kind, field] of fields) {
    const ref = refs[kind];
    if (ref) out[field] = { ...ref };
  }
  return out;
}

/**
 * The annotations external-provisioner writes on the PV: the deletion Secret (empty values when
 * there is none, so a delete knows not to look in the class again) and the modify Secret.
 */
function secretAnnotations(refs: SecretRefs): Record<string, string> {
  const out: Record<string, string> = {
    [ANN_CSI_DELETION_SECRET_NAME]: refs.provisioner?.name ?? '',
    [ANN_CSI_DELETION_SECRET_NAMESPACE]: refs.provisioner?.namespace ?? '',
  };
  if (refs['controller-modify']) {
    out[ANN_CSI_MODIFY_SECRET_NAME] = refs['controller-modify'].name;
    out[ANN_CSI_MODIFY_SECRET_NAMESPACE] = refs['controller-modify'].namespace;
  }
  return out;
}

/** The PV's part of what CreateVolume returned. */
export function provisionedFrom(req: ProvisionRequest, create: CreateVolumeRequest, volume: CsiVolume, refs: SecretRefs, traits: DriverTraits): ProvisionedVolume {
  const csi: Record<string, unknown> = {
    driver: traits.driver,
    volumeHandle: volume.volumeId,
    volumeAttributes: { [CSI_ATTR_PROVISIONER_IDENTITY]: traits.identity, ...volume.volumeContext },
    ...sourceRefs(refs),
  };
  const fsType = create.volumeCapabilities[0]?.mount?.fsType;
  if (req.volumeMode !== 'Block' && fsType) csi.fsType = fsType;
  const bytes = volume.capacityBytes === 0n ? req.requestBytes : volume.capacityBytes;
  const out: ProvisionedVolume = { source: { csi }, capacity: formatBytes(bytes), annotations: secretAnnotations(refs) };
  const affinity = nodeAffinityOf(volume.accessibleTopology);
  if (affinity) out.nodeAffinity = affinity;
  return out;
}
