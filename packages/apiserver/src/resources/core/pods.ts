/**
 * Pod (core/v1): the PV machinery only reads which claims pods use and where they run, but a Pod
 * is defaulted, admitted and validated as kube-apiserver does (pod-defaults.ts, pod-validation.ts).
 * Status Pending with its QoS class on create, status kept on update, `spec.nodeName`/`status.phase`
 * selectable, and the `kubectl get pods` columns.
 */
import { isDNS1123Label } from '@pv-controller/kube/name-validation.js';
import type { KubeObject, Pod, StatusCause } from '@pv-controller/kube/types.js';
import { fieldLabelTable, keepStored, nullUnsetConditionTimes, resourceInfo } from '../common.js';
import { appendCauses, duplicate, invalidEach, required } from '../../api/field-errors.js';
import { nameIsDNSSubdomain, validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';
import { admitPodCreate, admitPodUpdate, defaultPod, podQOSClass } from './pod-defaults.js';
import { validatePodSpec, validatePodSpecUpdate } from './pod-validation.js';
import { AGE_COLUMN, NAME_COLUMN, age, column, field } from '../printing.js';
import type { ResourceStrategy } from '../strategy.js';

interface ContainerStatus {
  ready?: boolean;
  restartCount?: number;
  state?: { waiting?: { reason?: string }; running?: unknown; terminated?: { reason?: string; signal?: number; exitCode?: number } };
}

const asPod = (obj: KubeObject): Pod => obj as Pod;
const orNone = (v: unknown): string => (typeof v === 'string' && v ? v : '<none>');

function validateVolumes(pod: Pod): StatusCause[] {
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  (pod.spec?.volumes ?? []).forEach((vol, i) => {
    const at = `spec.volumes[${i}]`;
    if (!vol?.name) causes.push(required(`${at}.name`));
    else {
      appendCauses(causes, invalidEach(`${at}.name`, vol.name, isDNS1123Label(vol.name)));
      if (seen.has(vol.name)) causes.push(duplicate(`${at}.name`, vol.name));
      seen.add(vol.name);
    }
    if (vol?.persistentVolumeClaim && !vol.persistentVolumeClaim.claimName) {
      causes.push(required(`${at}.persistentVolumeClaim.claimName`));
    }
  });
  return causes;
}

function validatePod(obj: KubeObject): StatusCause[] {
  const pod = asPod(obj);
  return [...validateObjectMeta(pod.metadata, true, nameIsDNSSubdomain), ...validatePodSpec(pod), ...validateVolumes(pod)];
}

/**
 * The pod strategy's CheckGracefulDelete: the period asked for, else the Pod's own; none for a
 * Pod no kubelet runs (unscheduled) or that has finished; a negative one becomes 1.
 */
function podGracePeriod(obj: KubeObject, requested: number | undefined): number {
  const pod = asPod(obj);
  const own = typeof pod.spec?.terminationGracePeriodSeconds === 'number' ? pod.spec.terminationGracePeriodSeconds : undefined;
  let period = requested ?? own ?? 0;
  if (!pod.spec?.nodeName) period = 0;
  if (pod.status?.phase === 'Failed' || pod.status?.phase === 'Succeeded') period = 0;
  return period < 0 ? 1 : period;
}

/** printPod, without init containers: the reason shown in STATUS, ready count and restarts. */
function podSummary(pod: Pod): { reason: string; ready: number; restarts: number } {
  let reason = String(pod.status?.reason || pod.status?.phase || '');
  let ready = 0;
  let restarts = 0;
  const statuses = (Array.isArray(pod.status?.containerStatuses) ? pod.status.containerStatuses : []) as ContainerStatus[];
  for (const cs of [...statuses].reverse()) {
    restarts += cs.restartCount ?? 0;
    const state = cs.state ?? {};
    if (state.waiting?.reason) reason = state.waiting.reason;
    else if (state.terminated?.reason) reason = state.terminated.reason;
    else if (state.terminated) {
      reason = state.terminated.signal ? `Signal:${state.terminated.signal}` : `ExitCode:${state.terminated.exitCode ?? 0}`;
    } else if (cs.ready && state.running) ready++;
  }
  if (pod.metadata.deletionTimestamp) reason = pod.status?.reason === 'NodeLost' ? 'Unknown' : 'Terminating';
  return { reason, ready, restarts };
}

export const podStrategy: ResourceStrategy = {
  info: resourceInfo({ group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true, shortNames: ['po'],
    hasStatus: true, categories: ['all'] }),
  tracksGeneration: true,
  gracePeriodSeconds: podGracePeriod,

  defaults(obj) {
    const pod = asPod(obj);
    defaultPod(pod);
    if (typeof pod.status !== 'object' || pod.status === null) pod.status = {};
    if (!pod.status.phase) pod.status.phase = 'Pending';
    nullUnsetConditionTimes(pod.status, ['lastProbeTime', 'lastTransitionTime']);
  },
  prepareForCreate(obj) {
    const pod = asPod(obj);
    admitPodCreate(pod);
    pod.status = { phase: 'Pending', qosClass: podQOSClass(pod) };
  },
  validateCreate: validatePod,
  prepareForUpdate(next, prev) {
    admitPodUpdate(asPod(next), asPod(prev));
    keepStored(next, prev, 'status');
  },
  validateUpdate(next, prev) {
    return [...validatePod(next), ...validateObjectMetaUpdate(next.metadata, prev.metadata), ...validatePodSpecUpdate(next, prev)];
  },
  prepareForStatusUpdate(next, prev) {
    keepStored(next, prev, 'spec');
    const status = next.status as Record<string, unknown> | undefined;
    const storedQOS = (prev.status as Record<string, unknown> | undefined)?.qosClass;
    if (status && !status.qosClass && storedQOS !== undefined) status.qosClass = storedQOS;
    if (prev.metadata.ownerReferences === undefined) delete next.metadata.ownerReferences;
    else next.metadata.ownerReferences = structuredClone(prev.metadata.ownerReferences);
  },
  validateStatusUpdate(next, prev) {
    return validateObjectMetaUpdate(next.metadata, prev.metadata);
  },

  fields(obj) {
    const pod = asPod(obj);
    const spec = pod.spec ?? {};
    const status = pod.status ?? {};
    return {
      'spec.nodeName': String(spec.nodeName ?? ''),
      'spec.restartPolicy': String(spec.restartPolicy ?? ''),
      'spec.schedulerName': String(spec.schedulerName ?? ''),
      'spec.serviceAccountName': String(spec.serviceAccountName ?? ''),
      'spec.hostNetwork': String(spec.hostNetwork === true),
      'status.phase': String(status.phase ?? ''),
      'status.podIP': String(status.podIP ?? ''),
      'status.nominatedNodeName': String(status.nominatedNodeName ?? ''),
    };
  },

  // status.podIPs is accepted but selects on nothing upstream's field set holds (it matches "").
  fieldLabels: fieldLabelTable(
    ['metadata.name', 'metadata.namespace', 'spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName',
      'spec.hostNetwork', 'status.phase', 'status.podIP', 'status.podIPs', 'status.nominatedNodeName'],
    { 'spec.host': 'spec.nodeName' },
  ),

  tableColumns: [
    NAME_COLUMN,
    column('Ready', 'The aggregate readiness state of this pod for accepting traffic.'),
    column('Status', 'The aggregate status of the containers in this pod.'),
    column('Restarts', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
    AGE_COLUMN,
    column('IP', field('PodStatus', 'podIP'), { priority: 1 }),
    column('Node', field('PodSpec', 'nodeName'), { priority: 1 }),
    column('Nominated Node', field('PodStatus', 'nominatedNodeName'), { priority: 1 }),
    column('Readiness Gates', field('PodSpec', 'readinessGates'), { priority: 1 }),
  ],

  tableRow(obj, now) {
    const pod = asPod(obj);
    const { reason, ready, restarts } = podSummary(pod);
    const total = Array.isArray(pod.spec?.containers) ? pod.spec.containers.length : 0;
    const gates = Array.isArray(pod.spec?.readinessGates) ? pod.spec.readinessGates.length : 0;
    return [
      pod.metadata.name ?? '',
      `${ready}/${total}`,
      reason,
      String(restarts),
      age(pod.metadata.creationTimestamp, now),
      orNone(pod.status?.podIP),
      orNone(pod.spec?.nodeName),
      orNone(pod.status?.nominatedNodeName),
      gates ? `0/${gates}` : '<none>',
    ];
  },
};
