/** Namespace (core/v1): Active on create, spec/status kept on update, `status.phase` selectable. */
import { FINALIZER_NAMESPACE_KUBERNETES, LABEL_NAMESPACE_NAME } from '@pv-controller/kube/annotations.js';
import { isQualifiedName } from '@pv-controller/kube/name-validation.js';
import type { KubeObject, Namespace, StatusCause } from '@pv-controller/kube/types.js';
import { fieldLabelTable, keepStored, nullUnsetConditionTimes, resourceInfo } from '../common.js';
import { appendCauses, invalid, invalidEach } from '../../api/field-errors.js';
import { nameIsDNSLabel, validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';
import { AGE_COLUMN, NAME_COLUMN, age, column } from '../printing.js';
import type { ResourceStrategy } from '../strategy.js';

const STANDARD_FINALIZERS = ['kubernetes', 'orphan', 'foregroundDeletion'];

const asNamespace = (obj: KubeObject): Namespace => obj as Namespace;

/** validateFinalizerName for spec.finalizers: qualified, and unprefixed only if standard. */
function validateSpecFinalizers(ns: Namespace, indexed = false): StatusCause[] {
  const causes: StatusCause[] = [];
  (ns.spec?.finalizers ?? []).forEach((f, i) => {
    // ValidateNamespaceFinalizeUpdate names each entry; create and update validation the list.
    const field = indexed ? `spec.finalizers[${i}]` : 'spec.finalizers';
    const errs = isQualifiedName(String(f));
    if (errs.length) appendCauses(causes, invalidEach(field, f, errs));
    else if (!String(f).includes('/') && !STANDARD_FINALIZERS.includes(f)) {
      causes.push(invalid(field, f, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  });
  return causes;
}

function validateNamespace(obj: KubeObject): StatusCause[] {
  const ns = asNamespace(obj);
  return [...validateObjectMeta(ns.metadata, false, nameIsDNSLabel), ...validateSpecFinalizers(ns)];
}

export const namespaceStrategy: ResourceStrategy = {
  info: resourceInfo({ group: '', version: 'v1', plural: 'namespaces', kind: 'Namespace', namespaced: false,
    shortNames: ['ns'], hasStatus: true, verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'] }),

  defaults(obj) {
    const ns = asNamespace(obj);
    if (ns.metadata.name) ns.metadata.labels = { ...(ns.metadata.labels ?? {}), [LABEL_NAMESPACE_NAME]: ns.metadata.name };
    if (typeof ns.status !== 'object' || ns.status === null) ns.status = {};
    if (!ns.status.phase) ns.status.phase = 'Active';
    nullUnsetConditionTimes(ns.status, ['lastTransitionTime']);
  },

  prepareForCreate(obj) {
    const ns = asNamespace(obj);
    ns.status = { phase: 'Active' };
    const finalizers = ns.spec?.finalizers ?? [];
    if (!finalizers.includes(FINALIZER_NAMESPACE_KUBERNETES)) {
      ns.spec = { ...(ns.spec ?? {}), finalizers: [...finalizers, FINALIZER_NAMESPACE_KUBERNETES] };
    }
  },

  validateCreate: validateNamespace,

  prepareForUpdate(next, prev) {
    keepStored(next, prev, 'spec');
    keepStored(next, prev, 'status');
  },

  validateUpdate(next, prev) {
    return [...validateNamespace(next), ...validateObjectMetaUpdate(next.metadata, prev.metadata)];
  },

  prepareForStatusUpdate(next, prev) {
    keepStored(next, prev, 'spec');
  },

  validateStatusUpdate(next, prev) {
    return validateObjectMetaUpdate(next.metadata, prev.metadata);
  },

  prepareForFinalizeUpdate(next, prev) {
    keepStored(next, prev, 'status');
  },

  validateFinalizeUpdate(next, prev) {
    return [...validateObjectMetaUpdate(next.metadata, prev.metadata), ...validateSpecFinalizers(asNamespace(next), true)];
  },

  holdsDeletion(obj) {
    return (asNamespace(obj).spec?.finalizers ?? []).length > 0;
  },

  fields(obj) {
    return { 'status.phase': String(asNamespace(obj).status?.phase ?? '') };
  },

  fieldLabels: fieldLabelTable(['status.phase', 'metadata.name']),

  tableColumns: [NAME_COLUMN, column('Status', 'The status of the namespace'), AGE_COLUMN],

  tableRow(obj, now) {
    const ns = asNamespace(obj);
    return [ns.metadata.name ?? '', ns.status?.phase ?? '', age(ns.metadata.creationTimestamp, now)];
  },
};
