/** Node (core/v1), lightly: name syntax, status kept on update, `kubectl get nodes` columns. */
import type { KubeObject, Node, StatusCause } from '../../kube/types.js';
import { keepStored, resourceInfo } from './common.js';
import { nameIsDNSSubdomain, validateObjectMeta, validateObjectMetaUpdate } from './object-meta.js';
import { AGE_COLUMN, NAME_COLUMN, age, column, field } from './printing.js';
import type { ResourceStrategy } from './strategy.js';

const ROLE_LABEL_PREFIX = 'node-role.kubernetes.io/';
const ROLE_LABEL = 'kubernetes.io/role';

interface NodeStatusView {
  conditions?: { type?: string; status?: string }[];
  addresses?: { type?: string; address?: string }[];
  nodeInfo?: { kubeletVersion?: string; osImage?: string; kernelVersion?: string; containerRuntimeVersion?: string };
}

const asNode = (obj: KubeObject): Node => obj as Node;
const statusView = (node: Node): NodeStatusView => (node.status ?? {}) as NodeStatusView;

function validateNode(obj: KubeObject): StatusCause[] {
  return validateObjectMeta(obj.metadata, false, nameIsDNSSubdomain);
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

  defaults() {},
  prepareForCreate() {},
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
