/**
 * What kube-apiserver fills into a Pod: the core/v1 defaulting (SetDefaults_Pod, _PodSpec,
 * _Container, _Probe, _Volume in pkg/apis/core/v1/defaults.go), the admission plugins every
 * cluster enables (Priority without PriorityClasses of its own, DefaultTolerationSeconds) and the
 * QoS class PrepareForCreate computes (pkg/apis/core/helper/qos).
 */
import { ApiError } from '@pv-controller/kube/errors.js';
import type { Pod } from '@pv-controller/kube/types.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const objectsIn = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** Sets `obj[key]` when the client left it out (Go's zero value is "unset" for these fields). */
function fill(obj: Json, key: string, value: unknown): void {
  if (obj[key] === undefined || obj[key] === null || obj[key] === '') obj[key] = value;
}

/** SetDefaults_Container: the pull policy follows the image's tag (":latest" or none pulls Always). */
function imagePullPolicy(image: unknown): string {
  const ref = String(image ?? '');
  if (ref.includes('@')) return 'IfNotPresent';
  const lastPart = ref.slice(ref.lastIndexOf('/') + 1);
  const tag = lastPart.includes(':') ? lastPart.slice(lastPart.indexOf(':') + 1) : '';
  return tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultProbe(probe: unknown): void {
  if (!isObject(probe)) return;
  fill(probe, 'timeoutSeconds', 1);
  fill(probe, 'periodSeconds', 10);
  fill(probe, 'successThreshold', 1);
  fill(probe, 'failureThreshold', 3);
}

/** SetDefaults_Pod's part for one container: requests default to the limits given. */
function defaultResources(container: Json): void {
  if (!isObject(container.resources)) container.resources = {};
  const resources = container.resources as Json;
  if (!isObject(resources.limits)) return;
  const requests: Json = isObject(resources.requests) ? resources.requests : {};
  for (const [name, quantity] of Object.entries(resources.limits)) if (requests[name] === undefined) requests[name] = quantity;
  resources.requests = requests;
}

function defaultContainer(container: Json, hostNetwork: boolean): void {
  fill(container, 'imagePullPolicy', imagePullPolicy(container.image));
  fill(container, 'terminationMessagePath', '/dev/termination-log');
  fill(container, 'terminationMessagePolicy', 'File');
  defaultResources(container);
  for (const port of objectsIn(container.ports)) {
    fill(port, 'protocol', 'TCP');
    if (hostNetwork) fill(port, 'hostPort', port.containerPort);
  }
  for (const env of objectsIn(container.env)) {
    const fieldRef = isObject(env.valueFrom) ? env.valueFrom.fieldRef : undefined;
    if (isObject(fieldRef)) fill(fieldRef, 'apiVersion', 'v1');
  }
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) defaultProbe(container[probe]);
}

const VOLUME_SOURCES_WITH_MODE = ['secret', 'configMap', 'downwardAPI', 'projected'];

/** SetDefaults_Volume and the per-source defaults: no source at all is an emptyDir. */
function defaultVolume(volume: Json): void {
  const sources = Object.keys(volume).filter((k) => k !== 'name');
  if (sources.length === 0) volume.emptyDir = {};
  for (const source of VOLUME_SOURCES_WITH_MODE) if (isObject(volume[source])) fill(volume[source], 'defaultMode', 420);
  if (isObject(volume.hostPath)) fill(volume.hostPath, 'type', '');
}

/** The core/v1 defaults of a Pod, on every create and update (they run when a body is decoded). */
export function defaultPod(pod: Pod): void {
  if (!isObject(pod.spec)) return;
  const spec = pod.spec as Json;
  fill(spec, 'dnsPolicy', 'ClusterFirst');
  fill(spec, 'restartPolicy', 'Always');
  fill(spec, 'terminationGracePeriodSeconds', 30);
  fill(spec, 'schedulerName', 'default-scheduler');
  if (spec.enableServiceLinks === undefined || spec.enableServiceLinks === null) spec.enableServiceLinks = true;
  if (!isObject(spec.securityContext)) spec.securityContext = {};
  const hostNetwork = spec.hostNetwork === true;
  for (const c of [...objectsIn(spec.initContainers), ...objectsIn(spec.containers), ...objectsIn(spec.ephemeralContainers)]) {
    defaultContainer(c, hostNetwork);
  }
  for (const v of objectsIn(spec.volumes)) defaultVolume(v);
}

