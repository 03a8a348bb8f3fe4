/** Node (core/v1), lightly: name syntax, status kept on update, `kubectl get nodes` columns. */
import type { KubeObject, Node, StatusCause } from '@pv-controller/kube/types.js';
import { fieldLabelTable, keepStored, nullUnsetConditionTimes, resourceInfo } from '../common.js';
import { isQualifiedName, isValidLabelValue } from '@pv-controller/kube/name-validation.js';
import { appendCauses, invalid, invalidEach, notSupported, required } from '../../api/field-errors.js';
import { nameIsDNSSubdomain, validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';
import { AGE_COLUMN, NAME_COLUMN, age, column, field } from '../printing.js';
import type { ResourceStrategy } from '../strategy.js';

const ROLE_LABEL_PREFIX = 'node-role.kubernetes.io/';
const ROLE_LABEL = 'kubernetes.io/role';

interface NodeStatusView {
  conditions?: { type?: string; status?: string }[];
  addresses?: { type?: string; address?: string }[];
  nodeInfo?: { kubeletVersion?: string; osImage?: string; kernelVersion?: string; containerRuntimeVersion?: string };
}

const asNode = (obj: KubeObject): Node => obj as Node;
const statusView = (node: Node): NodeStatusView => (node.status ?? {}) as NodeStatusView;

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** validateNodeTaints, under the "metadata.taints" path kube-apiserver reports them at. */
function validateTaints(node: Node): StatusCause[] {
  const causes: StatusCause[] = [];
  const taints = Array.isArray(node.spec?.taints) ? (node.spec.taints as { key?: string; value?: string; effect?: string }[]) : [];
  taints.forEach((t, i) => {
    const at = `metadata.taints[${i}]`;
    appendCauses(causes, invalidEach(`${at}.key`, t?.key ?? '', isQualifiedName(String(t?.key ?? ''))));
    const valueErrors = isValidLabelValue(String(t?.value ?? ''));
    if (valueErrors.length > 0) causes.push(invalid(`${at}.value`, t?.value ?? '', valueErrors.join(';')));
    if (!t?.effect) causes.push(required(`${at}.effect`));
    else if (!TAINT_EFFECTS.includes(t.effect)) causes.push(notSupported(`${at}.effect`, t.effect, TAINT_EFFECTS));
  });
  return causes;
}

function validateNode(obj: KubeObject): StatusCause[] {
  return [...validateObjectMeta(obj.metadata, false, nameIsDNSSubdomain), ...validateTaints(asNode(obj))];
}

const NODE_INFO_FIELDS = ['architecture', 'bootID', 'containerRuntimeVersion', 'kernelVersion', 'kubeProxyVersion',
  'kubeletVersion', 'machineID', 'operatingSystem', 'osImage', 'systemUUID'];

/** NodeStatus's struct fields without omitempty serialise even when unset: the daemon endpoint and the node info. */
function fillNodeStatus(node: Node): void {
  if (typeof node.spec !== 'object' || node.spec === null) node.spec = {};
  if (typeof node.status !== 'object' || node.status === null) node.status = {};
  const status = node.status;
  const endpoints = (typeof status.daemonEndpoints === 'object' && status.daemonEndpoints !== null ? status.daemonEndpoints : {}) as Record<string, unknown>;
  const kubelet = (typeof endpoints.kubeletEndpoint === 'object' && endpoints.kubeletEndpoint !== null ? endpoints.kubeletEndpoint : {}) as Record<string, unknown>;
  kubelet.Port ??= 0;
  status.daemonEndpoints = { ...endpoints, kubeletEndpoint: kubelet };
  const info = (typeof status.nodeInfo === 'object' && status.nodeInfo !== null ? status.nodeInfo : {}) as Record<string, unknown>;
  for (const f of NODE_INFO_FIELDS) info[f] ??= '';
  status.nodeInfo = info;
  nullUnsetConditionTimes(status, ['lastHeartbeatTime', 'lastTransitionTime']);
}

/** TaintNodesByCondition admission: a new Node is not ready until its kubelet says otherwise. */
function addNotReadyTaint(node: Node): void {
  const spec = node.spec ?? {};
  const taints = Array.isArray(spec.taints) ? (spec.taints as { key?: string; effect?: string }[]) : [];
  if (taints.some((t) => t?.key === 'node.kubernetes.io/not-ready' && t?.effect === 'NoSchedule')) return;
  node.spec = { ...spec, taints: [...taints, { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] };
}

function nodeStatusText(node: Node): string {
  const ready = (statusView(node).conditions ?? []).find((c) => c.type === 'Ready');
  const parts = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (node.spec?.unschedulable === true) parts.push('SchedulingDisabled');
  return parts.join(',');
}

function nodeRoles(node: Node): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(node.metadata.labels ?? {})) {
    if (k.startsWith(ROLE_LABEL_PREFIX) && k.length > ROLE_LABEL_PREFIX.length) roles.add(k.slice(ROLE_LABEL_PREFIX.length));
    else if (k === ROLE_LABEL && v) roles.add(v);
  }
  return roles.size ? [...roles].sort().join(',') : '<none>';
}

function address(node: Node, type: string): string {
  return (statusView(node).addresses ?? []).find((a) => a.type === type)?.address || '<none>';
}

export const nodeStrategy: ResourceStrategy = {
  info: resourceInfo({ group: '', version: 'v1', plural: 'nodes', kind: 'Node', namespaced: false, shortNames: ['no'],
    hasStatus: true }),
  deleteAnswersStatus: true,

  defaults(obj) {
    fillNodeStatus(asNode(obj));
  },
  prepareForCreate(obj) {
    addNotReadyTaint(asNode(obj));
  },
  validateCreate: validateNode,
  prepareForUpdate(next, prev) {
    keepStored(next, prev, 'status');
  },
  validateUpdate(next, prev) {
    return [...validateNode(next), ...validateObjectMetaUpdate(next.metadata, prev.metadata)];
  },
  prepareForStatusUpdate(next, prev) {
    keepStored(next, prev, 'spec');
  },
  validateStatusUpdate(next, prev) {
    return validateObjectMetaUpdate(next.metadata, prev.metadata);
  },

  fields(obj) {
    return { 'spec.unschedulable': String(asNode(obj).spec?.unschedulable === true) };
  },

  fieldLabels: fieldLabelTable(['metadata.name', 'spec.unschedulable']),

  tableColumns: [
    NAME_COLUMN,
    column('Status', 'The status of the node'),
    column('Roles', 'The roles of the node'),
    AGE_COLUMN,
    column('Version', field('NodeSystemInfo', 'kubeletVersion')),
    column('Internal-IP', field('NodeStatus', 'addresses'), { priority: 1 }),
    column('External-IP', field('NodeStatus', 'addresses'), { priority: 1 }),
    column('OS-Image', field('NodeSystemInfo', 'osImage'), { priority: 1 }),
    column('Kernel-Version', field('NodeSystemInfo', 'kernelVersion'), { priority: 1 }),
    column('Container-Runtime', field('NodeSystemInfo', 'containerRuntimeVersion'), { priority: 1 }),
  ],

  tableRow(obj, now) {
    const node = asNode(obj);
    const info = statusView(node).nodeInfo ?? {};
    return [
      node.metadata.name ?? '',
      nodeStatusText(node),
      nodeRoles(node),
      age(node.metadata.creationTimestamp, now),
      info.kubeletVersion ?? '',
      address(node, 'InternalIP'),
      address(node, 'ExternalIP'),
      info.osImage || '<unknown>',
      info.kernelVersion || '<unknown>',
      info.containerRuntimeVersion || '<unknown>',
    ];
  },
};
