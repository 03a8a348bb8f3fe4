/**
 * The entry point: a CSI driver's connection → its volume plugin. Asks the driver who it is and
 * what it can do once (GetPluginInfo, GetPluginCapabilities, ControllerGetCapabilities), refuses
 * one that cannot create and delete volumes, and gives the plugin exactly the capabilities the
 * driver lists.
 *
 * What `orphans` can tell of a CSI driver: nothing is marked. A CSI volume has only the id the
 * driver chose; the name we sent to CreateVolume is not returned by ListVolumes, and other
 * clusters and other provisioners may share the driver's backend. So the plugin does not claim
 * list-backing-volumes (whose contract is "this cluster's volumes and no other's"); with
 * LIST_VOLUMES it offers `listDriverVolumes()`, the driver's whole inventory, from which a caller
 * can report the ids no PV's `spec.csi.volumeHandle` names — candidates, never a list to delete:
 * they may be another cluster's, or a volume whose CreateVolume is still running.
 */
import type { Logger } from 'pino';
import type { CsiConnection } from '../../csi/types.js';
import { CAPACITY, type CapacityReporter } from '../api/capabilities/capacity.js';
import { EXPAND, type Expander } from '../api/capabilities/expand.js';
import { MODIFY, type Modifier } from '../api/capabilities/modify.js';
import { SNAPSHOT, type Snapshotter } from '../api/capabilities/snapshot.js';
import type { ProvenanceProver } from '../api/capabilities/provenance.js';
import type { ProvisionRequest, VolumePlugin } from '../api/core.js';
import { PluginError } from '../api/errors.js';
import { type CsiProvenance, CsiVolumePlugin, provesCsiVolume } from './csi-plugin.js';
import { csiStorageCapacity, type DriverVolume, expandCsiVolume, type ExtrasContext, listCsiVolumes, modifyCsiVolume, validateCsiAttributes } from './extras.js';
import { createCsiSnapshot, deleteCsiSnapshot, listCsiSnapshots, type SnapshotContext } from './snapshots.js';
import type { CsiTopologySource } from './topology.js';

export type { CsiTopologySource } from './topology.js';
export { CSI_MAX_BACKING_NAME_LENGTH, type CsiProvenance } from './csi-plugin.js';

export interface CsiPluginDeps {
  clusterName: string;
  /** Reads a Secret's data (decoded strings); undefined when it does not exist. */
  secrets: (namespace: string, name: string) => Promise<Record<string, string> | undefined>;
  /** Topology of the cluster for this driver (from CSINode topologyKeys + Node labels). */
  topology: CsiTopologySource;
  logger: Logger;
  /** Per-call timeout for CreateVolume etc. (default 60 s). */
  timeoutMs?: number;
  /** external-provisioner's `--strict-topology`: with a selected node, only its segment is requisite. Default false. */
  strictTopology?: boolean;
  /** external-provisioner's `--immediate-topology`: immediate binding still sends every segment. Default true. */
  immediateTopology?: boolean;
  /** external-provisioner's `--default-fstype`: '' (the default, as there) leaves the choice to the driver. */
  defaultFsType?: string;
  /**
   * Proof of which volumes this controller made (controller/provenance/key.ts). When given, PVs
   * are signed at provisioning and DeleteVolume refuses a PV without a valid proof. Without it
   * (tests) a PV's handle is trusted, as external-provisioner trusts it.
   */
  provenance?: CsiProvenance;
}

/** The optional members are present exactly when the driver has the capability (the type guards find them). */
export type CsiPlugin = VolumePlugin &
  Partial<Expander & Modifier & CapacityReporter & Snapshotter> & {
    readonly csiDriver: string;
    /** The controller capabilities the driver listed. */
    readonly controllerCapabilities: ReadonlySet<string>;
    /** The driver's whole inventory (LIST_VOLUMES only); see the note at the top of this file. */
    listDriverVolumes?: () => Promise<DriverVolume[]>;
  };

export const DEFAULT_CSI_TIMEOUT_MS = 60_000;

/** Deterministic, so a PV written before a restart compares equal to one written after (provision is idempotent). */
export function provisionerIdentity(clusterName: string, driver: string): string {
  return `pv-controller-${clusterName}-${driver}`;
}

