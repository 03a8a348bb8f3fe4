/**
 * StorageClass parameters of `kubernetes.io/gce-pd`, as the in-tree plugin read them (keys are
 * case-insensitive): type, zone, zones, replication-type, fsType.
 */
import {
  type CheckedParameters,
  checkValue,
  checkZoneValues,
  nonEmpty,
  oneOf,
  readParameters,
  spellingOf,
  valueOf,
  zoneParameters,
} from '../cloud-common/parameters.js';

export const GCE_PD_PLUGIN_NAME = 'kubernetes.io/gce-pd';
export const GCE_DISK_TYPES = ['pd-standard', 'pd-balanced', 'pd-ssd', 'pd-extreme'] as const;
export const DEFAULT_GCE_DISK_TYPE = 'pd-standard';
export const REPLICATION_NONE = 'none';
export const REPLICATION_REGIONAL = 'regional-pd';

const KNOWN = ['type', 'zone', 'zones', 'replication-type', 'fstype'] as const;

export interface GceParameters {
  type: string;
  zone?: string;
  zones?: string[];
  /** 1 for a zonal disk, 2 for a regional (replicated) one. */
  replicas: 1 | 2;
  fsType?: string;
}

export function parseGceParameters(parameters: Record<string, string>): CheckedParameters<GceParameters> {
  const read = readParameters(parameters, KNOWN, GCE_PD_PLUGIN_NAME);
  checkValue(read, 'type', oneOf(GCE_DISK_TYPES));
  checkZoneValues(read);
  checkValue(read, 'replication-type', (v) => oneOf([REPLICATION_NONE, REPLICATION_REGIONAL])(v.toLowerCase()));
  checkValue(read, 'fstype', nonEmpty);
  const zones = zoneParameters(read);
  const regional = valueOf(read, 'replication-type')?.toLowerCase() === REPLICATION_REGIONAL;
  if (regional && valueOf(read, 'zone') !== undefined) {
    read.problems.push({
      parameter: spellingOf(read, 'zone'),
      message: 'zone cannot be used with replication-type regional-pd; use zones (two zones of one region)',
    });
  }
  if (regional && zones.zones !== undefined && new Set(zones.zones).size < 2) {
    read.problems.push({ parameter: spellingOf(read, 'zones'), message: 'a regional-pd needs at least two zones' });
  }
  const parsed: GceParameters = { type: valueOf(read, 'type') ?? DEFAULT_GCE_DISK_TYPE, replicas: regional ? 2 : 1, ...zones };
  const fsType = valueOf(read, 'fstype');
  if (fsType !== undefined) parsed.fsType = fsType;
  return { parsed, problems: read.problems };
}

/** The region of a zone: `us-central1-a` ⇒ `us-central1`. */
export function regionOfZone(zone: string): string {
  const dash = zone.lastIndexOf('-');
  return dash > 0 ? zone.slice(0, dash) : zone;
}
