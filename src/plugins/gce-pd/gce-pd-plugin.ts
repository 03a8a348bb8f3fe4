/**
 * `kubernetes.io/gce-pd`: Compute Engine persistent disks over the REST API (plain fetch, auth
 * from google-auth-library). Disk names are unique per zone, so the backing name is the
 * idempotency key: an existing disk of that name is reused when its description carries this
 * cluster's tag, and a create that races an earlier (lost) one ends in 409 and is resolved the
 * same way.
 */
import { randomUUID } from 'node:crypto';
import { TAG_CLUSTER_OWNED } from '../../kube/annotations.js';
import type { PersistentVolume } from '../../kube/types.js';
import { NilMetricsProvider } from '../../metrics/nil.js';
import type { MetricsProvider } from '../../metrics/provider.js';
import { CloudHttpError } from '../cloud-common/http.js';
import { assertNoProblems, type CloudPluginOptions, type ResolvedCloudOptions, resolveCloudOptions, selectedNodeZone } from '../cloud-common/options.js';
import { withRetry } from '../cloud-common/retry.js';
import { gibCapacity, roundUpToGiB } from '../cloud-common/size.js';
import { backingVolumeOf, clusterTagKey, isOwnedByCluster, volumeTags } from '../cloud-common/tags.js';
import { diskTopology } from '../cloud-common/topology.js';
import { waitFor } from '../cloud-common/wait.js';
import { selectZonesForVolume } from '../cloud-common/zones.js';
import { type BackingVolume, type DeleteRequest, type ParameterProblem, PluginError, type ProvisionedVolume, type ProvisionRequest, type VolumePlugin } from '../plugin.js';
import { classifyGceError, ComputeClient, DEFAULT_COMPUTE_ENDPOINT, type GceAuth, type GceDisk, type GceLocation, type GceOperation } from './compute-client.js';
import { GceDiskTargets } from './disk-targets.js';
import { defaultGceAuth, GceLocationResolver, type GceLocationOptions } from './gce-config.js';
import { descriptionForTags, labelKeyOf, labelsForTags, tagsOfDescription } from './labels.js';
import { GCE_PD_PLUGIN_NAME, type GceParameters, parseGceParameters, regionOfZone } from './parameters.js';

/** GCE resource names: RFC 1035 labels of at most 63 characters. */
export const GCE_PD_MAX_NAME_LENGTH = 63;
const DISK_NAME = /^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;

export interface GcePdPluginOptions extends CloudPluginOptions, GceLocationOptions {
  /** Default: google-auth-library's GoogleAuth (GOOGLE_APPLICATION_CREDENTIALS, ADC). */
  authClient?: GceAuth;
  /** Compute API base, default https://compute.googleapis.com/compute/v1 (tests: the emulator). */
  endpoint?: string;
}

export class GcePdPlugin implements VolumePlugin {
  readonly name = GCE_PD_PLUGIN_NAME;
  readonly maxBackingNameLength = GCE_PD_MAX_NAME_LENGTH;
  private readonly compute: ComputeClient;
  private readonly where: GceLocationResolver;
  private readonly options: ResolvedCloudOptions;
  private readonly targets: GceDiskTargets;

  constructor(options: GcePdPluginOptions = {}) {
    this.options = resolveCloudOptions(options, 'gce-pd');
    const auth = options.authClient ?? defaultGceAuth();
    this.compute = new ComputeClient(options.endpoint ?? DEFAULT_COMPUTE_ENDPOINT, auth);
    this.where = new GceLocationResolver(options, auth);
    this.targets = new GceDiskTargets(this.compute, (what, op, signal) => this.call(what, op, signal));
  }

  validateParameters(parameters: Record<string, string>): ParameterProblem[] {
    return parseGceParameters(parameters).problems;
  }

  handles(pv: PersistentVolume): boolean {
    return pv.spec.gcePersistentDisk !== undefined;
  }

  metricsFor(pv: PersistentVolume): MetricsProvider {
    return new NilMetricsProvider(`gce-pd disk "${pv.spec.gcePersistentDisk?.pdName ?? pv.metadata.name}"`);
  }

  private call<T>(what: string, op: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const { retry: policy, logger, random } = this.options;
    return withRetry(op, { what, policy, classify: classifyGceError, signal, logger, random });
  }

  async provision(req: ProvisionRequest): Promise<ProvisionedVolume> {
    const { parsed, problems } = parseGceParameters(req.parameters);
    assertNoProblems(problems);
    if (!DISK_NAME.test(req.backingName)) {
      throw new PluginError('Backend', `"${req.backingName}" is not a valid GCE disk name`, false);
    }
    const project = await this.where.projectId();
    const location = await this.chooseLocation(req, parsed);
    const found = await this.call(
      'find or create GCE disk',
      (signal) => this.findOrCreate(req, parsed, project, location, signal),
      req.signal,
    );
    if ('operation' in found) await this.targets.waitForOperation(project, found.operation, req.signal, this.options.wait);
    const ready = await this.waitUntilReady(project, location, req.backingName, req.signal);
    const topology = diskTopology(ready.zones, regionOfZone(ready.zones[0] ?? ''));
    const gcePersistentDisk: { pdName: string; fsType?: string } = { pdName: ready.name };
    if (parsed.fsType !== undefined) gcePersistentDisk.fsType = parsed.fsType;
    return {
      source: { gcePersistentDisk },
      capacity: gibCapacity(ready.sizeGb),
      labels: topology.labels,
      nodeAffinity: topology.nodeAffinity,
    };
  }

