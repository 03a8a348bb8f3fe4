/**
 * One CSI driver as a volume plugin: provision is CreateVolume, delete DeleteVolume, and the
 * capabilities the driver's ControllerGetCapabilities lists become the plugin's (extras.ts).
 *
 * Our guarantee on top of external-provisioner's behaviour: CreateVolume's name is the claim's
 * deterministic backing name, so every retry (after a timeout, a restart, a claim deleted
 * mid-create) sends the same idempotent request; a claim deleted while it ran is cleaned up by
 * sending that request once more (the driver answers with the volume it made, or makes it) and
 * deleting the id it answers with (deleteWithoutPv).
 */
import type { Logger } from 'pino';
import { ANN_CSI_DELETION_SECRET_NAME, ANN_CSI_DELETION_SECRET_NAMESPACE, ANN_CSI_PROVENANCE } from '@pv-controller/kube/annotations.js';
import type { PersistentVolume } from '@pv-controller/kube/types.js';
import type { CreateVolumeRequest, CsiConnection, CsiVolume } from '../../csi/types.js';
import { NilMetricsProvider } from '../../metrics/nil.js';
import type { MetricsProvider } from '../../metrics/provider.js';
import type { DeleteRequest, ProvisionedVolume, ProvisionRequest, VolumePlugin } from '../api/core.js';
import { PluginError, type ParameterProblem } from '../api/errors.js';
import { callOptions, csiCall, isNotFound } from './call.js';
import { createVolumeRequest, type DriverTraits, provisionedFrom, secretRefsFor } from './create-request.js';
import { validateCsiParameters } from './parameters.js';
import { refFromSource, resolveSecretRef, secretData, type SecretReader, type SecretRef } from './secrets.js';
import { accessibilityRequirements, type CsiTopologySource } from './topology.js';

/**
 * Proof that this controller made a CSI volume (controller/provenance/key.ts implements it; the
 * plugin sees only this shape). With it, provision signs the PV and DeleteVolume is called only
 * for a PV whose proof verifies: a handle written into a PV by someone else is never deleted.
 */
export interface CsiProvenance {
  sign(driver: string, volumeHandle: string, pvName: string): string;
  verify(driver: string, volumeHandle: string, pvName: string, proof: string | undefined): boolean;
}

export interface CsiPluginOptions {
  conn: CsiConnection;
  traits: DriverTraits;
  controllerCapabilities: ReadonlySet<string>;
  /** The driver declares VOLUME_ACCESSIBILITY_CONSTRAINTS. */
  topologyAware: boolean;
  strictTopology: boolean;
  immediateTopology: boolean;
  secrets: SecretReader;
  topology: CsiTopologySource;
  logger: Logger;
  timeoutMs: number;
  provenance?: CsiProvenance;
}

/**
 * 63: CSI sets no limit on a volume name (it only recommends fields of at most 128 bytes), but
 * drivers pass it on to backends that do — a Kubernetes object or DNS label (63), a GCE disk
 * (63), an LVM volume. `<cluster>-dynamic-pvc-<uid>` is 49 characters plus the cluster name, so
 * 63 keeps 14 characters of it, and the PV name whole (external-provisioner sends `pvc-<uid>`, 40).
 */
export const CSI_MAX_BACKING_NAME_LENGTH = 63;

export class CsiVolumePlugin implements VolumePlugin {
  readonly name: string;
  readonly csiDriver: string;
  readonly maxBackingNameLength = CSI_MAX_BACKING_NAME_LENGTH;
  /** The driver's logger (its name on every line), for the capabilities attached beside the core. */
  readonly logger: Logger;

  constructor(protected readonly o: CsiPluginOptions) {
    this.name = o.traits.driver;
    this.logger = o.logger;
    this.csiDriver = o.traits.driver;
  }

  validateParameters(parameters: Record<string, string>): ParameterProblem[] {
    return validateCsiParameters(parameters);
  }

  handles(pv: PersistentVolume): boolean {
    return pv.spec.csi?.driver === this.name;
  }

