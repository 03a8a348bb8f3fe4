/**
 * StorageClass parameters of `kubernetes.io/gce-pd`, as the in-tree plugin read them (keys are
 * case-insensitive): type, zone, zones, replication-type, fsType.
 */
import { checkValue, nonEmpty, oneOf, readParameters } from '../cloud-common/parameters.js';
import { parseZoneList } from '../cloud-common/zones.js';
import type { ParameterProblem } from '../plugin.js';

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

export function parseGceParameters(parameters: Record<string, string>): {
  parsed: GceParameters;
  problems: ParameterProblem[];
} {
  const read = readParameters(parameters, KNOWN, GCE_PD_PLUGIN_NAME);
  const get = (key: (typeof KNOWN)[number]): string | undefined => read.values.get(key)?.value;
  const spelt = (key: (typeof KNOWN)[number]): string => read.values.get(key)?.key ?? key;
  checkValue(read, 'type', oneOf(GCE_DISK_TYPES));
  checkValue(read, 'zone', nonEmpty);
  checkValue(read, 'zones', (v) => (parseZoneList(v) ? undefined : 'must be zone names separated by commas'));
  checkValue(read, 'replication-type', (v) => oneOf([REPLICATION_NONE, REPLICATION_REGIONAL])(v.toLowerCase()));
  checkValue(read, 'fstype', nonEmpty);
  if (get('zone') !== undefined && get('zones') !== undefined) {
    read.problems.push({
      parameter: spelt('zones'),
      message: 'both zone and zones StorageClass parameters must not be used at the same time',
    });
  }
  const regional = get('replication-type')?.toLowerCase() === REPLICATION_REGIONAL;
  if (regional && get('zone') !== undefined) {
    read.problems.push({
      parameter: spelt('zone'),
      message: 'zone cannot be used with replication-type regional-pd; use zones (two zones of one region)',
    });
  }
  const zones = get('zones') === undefined ? undefined : parseZoneList(get('zones') ?? '');
  if (regional && zones !== undefined && new Set(zones).size < 2) {
    read.problems.push({ parameter: spelt('zones'), message: 'a regional-pd needs at least two zones' });
  }
  const parsed: GceParameters = { type: get('type') ?? DEFAULT_GCE_DISK_TYPE, replicas: regional ? 2 : 1 };
  const zone = get('zone');
  if (zone !== undefined) parsed.zone = zone.trim();
  if (zones !== undefined) parsed.zones = zones;
  const fsType = get('fstype');
  if (fsType !== undefined) parsed.fsType = fsType;
  return { parsed, problems: read.problems };
}

/** The region of a zone: `us-central1-a` ⇒ `us-central1`. */
export function regionOfZone(zone: string): string {
  const dash = zone.lastIndexOf('-');
  return dash > 0 ? zone.slice(0, dash) : zone;
}