  /** The zone of a zonal disk, or the region (and its two zones) of a regional one. */
  private async chooseLocation(req: ProvisionRequest, parsed: GceParameters): Promise<GceLocation & { zones: string[] }> {
    const zones = await selectZonesForVolume({
      claimName: req.claim.name,
      zoneParameter: parsed.zone,
      zonesParameter: parsed.zones,
      nodeZone: await selectedNodeZone(req, this.options),
      allowedTopologies: req.allowedTopologies,
      fallbackZones: () => this.fallbackZones(req.signal),
      replicas: parsed.replicas,
    });
    if (parsed.replicas === 1) return { scope: 'zones', name: zones[0], zones };
    const regions = new Set(zones.map(regionOfZone));
    if (regions.size !== 1) {
      throw new PluginError('InvalidParameter', `zones: a regional-pd needs zones of one region, got ${zones.join(', ')}`, false);
    }
    return { scope: 'regions', name: [...regions][0], zones };
  }

  private async fallbackZones(signal?: AbortSignal): Promise<string[]> {
    const withNodes = (await this.options.topology?.zonesWithNodes?.(signal)) ?? [];
    if (withNodes.length > 0) return withNodes;
    const zone = await this.where.defaultZone();
    return zone ? [zone] : [];
  }

  /** One attempt: reuse this cluster's disk of that name, else start inserting it. */
  private async findOrCreate(
    req: ProvisionRequest,
    parsed: GceParameters,
    project: string,
    location: GceLocation & { zones: string[] },
    signal: AbortSignal,
  ): Promise<{ disk: GceDisk } | { operation: GceOperation }> {
    const existing = await this.compute.getDisk(project, location, req.backingName, signal);
    if (existing) return { disk: this.reuse(req, existing) };
    const tags = volumeTags(req);
    const newDisk = {
      name: req.backingName,
      sizeGb: roundUpToGiB(req.requestBytes),
      type: parsed.type,
      description: descriptionForTags(tags),
      labels: labelsForTags(tags),
      replicaZones: location.scope === 'regions' ? location.zones : undefined,
    };
    try {
      const operation = await this.compute.insertDisk(project, location, newDisk, randomUUID(), signal);
      this.options.logger.info(
        { disk: req.backingName, location: location.name, sizeGb: newDisk.sizeGb, pv: req.pvName, operation: operation.name },
        'creating GCE disk',
      );
      return { operation };
    } catch (err) {
      // 409: an earlier insert (whose answer was lost) or a concurrent one got there first.
      if (!(err instanceof CloudHttpError && err.status === 409)) throw err;
      const raced = await this.compute.getDisk(project, location, req.backingName, signal);
      if (!raced) throw err;
      return { disk: this.reuse(req, raced) };
    }
  }

  private reuse(req: ProvisionRequest, disk: GceDisk): GceDisk {
    if (!isOwnedByCluster(tagsOfDescription(disk.description), req.clusterName)) {
      throw new PluginError(
        'Backend',
        `a GCE disk named ${disk.name} exists in ${disk.location.name} but was not created by cluster "${req.clusterName}"`,
        false,
      );
    }
    this.options.logger.info({ disk: disk.name, location: disk.location.name, pv: req.pvName }, 'reusing the GCE disk created earlier for this PV');
    return disk;
  }

  private waitUntilReady(project: string, location: GceLocation, name: string, signal?: AbortSignal): Promise<GceDisk> {
    return waitFor(
      async () => {
        const disk = await this.call('disks.get', (s) => this.compute.getDisk(project, location, name, s), signal);
        if (disk === undefined) throw new PluginError('Backend', `GCE disk ${name} disappeared before it became READY`, true);
        if (disk.status === 'FAILED') await this.targets.discardFailed(project, disk, signal, this.options.wait);
        return disk.status === 'READY' ? disk : undefined;
      },
      { ...this.options.wait, what: `GCE disk ${name} to become READY`, signal },
    );
  }

  async delete(req: DeleteRequest): Promise<void> {
    const project = await this.where.projectId();
    const disks = await this.targets.forDelete(project, req, req.signal);
    for (const disk of disks) {
      const outcome = await this.targets.deleteDisk(project, disk, req.signal, this.options.wait);
      this.options.logger.info(
        { disk: disk.name, location: disk.location.name, outcome },
        outcome === 'deleted' ? 'deleted GCE disk' : 'GCE disk already gone',
      );
    }
  }

  async listBackingVolumes(clusterName: string): Promise<BackingVolume[]> {
    const project = await this.where.projectId();
    const filter = `labels.${labelKeyOf(clusterTagKey(clusterName))} = "${TAG_CLUSTER_OWNED}"`;
    const disks = await this.call('disks.aggregatedList', (s) => this.compute.aggregatedDisks(project, filter, s));
    return disks
      .filter((disk) => isOwnedByCluster(tagsOfDescription(disk.description), clusterName))
      .map((disk) =>
        backingVolumeOf(`${disk.location.scope}/${disk.location.name}/disks/${disk.name}`, disk.name, tagsOfDescription(disk.description)),
      );
  }
}
