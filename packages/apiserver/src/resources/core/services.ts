/**
 * Service (core/v1): what `kubectl cluster-info`, `kubectl create service` and in-cluster
 * clients look for. Defaults, ClusterIP and NodePort assignment (service-allocation.ts) and the
 * validation of ports, type and ExternalName as kube-apiserver does them; no traffic is routed
 * and no Endpoints are kept.
 */
import { ApiError } from '@pv-controller/kube/errors.js';
import type { KubeObject, StatusCause } from '@pv-controller/kube/types.js';
import { QualifiedInvalidError } from '../../api/errors.js';
import { fieldLabelTable, keepStored, resourceInfo } from '../common.js';
import { appendCauses, duplicate, invalid, notSupported, required } from '../../api/field-errors.js';
import { nameIsDNSLabel, validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';
import { AGE_COLUMN, NAME_COLUMN, age, column } from '../printing.js';
import {
  assignNodePorts,
  isAllocatableIP,
  isNodePortType,
  nextClusterIP,
  specOf,
  usedClusterIPs,
  usedNodePorts,
  type ServicePort,
  type ServiceSpec,
} from './service-allocation.js';
import type { AdmissionContext, ResourceStrategy } from '../strategy.js';

const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const PORT_RANGE = 'must be between 1 and 65535, inclusive';

function defaultService(obj: KubeObject): void {
  const spec = (obj.spec ??= {}) as ServiceSpec;
  spec.type ??= 'ClusterIP';
  spec.sessionAffinity ??= 'None';
  for (const p of spec.ports ?? []) {
    p.protocol ??= 'TCP';
    if (p.targetPort === undefined || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  if (spec.type !== 'ExternalName') spec.internalTrafficPolicy ??= 'Cluster';
  if (isNodePortType(spec.type)) spec.externalTrafficPolicy ??= 'Cluster';
}

function validatePort(p: ServicePort, i: number, many: boolean, names: Set<string>): StatusCause[] {
  const at = `spec.ports[${i}]`;
  const causes: StatusCause[] = [];
  if (many && !p.name) causes.push(required(`${at}.name`));
  else if (p.name && names.has(p.name)) causes.push(duplicate(`${at}.name`, p.name));
  if (p.name) names.add(p.name);
  if (typeof p.port !== 'number' || p.port < 1 || p.port > 65535) causes.push(invalid(`${at}.port`, p.port ?? 0, PORT_RANGE));
  if (p.protocol !== undefined && !PROTOCOLS.includes(p.protocol)) causes.push(notSupported(`${at}.protocol`, p.protocol, PROTOCOLS));
  if (typeof p.targetPort === 'number' && (p.targetPort < 1 || p.targetPort > 65535)) {
    causes.push(invalid(`${at}.targetPort`, p.targetPort, PORT_RANGE));
  }
  return causes;
}

function validateSpec(spec: ServiceSpec): StatusCause[] {
  const causes: StatusCause[] = [];
  const headless = spec.clusterIP === 'None';
  const ports = spec.ports ?? [];
  if (ports.length === 0 && spec.type !== 'ExternalName' && !headless) causes.push(required('spec.ports'));
  const names = new Set<string>();
  ports.forEach((p, i) => appendCauses(causes, validatePort(p, i, ports.length > 1, names)));
  if (spec.type !== undefined && !SERVICE_TYPES.includes(spec.type)) causes.push(notSupported('spec.type', spec.type, SERVICE_TYPES));
  if (spec.type === 'ExternalName' && !spec.externalName) causes.push(required('spec.externalName'));
  return causes;
}

function validateService(obj: KubeObject): StatusCause[] {
  return [...validateObjectMeta(obj.metadata, true, nameIsDNSLabel), ...validateSpec(specOf(obj))];
}

function refuseClusterIP(obj: KubeObject, ips: string[], detail: string): never {
  throw new QualifiedInvalidError({ kind: 'Service', group: '', name: obj.metadata.name }, [
    invalid('spec.clusterIPs', ips, `failed to allocate IP ${ips[0]}: ${detail}`),
  ]);
}

/** The ClusterIP of a new Service: the one asked for if it is free and in range, else a free one at random. */
function allocateClusterIP(obj: KubeObject, spec: ServiceSpec, ctx: AdmissionContext): void {
  if (spec.type === 'ExternalName') return;
  const services = ctx.list('', 'services');
  const wanted = spec.clusterIP || spec.clusterIPs?.[0];
  if (wanted === 'None') {
    spec.clusterIPs = ['None'];
    // kube-apiserver makes a selector-less headless Service dual-stack (it may serve either family).
    const dual = spec.selector === undefined || Object.keys(spec.selector).length === 0;
    spec.ipFamilies ??= dual ? ['IPv4', 'IPv6'] : ['IPv4'];
    spec.ipFamilyPolicy ??= dual ? 'RequireDualStack' : 'SingleStack';
    return;
  }
  const used = usedClusterIPs(services);
  if (wanted) {
    if (!isAllocatableIP(wanted)) refuseClusterIP(obj, [wanted], 'the provided network does not match the current range');
    if (used.has(wanted)) refuseClusterIP(obj, [wanted], 'provided IP is already allocated');
  }
  const ip = wanted || nextClusterIP(used);
  if (!ip) throw new ApiError(500, 'InternalError', 'Internal error occurred: failed to allocate a serviceIP: range is full');
  spec.clusterIP = ip;
  spec.clusterIPs = [ip];
  spec.ipFamilies ??= ['IPv4'];
  spec.ipFamilyPolicy ??= 'SingleStack';
  if (isNodePortType(spec.type)) assignNodePorts(spec, usedNodePorts(services));
}

/** An update that leaves out what was allocated keeps it, as kube-apiserver's patchAllocatedValues. */
function keepAllocated(next: ServiceSpec, prev: ServiceSpec): void {
  if (next.type === 'ExternalName') return;
  next.clusterIP ||= prev.clusterIP;
  next.clusterIPs ??= prev.clusterIPs;
  next.ipFamilies ??= prev.ipFamilies;
  next.ipFamilyPolicy ??= prev.ipFamilyPolicy;
  if (!isNodePortType(next.type)) return;
  const allocated = new Map<string, number | undefined>();
  for (const q of [...(prev.ports ?? [])].reverse()) allocated.set(`${q.port}/${q.protocol ?? 'TCP'}`, q.nodePort);
  for (const p of next.ports ?? []) p.nodePort ||= allocated.get(`${p.port}/${p.protocol ?? 'TCP'}`);
}

function clusterIPChange(next: ServiceSpec, prev: ServiceSpec): StatusCause[] {
  if (next.type === 'ExternalName' || prev.clusterIP === undefined || next.clusterIP === prev.clusterIP) return [];
  return [invalid('spec.clusterIPs[0]', next.clusterIP ?? '', 'may not change once set')];
}

function portsText(spec: ServiceSpec): string {
  const ports = spec.ports ?? [];
  if (ports.length === 0) return '<none>';
  return ports.map((p) => `${p.port ?? 0}${p.nodePort ? `:${p.nodePort}` : ''}/${p.protocol ?? 'TCP'}`).join(',');
}

function selectorText(spec: ServiceSpec): string {
  const entries = Object.entries(spec.selector ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return entries.length === 0 ? '<none>' : entries.map(([k, v]) => `${k}=${v}`).join(',');
}

function externalIPText(spec: ServiceSpec, obj: KubeObject): string {
  if (spec.type === 'ExternalName') return spec.externalName ?? '<none>';
  const ingress = ((obj.status as { loadBalancer?: { ingress?: { ip?: string; hostname?: string }[] } } | undefined)?.loadBalancer?.ingress ?? [])
    .map((i) => i.ip || i.hostname || '');
  const ips = [...(spec.externalIPs ?? []), ...ingress].filter((ip) => ip !== '');
  if (ips.length > 0) return ips.join(',');
  return spec.type === 'LoadBalancer' ? '<pending>' : '<none>';
}

export const serviceStrategy: ResourceStrategy = {
  info: resourceInfo({ group: '', version: 'v1', plural: 'services', kind: 'Service', namespaced: true, shortNames: ['svc'],
    hasStatus: true, categories: ['all'] }),
  // kube-apiserver's service strategy: a PUT to a missing Service creates it.
  allowCreateOnUpdate: true,

  defaults: defaultService,
  prepareForCreate(obj, ctx) {
    obj.status = { loadBalancer: {} };
    allocateClusterIP(obj, specOf(obj), ctx);
  },
  validateCreate: validateService,
  prepareForUpdate(next, prev) {
    keepStored(next, prev, 'status');
    keepAllocated(specOf(next), specOf(prev));
  },
  validateUpdate(next, prev) {
    return [...validateService(next), ...clusterIPChange(specOf(next), specOf(prev)), ...validateObjectMetaUpdate(next.metadata, prev.metadata)];
  },
  prepareForStatusUpdate(next, prev) {
    keepStored(next, prev, 'spec');
  },
  validateStatusUpdate(next, prev) {
    return validateObjectMetaUpdate(next.metadata, prev.metadata);
  },

  fields(obj) {
    const spec = specOf(obj);
    return { 'spec.clusterIP': spec.clusterIP ?? '', 'spec.type': spec.type ?? '' };
  },
  fieldLabels: fieldLabelTable(['metadata.namespace', 'metadata.name', 'spec.clusterIP', 'spec.type']),

  tableColumns: [
    NAME_COLUMN,
    column('Type', 'type determines how the Service is exposed.'),
    column('Cluster-IP', 'clusterIP is the IP address of the service and is usually assigned randomly.'),
    column('External-IP', 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.'),
    column('Port(s)', 'The list of ports that are exposed by this service.'),
    AGE_COLUMN,
    column('Selector', 'Route service traffic to pods with label keys and values matching this selector.', { priority: 1 }),
  ],

  tableRow(obj, now) {
    const spec = specOf(obj);
    return [obj.metadata.name ?? '', spec.type ?? '', spec.clusterIP || '<none>', externalIPText(spec, obj), portsText(spec),
      age(obj.metadata.creationTimestamp, now), selectorText(spec)];
  },
};
