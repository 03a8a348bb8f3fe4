/**
 * Legacy discovery documents (/api, /apis, /api/v1, /apis/{g}, /apis/{g}/{v}) and /version,
 * built from the strategies. kubectl resolves `pv`, `pvc`, `sc` through the shortNames here;
 * it asks for aggregated discovery first and falls back to these when answered with plain JSON.
 */
import { createHash } from 'node:crypto';
import type { ResourceInfo, ResourceStrategy } from '../resources/strategy.js';

/** Anything discovery lists: a resource strategy, or a resource served without one (the reviews). */
export interface ServedResource {
  info: ResourceInfo;
  /** Present where a `/finalize` subresource is served (Namespaces). */
  prepareForFinalizeUpdate?: ResourceStrategy['prepareForFinalizeUpdate'];
  /** Served without being stored (the reviews): no storage version, so no storageVersionHash. */
  unstored?: boolean;
}

/**
 * The Kubernetes version whose API this server answers like (the differential corpus measures it
 * against that kube-apiserver), so kubectl of that version sees no version skew.
 */
export const SERVER_VERSION = {
  major: '1',
  minor: '37',
  emulationMajor: '1',
  emulationMinor: '37',
  minCompatibilityMajor: '1',
  minCompatibilityMinor: '36',
  gitVersion: 'v1.37.2-pvcontroller',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2026-01-01T00:00:00Z',
  goVersion: 'n/a',
  compiler: 'node',
  platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
};

interface GroupVersion {
  groupVersion: string;
  version: string;
}

function groupVersionOf(s: ServedResource): string {
  return s.info.group ? `${s.info.group}/${s.info.version}` : s.info.version;
}

/** Non-core groups with their versions, in first-seen order. */
function groups(strategies: ServedResource[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const s of strategies) {
    if (s.info.group === '') continue;
    const versions = out.get(s.info.group) ?? [];
    if (!versions.includes(s.info.version)) versions.push(s.info.version);
    out.set(s.info.group, versions);
  }
  return out;
}

function apiGroup(name: string, versions: string[]): Record<string, unknown> {
  const gvs: GroupVersion[] = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: gvs, preferredVersion: gvs[0] };
}

export function apiVersions(serverAddress: string): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

export function apiGroupList(strategies: ServedResource[]): Record<string, unknown> {
  const list = [...groups(strategies)].map(([name, versions]) => apiGroup(name, versions));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: list };
}

/** `/apis/{group}`; undefined when the group is not served. */
export function apiGroupDocument(strategies: ServedResource[], group: string): Record<string, unknown> | undefined {
  const versions = groups(strategies).get(group);
  if (!versions) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(group, versions) };
}

/**
 * Discovery's storageVersionHash: the first 8 bytes of SHA-256 over "group/version/kind" of the
 * version the resource is stored in, base64 (kube-apiserver's StorageVersionHash). It changes
 * exactly when the storage version does, which is what the storage version migrator watches.
 */
function storageVersionHash(info: ResourceInfo): string {
  const stored = info.storedAs ?? { group: info.group, version: info.version };
  return createHash('sha256').update(`${stored.group}/${stored.version}/${info.kind}`).digest().subarray(0, 8).toString('base64');
}

/** `/api/v1` or `/apis/{group}/{version}`; undefined when nothing is served there. */
export function apiResourceList(
  strategies: ServedResource[],
  group: string,
  version: string,
): Record<string, unknown> | undefined {
  const served = strategies.filter((s) => s.info.group === group && s.info.version === version);
  if (served.length === 0) return undefined;
  const resources: Record<string, unknown>[] = [];
  for (const s of served) {
    const i = s.info;
    const entry: Record<string, unknown> = {
      name: i.plural,
      singularName: i.singular,
      namespaced: i.namespaced,
      kind: i.kind,
      verbs: i.verbs,
      ...(s.unstored === true ? {} : { storageVersionHash: storageVersionHash(i) }),
    };
    if (i.shortNames.length > 0) entry.shortNames = i.shortNames;
    if (i.categories && i.categories.length > 0) entry.categories = i.categories;
    resources.push(entry);
    if (s.prepareForFinalizeUpdate) {
      resources.push({ name: `${i.plural}/finalize`, singularName: '', namespaced: i.namespaced, kind: i.kind, verbs: ['update'] });
    }
    if (i.hasStatus) {
      resources.push({ name: `${i.plural}/status`, singularName: '', namespaced: i.namespaced, kind: i.kind, verbs: ['get', 'patch', 'update'] });
    }
  }
  // kube-apiserver's legacy /api/v1 list carries no apiVersion; the group-version lists do.
  return { kind: 'APIResourceList', ...(group ? { apiVersion: 'v1' } : {}), groupVersion: groupVersionOf(served[0]), resources };
}
