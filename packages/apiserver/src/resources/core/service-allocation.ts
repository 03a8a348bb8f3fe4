/**
 * ClusterIPs and NodePorts for Services. The embedded server routes no traffic, but clients
 * expect the addresses to be there, so it hands them out as kube-apiserver does from its
 * defaults: ClusterIPs from 10.0.0.0/24 (10.0.0.1 is the `kubernetes` Service) at random, as
 * kube-apiserver's allocator picks them, from the upper band first (the lowest 16 addresses are
 * kept for Services that ask for one, KEP-3070); NodePorts from 30000-32767, the lowest free one
 * among the Services stored. Headless Services (clusterIP None) and ExternalName ones get none.
 */
import type { KubeObject } from '@pv-controller/kube/types.js';

/** Service IPs come from 10.0.0.0/24. */
const IP_PREFIX = '10.0.0.';
/** .0 is the network, .255 the broadcast address; .1 belongs to the `kubernetes` Service. */
const FIRST_HOST = 1;
const LAST_HOST = 254;
export const KUBERNETES_SERVICE_IP = `${IP_PREFIX}${FIRST_HOST}`;
const NODE_PORT_MIN = 30000;
const NODE_PORT_MAX = 32767;

export interface ServicePort {
  name?: string;
  protocol?: string;
  port?: number;
  targetPort?: number | string;
  nodePort?: number;
}

export interface ServiceSpec {
  type?: string;
  ports?: ServicePort[];
  selector?: Record<string, string>;
  clusterIP?: string;
  clusterIPs?: string[];
  externalName?: string;
  sessionAffinity?: string;
  ipFamilies?: string[];
  ipFamilyPolicy?: string;
  internalTrafficPolicy?: string;
  externalTrafficPolicy?: string;
  externalIPs?: string[];
}

export const specOf = (obj: KubeObject): ServiceSpec => (obj.spec ?? {}) as ServiceSpec;

/** Whether an address lies in SERVICE_CIDR and may be handed out. */
export function isAllocatableIP(ip: string): boolean {
  if (!ip.startsWith(IP_PREFIX)) return false;
  const host = ip.slice(IP_PREFIX.length);
  if (!/^(0|[1-9]\d{0,2})$/.test(host)) return false;
  const n = Number(host);
  return n >= FIRST_HOST && n <= LAST_HOST;
}

export function usedClusterIPs(services: KubeObject[]): Set<string> {
  return new Set(services.flatMap((s) => specOf(s).clusterIPs ?? []));
}

/**
 * The host numbers below this are kept for static allocation: kube-apiserver's range offset for
 * a /24 (its size / 16, at least 16), which dynamic allocation takes from last.
 */
const STATIC_BAND_END = 16;

function freeHosts(used: Set<string>, first: number, last: number): string[] {
  const out: string[] = [];
  for (let n = first; n <= last; n++) if (!used.has(`${IP_PREFIX}${n}`)) out.push(`${IP_PREFIX}${n}`);
  return out;
}

/** A free ClusterIP at random, from the dynamic band first; undefined when the range is exhausted. */
export function nextClusterIP(used: Set<string>, random: () => number = Math.random): string | undefined {
  for (const [first, last] of [[STATIC_BAND_END + 1, LAST_HOST], [FIRST_HOST, STATIC_BAND_END]]) {
    const free = freeHosts(used, first, last);
    if (free.length > 0) return free[Math.floor(random() * free.length)];
  }
  return undefined;
}

export function usedNodePorts(services: KubeObject[]): Set<number> {
  return new Set(services.flatMap((s) => (specOf(s).ports ?? []).map((p) => p.nodePort ?? 0)).filter((p) => p > 0));
}

/** Gives every port of a NodePort/LoadBalancer Service without one the lowest free NodePort. */
export function assignNodePorts(spec: ServiceSpec, used: Set<number>): void {
  let candidate = NODE_PORT_MIN;
  for (const port of spec.ports ?? []) {
    if (port.nodePort) continue;
    while (used.has(candidate) && candidate <= NODE_PORT_MAX) candidate++;
    if (candidate > NODE_PORT_MAX) return;
    port.nodePort = candidate;
    used.add(candidate);
  }
}

export function isNodePortType(type: string | undefined): boolean {
  return type === 'NodePort' || type === 'LoadBalancer';
}
