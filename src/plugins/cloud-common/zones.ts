/**
 * Zone choice for a new disk, as Kubernetes' in-tree volume helpers made it: the selected node's
 * zone wins; otherwise the class's allowedTopologies, its zone / zones parameters, or the zones
 * that have nodes. Among several candidates the claim name picks one deterministically (FNV-1
 * hash), and StatefulSet-style names `<claim>-<set>-<n>` are spread round-robin by their ordinal.
 */
import { LABEL_FAILURE_DOMAIN_BETA_ZONE, LABEL_TOPOLOGY_ZONE } from '@pv-controller/kube/annotations.js';
import type { TopologySelectorTerm } from '@pv-controller/kube/types.js';
import { PluginError } from '../api/errors.js';

/** Where a plugin learns the topology it cannot see itself (from the controller's node cache). */
export interface TopologyResolver {
  /** The `topology.kubernetes.io/zone` label of a node; undefined when it has none. */
  zoneOfNode(nodeName: string, signal?: AbortSignal): Promise<string | undefined>;
  /** Zones where the cluster has nodes (used when the class names no zone). */
  zonesWithNodes?(signal?: AbortSignal): Promise<string[]>;
}

export interface ZoneSelection {
  claimName: string;
  /** Value of the class's `zone` parameter, when present. */
  zoneParameter?: string;
  /** What the class calls its zone parameter, for messages (default `zone`; Cinder: `availability`). */
  zoneParameterName?: string;
  /** Parsed `zones` parameter, when present. */
  zonesParameter?: string[];
  /** Zone of the node the scheduler selected (WaitForFirstConsumer). */
  nodeZone?: string;
  allowedTopologies?: TopologySelectorTerm[];
  /** Candidates when nothing else constrains the choice (zones with nodes, or the cloud's). */
  fallbackZones: () => Promise<string[]>;
  /** 1 for zonal disks, 2 for regional (replicated) ones. */
  replicas: number;
}

/** FNV-1 (not 1a), 32 bit, as Go's hash/fnv New32 — keeps the choice identical to upstream. */
export function fnv1Hash32(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash = Math.imul(hash, 0x01000193) >>> 0;
    hash = (hash ^ byte) >>> 0;
  }
  return hash;
}

/** The hashed part of a claim name and its StatefulSet ordinal (0 when it has none). */
export function claimNameHashAndIndex(claimName: string): { hash: number; index: number } {
  let hashed = claimName;
  let index = 0;
  const lastDash = claimName.lastIndexOf('-');
  const ordinal = lastDash >= 0 ? claimName.slice(lastDash + 1) : '';
  if (/^[0-9]+$/.test(ordinal) && Number(ordinal) <= 0xffffffff) {
    index = Number(ordinal);
    hashed = claimName.slice(0, lastDash);
    const setDash = hashed.lastIndexOf('-');
    if (setDash >= 0) hashed = hashed.slice(setDash + 1);
  }
  return { hash: fnv1Hash32(hashed), index };
}

/** `count` zones out of `zones`, chosen by the claim name; the same claim always gets the same. */
export function chooseZonesForVolume(zones: string[], claimName: string, count: number): string[] {
  const sorted = [...new Set(zones)].sort();
  if (sorted.length === 0) return [];
  const { hash, index } = claimNameHashAndIndex(claimName);
  const chosen = new Set<string>();
  // uint32 arithmetic, wrapping, exactly as the Go original.
  const start = Math.imul(index, count) >>> 0;
  for (let i = 0; i < count; i++) {
    chosen.add(sorted[((hash + start + i) >>> 0) % sorted.length]);
  }
  return [...chosen].sort();
}

