/**
 * CustomResourceDefinition (apiextensions.k8s.io/v1), as kube-apiserver's CRD registry keeps
 * it: the v1 defaults (conversion None, singular and listKind from the kind), status reset on
 * create with the storage version stored, spec changes counted in generation, the essentials of
 * ValidateCustomResourceDefinition (name, group, names, scope, exactly one storage version, a
 * schema per version, group and scope immutable), and a delete that adds the instance-cleanup
 * finalizer and the Terminating condition (the CRD controller, controllers/crd-controller.ts,
 * establishes definitions, serves their versions and deletes their instances).
 */
import { FINALIZER_CRD_INSTANCE_CLEANUP } from '@pv-controller/kube/annotations.js';
import { isDNS1123Label, isDNS1123Subdomain } from '@pv-controller/kube/name-validation.js';
import type { KubeObject, StatusCause } from '@pv-controller/kube/types.js';
import { appendCauses, immutable, invalid, invalidEach, notSupported, required } from '../../api/field-errors.js';
import { keepStored, resourceInfo } from '../common.js';
import type { CustomResourceDefinition } from '../custom/crd-types.js';
import { nameIsDNSSubdomain, validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';
import { jsonEqual, specPart } from '../object-utils.js';
import { AGE_COLUMN, NAME_COLUMN, column } from '../printing.js';
import type { ResourceStrategy } from '../strategy.js';

const asCRD = (obj: KubeObject): CustomResourceDefinition => obj as CustomResourceDefinition;

export interface CRDCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** Sets a condition as SetCRDCondition does: the transition time kept while the status stays. */
export function withCondition(conditions: readonly CRDCondition[], next: CRDCondition): CRDCondition[] {
  const old = conditions.find((c) => c.type === next.type);
  const kept = old !== undefined && old.status === next.status ? { ...next, lastTransitionTime: old.lastTransitionTime } : next;
  return old === undefined ? [...conditions, kept] : conditions.map((c) => (c.type === next.type ? kept : c));
}

function validateNames(crd: CustomResourceDefinition): StatusCause[] {
  const names = crd.spec?.names;
  const causes: StatusCause[] = [];
  if (!names?.plural) causes.push(required('spec.names.plural'));
  else appendCauses(causes, invalidEach('spec.names.plural', names.plural, isDNS1123Label(names.plural)));
  if (names?.singular) appendCauses(causes, invalidEach('spec.names.singular', names.singular, isDNS1123Label(names.singular)));
  if (!names?.kind) causes.push(required('spec.names.kind'));
  if (!names?.listKind) causes.push(required('spec.names.listKind'));
  return causes;
}

function validateVersions(crd: CustomResourceDefinition): StatusCause[] {
  const versions = crd.spec?.versions ?? [];
  if (versions.length === 0) return [required('spec.versions', 'must have exactly one version marked as storage version')];
  const causes: StatusCause[] = [];
  if (versions.filter((v) => v.storage).length !== 1) causes.push(invalid('spec.versions', versions, 'must have exactly one version marked as storage version'));
  versions.forEach((v, i) => {
    if (!v.name) causes.push(required(`spec.versions[${i}].name`));
    else appendCauses(causes, invalidEach(`spec.versions[${i}].name`, v.name, isDNS1123Label(v.name)));
    if (v.schema?.openAPIV3Schema === undefined) causes.push(required(`spec.versions[${i}].schema.openAPIV3Schema`, 'schemas are required'));
  });
  return causes;
}

/** ValidateCustomResourceDefinitionStatus's part a create or update can break: a stored version. */
function validateStoredVersions(crd: CustomResourceDefinition): StatusCause[] {
  const stored = (crd.status as { storedVersions?: string[] | null } | undefined)?.storedVersions;
  return stored === undefined || stored === null || stored.length === 0 ? [invalid('status.storedVersions', null, 'must have at least one stored version')] : [];
}

function validateCRD(obj: KubeObject): StatusCause[] {
  const crd = asCRD(obj);
  const causes = validateObjectMeta(crd.metadata, false, nameIsDNSSubdomain);
  const group = crd.spec?.group ?? '';
  const plural = crd.spec?.names?.plural ?? '';
  if (crd.metadata.name !== `${plural}.${group}`) causes.push(invalid('metadata.name', crd.metadata.name ?? '', 'must be spec.names.plural+"."+spec.group'));
  if (!group) causes.push(required('spec.group'));
  else if (isDNS1123Subdomain(group).length > 0) appendCauses(causes, invalidEach('spec.group', group, isDNS1123Subdomain(group)));
  else if (!group.includes('.')) causes.push(invalid('spec.group', group, 'should be a domain with at least one dot'));
  appendCauses(causes, validateNames(crd));
  const scope = crd.spec?.scope;
  if (!scope) causes.push(required('spec.scope'));
  else if (scope !== 'Cluster' && scope !== 'Namespaced') causes.push(notSupported('spec.scope', scope, ['Cluster', 'Namespaced']));
  return appendCauses(causes, validateVersions(crd), validateStoredVersions(crd));
}

function validateCRDUpdate(next: KubeObject, prev: KubeObject): StatusCause[] {
  const [n, p] = [asCRD(next), asCRD(prev)];
  const causes = validateObjectMetaUpdate(next.metadata, prev.metadata);
  if (n.spec?.group !== p.spec?.group) causes.push(immutable('spec.group', n.spec?.group ?? ''));
  if (n.spec?.scope !== p.spec?.scope) causes.push(immutable('spec.scope', n.spec?.scope ?? ''));
  return appendCauses(causes, validateCRD(next));
}

export const customResourceDefinitionStrategy: ResourceStrategy = {
  info: resourceInfo({ group: 'apiextensions.k8s.io', version: 'v1', plural: 'customresourcedefinitions', kind: 'CustomResourceDefinition',
    namespaced: false, shortNames: ['crd', 'crds'], hasStatus: true, categories: ['api-extensions'] }),
  defaults(obj) {
    const spec = asCRD(obj).spec;
    if (spec === undefined) return;
    spec.conversion ??= { strategy: 'None' };
    if (spec.names?.kind) {
      spec.names.singular ||= spec.names.kind.toLowerCase();
      spec.names.listKind ||= `${spec.names.kind}List`;
    }
  },
  prepareForCreate(obj) {
    const crd = asCRD(obj);
    const storage = crd.spec?.versions?.find((v) => v.storage);
    // AcceptedNames is a struct held by value: empty names until the naming controller accepts them.
    crd.status = { conditions: null, acceptedNames: { plural: '', kind: '' }, storedVersions: storage ? [storage.name] : null };
    crd.metadata.generation = 1;
  },
  validateCreate: validateCRD,
  prepareForUpdate(next, prev) {
    keepStored(next, prev, 'status');
    if (!jsonEqual(specPart(next), specPart(prev))) next.metadata.generation = (prev.metadata.generation ?? 0) + 1;
  },
  validateUpdate: validateCRDUpdate,
  prepareForStatusUpdate(next, prev) {
    keepStored(next, prev, 'spec');
  },
  validateStatusUpdate: (next, prev) => validateObjectMetaUpdate(next.metadata, prev.metadata),
  prepareForDelete(obj, now) {
    const crd = asCRD(obj);
    const finalizers = crd.metadata.finalizers ?? [];
    const conditions = withCondition((crd.status?.conditions ?? []) as CRDCondition[], {
      type: 'Terminating', status: 'True', lastTransitionTime: now, reason: 'InstanceDeletionPending',
      message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
    });
    return {
      ...crd,
      metadata: { ...crd.metadata, finalizers: finalizers.includes(FINALIZER_CRD_INSTANCE_CLEANUP) ? finalizers : [...finalizers, FINALIZER_CRD_INSTANCE_CLEANUP] },
      status: { ...crd.status, conditions },
    };
  },
  fields: () => ({}),
  tableColumns: [
    NAME_COLUMN,
    column('Scope', 'Cluster/Namespaced'),
    column('Versions', 'Served versions'),
    { ...AGE_COLUMN, name: 'Created At', type: 'date' as const },
    column('Group', 'API group', { priority: 1 }),
    column('Kind', 'CustomResource kind', { priority: 1 }),
    column('ShortNames', 'Short names', { priority: 1 }),
    column('Established', 'Established status', { type: 'boolean', priority: 1 }),
  ],
  tableRow(obj) {
    const crd = asCRD(obj);
    const versions = (crd.spec?.versions ?? []).filter((v) => v.served).map((v) => (v.storage ? `${v.name}(storage)` : v.name)).sort();
    const established = ((crd.status?.conditions ?? []) as CRDCondition[]).some((c) => c.type === 'Established' && c.status === 'True');
    return [crd.metadata.name ?? '', crd.spec?.scope ?? '', versions.join(','), crd.metadata.creationTimestamp ?? null,
      crd.spec?.group ?? '', crd.spec?.names?.kind ?? '', (crd.spec?.names?.shortNames ?? []).join(','), established];
  },
};