export async function createCsiPlugin(conn: CsiConnection, deps: CsiPluginDeps): Promise<CsiPlugin> {
  const timeoutMs = deps.timeoutMs ?? DEFAULT_CSI_TIMEOUT_MS;
  const info = await conn.identity.getPluginInfo({ timeoutMs });
  const plugin = await conn.identity.getPluginCapabilities({ timeoutMs });
  const controller = await conn.controller.getCapabilities({ timeoutMs });
  if (!plugin.services.has('CONTROLLER_SERVICE') || !controller.has('CREATE_DELETE_VOLUME')) {
    throw new Error(
      `CSI driver ${info.name} at ${conn.address} cannot provision: it lacks ${plugin.services.has('CONTROLLER_SERVICE') ? 'the CREATE_DELETE_VOLUME controller capability' : 'the CONTROLLER_SERVICE plugin capability'}`,
    );
  }
  const singleNodeMultiWriter = controller.has('SINGLE_NODE_MULTI_WRITER');
  const core = new CsiVolumePlugin({
    conn,
    traits: { driver: info.name, singleNodeMultiWriter, defaultFsType: deps.defaultFsType ?? '', identity: provisionerIdentity(deps.clusterName, info.name) },
    controllerCapabilities: controller,
    topologyAware: plugin.services.has('VOLUME_ACCESSIBILITY_CONSTRAINTS'),
    strictTopology: deps.strictTopology ?? false,
    immediateTopology: deps.immediateTopology ?? true,
    secrets: deps.secrets,
    topology: deps.topology,
    logger: deps.logger.child({ csiDriver: info.name }),
    timeoutMs,
    ...(deps.provenance ? { provenance: deps.provenance } : {}),
  });
  const c: ExtrasContext = { conn, driver: info.name, singleNodeMultiWriter, secrets: deps.secrets, timeoutMs };
  const extras: Partial<Expander & Modifier & CapacityReporter & Snapshotter & ProvenanceProver> & { listDriverVolumes?: () => Promise<DriverVolume[]> } = {};
  const proof = deps.provenance;
  if (proof) extras.provesProvisioned = (pv) => Promise.resolve(provesCsiVolume(proof, info.name, pv));
  if (controller.has('EXPAND_VOLUME')) extras.expand = (req) => expandCsiVolume(c, req);
  if (controller.has('MODIFY_VOLUME')) Object.assign(extras, { validateAttributes: validateCsiAttributes, modify: (req) => modifyCsiVolume(c, req) } satisfies Modifier);
  if (controller.has('GET_CAPACITY')) extras.storageCapacity = (parameters, segment) => csiStorageCapacity(c, parameters, segment);
  if (controller.has('LIST_VOLUMES')) extras.listDriverVolumes = () => listCsiVolumes(c);
  if (controller.has('CREATE_DELETE_SNAPSHOT')) {
    const s: SnapshotContext = { conn, driver: info.name, secrets: deps.secrets, timeoutMs, logger: core.logger, canList: controller.has('LIST_SNAPSHOTS') };
    Object.assign(extras, snapshotter(core, s, controller.has('CLONE_VOLUME')));
  }
  deps.logger.info({ csiDriver: info.name, vendorVersion: info.vendorVersion, capabilities: [...controller].sort() }, 'CSI driver connected');
  return Object.assign(core, extras, { controllerCapabilities: controller }) as CsiPlugin;
}

/**
 * The snapshot capability (CREATE_DELETE_SNAPSHOT): snapshots.ts's calls, and restore and clone as
 * provisioning with a content source (the same CreateVolume, plus volume_content_source). A CSI
 * snapshot handle is the driver's own: the controller picks this plugin by driver name.
 */
function snapshotter(core: CsiVolumePlugin, s: SnapshotContext, supportsClone: boolean): Snapshotter {
  const withSource = (req: ProvisionRequest, contentSource: NonNullable<ProvisionRequest['contentSource']>) => core.provision({ ...req, contentSource });
  return {
    supportsClone,
    ownsSnapshot: (snapshotId) => snapshotId !== '',
    createSnapshot: (req) => createCsiSnapshot(s, req),
    deleteSnapshot: (req) => deleteCsiSnapshot(s, req),
    listSnapshots: () => listCsiSnapshots(s),
    provisionFromSnapshot: (req, snapshot) => withSource(req, { kind: 'snapshot', ...snapshot }),
    provisionClone: async (req, source) => {
      if (!supportsClone) throw new PluginError('NotSupported', `CSI driver ${s.driver} does not list CLONE_VOLUME: it cannot clone a volume`, false);
      return withSource(req, { kind: 'volume', source });
    },
  };
}

/** The capability names this module maps (for documentation and tests). */
export const CSI_CAPABILITY_MAP = {
  EXPAND_VOLUME: EXPAND.name,
  MODIFY_VOLUME: MODIFY.name,
  GET_CAPACITY: CAPACITY.name,
  CREATE_DELETE_SNAPSHOT: SNAPSHOT.name,
} as const;