/** The PriorityClasses every cluster has; any other name would need the PriorityClass API. */
const SYSTEM_PRIORITY_CLASSES: Record<string, number> = {
  'system-node-critical': 2000001000,
  'system-cluster-critical': 2000000000,
};

function forbidden(pod: Pod, message: string): ApiError {
  return new ApiError(403, 'Forbidden', `pods "${pod.metadata.name ?? ''}" is forbidden: ${message}`, { name: pod.metadata.name ?? '', kind: 'pods' });
}

/** The Priority admission plugin on create: priority from the class, 0 without one. */
function admitPriority(pod: Pod): void {
  const spec = pod.spec as Json;
  const className = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
  const priority = className === '' ? 0 : SYSTEM_PRIORITY_CLASSES[className];
  if (priority === undefined) throw forbidden(pod, `no PriorityClass with name ${className} was found`);
  if (typeof spec.priority === 'number' && spec.priority !== priority) {
    throw forbidden(pod, `the integer value of priority (${spec.priority}) must not be provided in pod spec; ` +
      `priority admission controller computed ${priority} from the given PriorityClass name`);
  }
  spec.priority = priority;
  fill(spec, 'preemptionPolicy', 'PreemptLowerPriority');
}

const NOT_READY = 'node.kubernetes.io/not-ready';
const UNREACHABLE = 'node.kubernetes.io/unreachable';

/** DefaultTolerationSeconds: 300 s of tolerance for a not-ready or unreachable node, unless the Pod says otherwise. */
function admitDefaultTolerations(spec: Json): void {
  const tolerations = objectsIn(spec.tolerations);
  const tolerates = (key: string): boolean => tolerations.some((t) =>
    (t.key === key || !t.key) && (t.effect === 'NoExecute' || !t.effect));
  const added = [NOT_READY, UNREACHABLE].filter((key) => !tolerates(key))
    .map((key) => ({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }));
  if (added.length > 0) spec.tolerations = [...(Array.isArray(spec.tolerations) ? spec.tolerations : []), ...added];
}

/** Mutating admission of a Pod create. */
export function admitPodCreate(pod: Pod): void {
  if (!isObject(pod.spec)) return;
  admitPriority(pod);
  admitDefaultTolerations(pod.spec as Json);
}

/** Mutating admission of a Pod update: priority carried from the stored Pod, default tolerations. */
export function admitPodUpdate(next: Pod, prev: Pod): void {
  if (!isObject(next.spec)) return;
  const spec = next.spec as Json;
  const stored = (isObject(prev.spec) ? prev.spec : {}) as Json;
  for (const key of ['priority', 'preemptionPolicy']) if (spec[key] === undefined && stored[key] !== undefined) spec[key] = stored[key];
  admitDefaultTolerations(spec);
}

const QOS_RESOURCES = ['cpu', 'memory'];

function quantityIsZero(q: unknown): boolean {
  return /^[+]?0*(\.0*)?([a-zA-Z]+|[eE][+-]?\d+)?$/.test(String(q));
}

/** GetPodQOS over the containers and init containers (pod-level resources win where set). */
export function podQOSClass(pod: Pod): string {
  const spec = (isObject(pod.spec) ? pod.spec : {}) as Json;
  const levels = isObject(spec.resources) ? [spec.resources] : [...objectsIn(spec.initContainers), ...objectsIn(spec.containers)]
    .map((c) => (isObject(c.resources) ? c.resources : {}));
  let any = false;
  let guaranteed = true;
  for (const r of levels) {
    const requests = isObject(r.requests) ? r.requests : {};
    const limits = isObject(r.limits) ? r.limits : {};
    for (const name of QOS_RESOURCES) {
      const req = requests[name] ?? limits[name];
      const limit = limits[name];
      if ((req !== undefined && !quantityIsZero(req)) || (limit !== undefined && !quantityIsZero(limit))) any = true;
      if (limit === undefined || quantityIsZero(limit) || String(req) !== String(limit)) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