  /** A controller cannot measure a CSI volume (the kubelet that mounts it does). */
  metricsFor(pv: PersistentVolume): MetricsProvider {
    return new NilMetricsProvider(`CSI volume "${pv.metadata.name ?? ''}" of ${this.name}`);
  }

  /** The complete CreateVolume for a request: the same on every retry (secrets and topology permitting). */
  protected async fullCreateRequest(req: ProvisionRequest): Promise<{ create: CreateVolumeRequest; refs: ReturnType<typeof secretRefsFor> }> {
    const refs = secretRefsFor(req);
    const create = createVolumeRequest(req, this.o.traits);
    create.secrets = await secretData(this.o.secrets, refs.provisioner, 'provisioner');
    if (this.o.topologyAware) {
      const requirement = await accessibilityRequirements(this.o.topology, {
        driver: this.name,
        claimName: req.claim.name,
        strict: this.o.strictTopology,
        immediate: this.o.immediateTopology,
        ...(req.selectedNode ? { selectedNode: req.selectedNode } : {}),
        ...(req.allowedTopologies ? { allowedTopologies: req.allowedTopologies } : {}),
      });
      if (requirement) create.accessibilityRequirements = requirement;
    }
    return { create, refs };
  }

  protected createVolume(create: CreateVolumeRequest, signal: AbortSignal | undefined): Promise<CsiVolume> {
    return csiCall(`CreateVolume ${create.name}`, () => this.o.conn.controller.createVolume(create, callOptions(this.o.timeoutMs, signal)));
  }

  protected async deleteVolume(volumeId: string, secrets: Record<string, string>, signal: AbortSignal | undefined): Promise<void> {
    try {
      await csiCall(`DeleteVolume ${volumeId}`, () => this.o.conn.controller.deleteVolume({ volumeId, secrets }, callOptions(this.o.timeoutMs, signal)));
    } catch (err) {
      // Gone already: what delete wants.
      if (!(err instanceof PluginError && isNotFound(err.cause))) throw err;
    }
  }

  async provision(req: ProvisionRequest): Promise<ProvisionedVolume> {
    const { create, refs } = await this.fullCreateRequest(req);
    const volume = await this.createVolume(create, req.signal);
    if (volume.capacityBytes !== 0n && volume.capacityBytes < req.requestBytes) {
      // As external-provisioner: a volume smaller than asked is deleted and the claim tried again.
      await this.deleteVolume(volume.volumeId, create.secrets, req.signal);
      throw new PluginError('Backend', `CreateVolume ${create.name} made ${volume.capacityBytes} bytes, fewer than the ${req.requestBytes} asked; deleted it`, true);
    }
    if (create.contentSource && !volume.contentSource) {
      // As external-provisioner: a driver that answers a restore or clone without a content source made an empty volume.
      await this.deleteVolume(volume.volumeId, create.secrets, req.signal);
      throw new PluginError('Backend', `CreateVolume ${create.name} answered without the volume content source it was asked for; deleted the volume`, true);
    }
    this.o.logger.info({ backingName: create.name, volumeId: volume.volumeId, pv: req.pvName }, 'CSI volume created');
    const out = provisionedFrom(req, create, volume, refs, this.o.traits);
    if (this.o.provenance) out.annotations = { ...out.annotations, [ANN_CSI_PROVENANCE]: this.o.provenance.sign(this.name, volume.volumeId, req.pvName) };
    return out;
  }

  async delete(req: DeleteRequest): Promise<void> {
    if (req.pv) return this.deleteWithPv(req.pv, req);
    if (req.provision) return this.deleteWithoutPv(req.provision, req.signal);
    // No PV and no request: the driver chose the id and nothing here knows it.
    throw new PluginError('NotSupported', `cannot find the CSI volume "${req.backingName}" of ${this.name} without the PV or the provision request`, false);
  }