/** Zones named by allowedTopologies; any other key is refused as upstream refused it. */
export function zonesFromAllowedTopologies(terms: TopologySelectorTerm[] | undefined): string[] {
  const zones = new Set<string>();
  for (const term of terms ?? []) {
    for (const expression of term.matchLabelExpressions ?? []) {
      if (expression.key !== LABEL_TOPOLOGY_ZONE && expression.key !== LABEL_FAILURE_DOMAIN_BETA_ZONE) {
        throw invalid(`unsupported key found in allowedTopologies matchLabelExpressions: ${expression.key}`);
      }
      for (const value of expression.values) zones.add(value);
    }
  }
  return [...zones].sort();
}

function invalid(message: string, parameter = 'allowedTopologies'): PluginError {
  return new PluginError('InvalidParameter', `${parameter}: ${message}`, false);
}

function includingZone(zones: string[], claimName: string, mustInclude: string | undefined, count: number): string[] {
  const unique = [...new Set(zones)].sort();
  if (unique.length < count) {
    throw invalid(`not enough zones (${unique.length}) for a volume with ${count} replicas`);
  }
  if (mustInclude !== undefined && !unique.includes(mustInclude)) {
    throw invalid(`the selected node's zone ${mustInclude} is not among the allowed zones ${unique.join(',')}`);
  }
  if (unique.length === count) return unique;
  if (mustInclude === undefined) return chooseZonesForVolume(unique, claimName, count);
  const others = unique.filter((zone) => zone !== mustInclude);
  return [...chooseZonesForVolume(others, claimName, count - 1), mustInclude].sort();
}

/** The zones for a new disk (sorted); throws PluginError 'InvalidParameter' on contradictions. */
export async function selectZonesForVolume(selection: ZoneSelection): Promise<string[]> {
  const { zoneParameter, zonesParameter, nodeZone, claimName, replicas } = selection;
  const zoneName = selection.zoneParameterName ?? 'zone';
  const classNamesZones = zoneParameter !== undefined || zonesParameter !== undefined;
  if (zoneParameter !== undefined && zonesParameter !== undefined) {
    throw invalid('both zone and zones StorageClass parameters must not be used at the same time', 'zones');
  }
  if (nodeZone !== undefined) {
    if (classNamesZones) {
      throw invalid(
        'zone[s] cannot be specified in StorageClass if VolumeBindingMode is WaitForFirstConsumer; use allowedTopologies',
        zoneParameter !== undefined ? zoneName : 'zones',
      );
    }
    if (replicas === 1) return [nodeZone];
  }
  const allowed = zonesFromAllowedTopologies(selection.allowedTopologies);
  if ((selection.allowedTopologies?.length ?? 0) > 0 && allowed.length === 0) {
    throw invalid(`no matchLabelExpressions with key ${LABEL_TOPOLOGY_ZONE} found`);
  }
  if (allowed.length > 0) {
    if (classNamesZones) {
      throw invalid('zone[s] cannot be specified in StorageClass if allowedTopologies is specified', zoneParameter !== undefined ? zoneName : 'zones');
    }
    return includingZone(allowed, claimName, nodeZone, replicas);
  }
  if (zoneParameter !== undefined) {
    if (replicas > 1) throw invalid('zone cannot be used for a replicated volume; use zones', zoneName);
    return [zoneParameter];
  }
  if (zonesParameter !== undefined) {
    if (new Set(zonesParameter).size < replicas) {
      throw invalid(`not enough zones for a volume with ${replicas} replicas`, 'zones');
    }
    return chooseZonesForVolume(zonesParameter, claimName, replicas);
  }
  const fallback = await selection.fallbackZones();
  if (fallback.length === 0) {
    throw new PluginError('Backend', 'cannot determine a zone to provision the volume in', true);
  }
  return includingZone(fallback, claimName, nodeZone, replicas);
}

/** Splits a comma-separated zones parameter; undefined when any entry is empty. */
export function parseZoneList(value: string): string[] | undefined {
  const zones = value.split(',').map((zone) => zone.trim());
  return zones.some((zone) => zone === '') ? undefined : zones;
}
