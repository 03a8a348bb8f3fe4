/**
 * Small stand-in resources for registry/watch tests, so those tests exercise the registry's
 * generic semantics and not any real resource's rules: cluster-scoped `widgets.example.com`
 * (with status) and namespaced core `gadgets`, plus a minimal `namespaces`.
 */
import type { KubeObject, StatusCause } from '@pv-controller/kube/types.js';
import type { ResourceInfo, ResourceStrategy, TableColumn } from '@pv-controller/apiserver/resources/strategy.js';

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

const COLUMNS: TableColumn[] = [
  { name: 'Name', type: 'string', format: 'name', description: 'name', priority: 0 },
  { name: 'Size', type: 'integer', format: '', description: 'size', priority: 0 },
  { name: 'Phase', type: 'string', format: '', description: 'phase', priority: 0 },
];

interface Spec {
  size?: number;
  color?: string;
}

function specOf(o: KubeObject): Spec {
  return (o.spec ?? {}) as Spec;
}

function strategy(info: ResourceInfo): ResourceStrategy {
  return {
    info,
    defaults(obj) {
      const spec = specOf(obj);
      if (obj.spec && spec.color === undefined) (obj.spec as Spec).color = 'grey';
    },
    prepareForCreate(obj) {
      if (info.hasStatus) obj.status = { phase: 'Pending' };
    },
    validateCreate(obj): StatusCause[] {
      if (info.plural === 'namespaces') return [];
      return specOf(obj).size === undefined
        ? [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.size' }]
        : [];
    },
    prepareForUpdate(next, prev) {
      if (info.hasStatus) next.status = prev.status;
    },
    validateUpdate(next): StatusCause[] {
      const size = specOf(next).size;
      return size !== undefined && size < 0
        ? [{ reason: 'FieldValueInvalid', message: `Invalid value: ${size}: must be non-negative`, field: 'spec.size' }]
        : [];
    },
    prepareForStatusUpdate(next, prev) {
      next.spec = prev.spec;
    },
    validateStatusUpdate(): StatusCause[] {
      return [];
    },
    fields(obj) {
      return { 'spec.color': specOf(obj).color ?? '' };
    },
    fieldLabels: { 'metadata.name': 'metadata.name', 'metadata.namespace': 'metadata.namespace', 'spec.color': 'spec.color' },
    tableColumns: COLUMNS,
    tableRow(obj) {
      return [obj.metadata.name, specOf(obj).size ?? 0, (obj.status as { phase?: string } | undefined)?.phase ?? ''];
    },
  };
}

/** Widgets count spec changes in metadata.generation (as Pods do); gadgets do not. */
export const widgets: ResourceStrategy = { ...strategy({
  group: 'example.com',
  version: 'v1',
  plural: 'widgets',
  singular: 'widget',
  kind: 'Widget',
  listKind: 'WidgetList',
  namespaced: false,
  shortNames: ['wd'],
  verbs: VERBS,
  hasStatus: true,
}), tracksGeneration: true };

export const gadgets = strategy({
  group: '',
  version: 'v1',
  plural: 'gadgets',
  singular: 'gadget',
  kind: 'Gadget',
  listKind: 'GadgetList',
  namespaced: true,
  shortNames: ['gd'],
  verbs: VERBS,
  hasStatus: false,
});

export const namespaces = strategy({
  group: '',
  version: 'v1',
  plural: 'namespaces',
  singular: 'namespace',
  kind: 'Namespace',
  listKind: 'NamespaceList',
  namespaced: false,
  shortNames: ['ns'],
  verbs: VERBS,
  hasStatus: false,
});

export const fakeStrategies = [widgets, gadgets, namespaces];