  /** The Secret DeleteVolume needs: the PV's annotations (written at provisioning), else the class resolved for the claimRef. */
  private deletionSecretRef(pv: PersistentVolume, parameters: Record<string, string> | undefined): SecretRef | undefined {
    const ann = pv.metadata.annotations ?? {};
    if (ANN_CSI_DELETION_SECRET_NAME in ann && ANN_CSI_DELETION_SECRET_NAMESPACE in ann) {
      return refFromSource({ name: ann[ANN_CSI_DELETION_SECRET_NAME], namespace: ann[ANN_CSI_DELETION_SECRET_NAMESPACE] });
    }
    const claim = pv.spec.claimRef;
    if (!parameters || !claim) return undefined;
    const ctx = { pvName: pv.metadata.name ?? '', claim: { name: claim.name ?? '', namespace: claim.namespace ?? '', annotations: {} } };
    return resolveSecretRef('provisioner', parameters, ctx);
  }

  private async deleteWithPv(pv: PersistentVolume, req: DeleteRequest): Promise<void> {
    const volumeId = pv.spec.csi?.volumeHandle;
    if (typeof volumeId !== 'string' || volumeId === '') throw new PluginError('Unsafe', `PV "${pv.metadata.name ?? ''}" names no CSI volume handle`, false);
    const pvName = pv.metadata.name ?? '';
    if (this.o.provenance && !this.o.provenance.verify(this.name, volumeId, pvName, pv.metadata.annotations?.[ANN_CSI_PROVENANCE])) {
      throw new PluginError('Unsafe', `PV "${pvName}" carries no valid proof that pv-controller made CSI volume "${volumeId}": not deleting it`, false);
    }
    const ref = this.deletionSecretRef(pv, req.parameters);
    // As external-provisioner: a deletion Secret that is gone does not keep the volume forever.
    const secrets = ref ? ((await this.o.secrets(ref.namespace, ref.name)) ?? {}) : {};
    await this.deleteVolume(volumeId, secrets, req.signal);
    this.o.logger.info({ pv: pv.metadata.name, volumeId }, 'CSI volume deleted');
  }

  /**
   * The claim went away while CreateVolume may have run: repeat it (same name, size,
   * capabilities, parameters, secrets — idempotent per the CSI spec) to learn the id, then delete
   * that. An answer that the create is refused for good means no volume of that name exists.
   */
  private async deleteWithoutPv(provision: ProvisionRequest, signal: AbortSignal | undefined): Promise<void> {
    const { create } = await this.fullCreateRequest(provision);
    let volume: CsiVolume;
    try {
      volume = await this.createVolume(create, signal);
    } catch (err) {
      if (err instanceof PluginError && !err.retryable && !alreadyExists(err)) {
        this.o.logger.info({ backingName: create.name, err: err.message }, 'CSI volume was never created');
        return;
      }
      throw err;
    }
    await this.deleteVolume(volume.volumeId, create.secrets, signal);
    this.o.logger.info({ backingName: create.name, volumeId: volume.volumeId }, 'CSI volume of a claim deleted mid-provision deleted');
  }
}

/** ALREADY_EXISTS: a volume of that name exists with other properties — its id cannot be learnt, so it is never taken as "none". */
function alreadyExists(err: PluginError): boolean {
  const cause: unknown = err.cause;
  return typeof cause === 'object' && cause !== null && (cause as { codeName?: unknown }).codeName === 'ALREADY_EXISTS';
}

export type { CsiTopologySource };

/**
 * The provenance capability, for a plugin built with a provenance key (index.ts): the PV names a
 * volume of this driver and carries the HMAC proof signed when this controller provisioned it.
 */
export function provesCsiVolume(provenance: CsiProvenance, driver: string, pv: PersistentVolume): boolean {
  const handle = pv.spec.csi?.volumeHandle;
  if (pv.spec.csi?.driver !== driver || typeof handle !== 'string' || handle === '') return false;
  return provenance.verify(driver, handle, pv.metadata.name ?? '', pv.metadata.annotations?.[ANN_CSI_PROVENANCE]);
}
