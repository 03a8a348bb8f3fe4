/**
 * The strategy of one served version of a CustomResourceDefinition, as kube-apiserver's
 * customResourceStrategy and its status strategy behave: generation 1 on create and +1 whenever
 * anything but metadata changes (status too, unless it is a subresource); with a status
 * subresource, status is dropped on create and kept on update of the main resource, and a
 * /status write changes status alone (metadata and spec come from the stored object); defaults
 * from the schema; validation of metadata, the schema and its CEL rules (skipped, as there, once
 * the schema check found a type, required, enum or length error); Table columns from
 * additionalPrinterColumns.
 */
import type { KubeObject, StatusCause } from '@pv-controller/kube/types.js';
import { appendCauses } from '../../api/field-errors.js';
import { resourceInfo, keepStored } from '../common.js';
import { nameIsDNSSubdomain, validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';
import { jsonEqual } from '../object-utils.js';
import type { ResourceInfo, ResourceStrategy } from '../strategy.js';
import { hasCelRules, validateCelRules } from './cel-rules.js';
import type { CustomResourceDefinitionSpec, CustomResourceDefinitionVersion } from './crd-types.js';
import { applyDefaults, hasDefaults } from './defaults.js';
import { registerCustomDefinitions } from './definitions.js';
import type { JSONSchemaProps } from './json-schema.js';
import { printerColumns } from './printer-columns.js';
import { validateAgainstSchema } from './schema-validation.js';
import { finalizerWarnings } from './finalizer-warnings.js';

/** Errors after which kube-apiserver does not evaluate the CEL rules (hasBlockingErr). */
const BLOCKING = new Set(['FieldValueNotSupported', 'FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid']);

const RULES_NOT_CHECKED: StatusCause = {
  reason: 'FieldValueInvalid',
  message: 'Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
  field: '<nil>',
};

/** A version's schema; a CRD without one preserves everything (apiextensions' default for v1 is required, this is a guard). */
function schemaOf(version: CustomResourceDefinitionVersion): JSONSchemaProps {
  return version.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
}

function withoutMetadata(obj: KubeObject): Record<string, unknown> {
  const { metadata: _metadata, ...rest } = obj;
  return rest;
}

interface Checks {
  schema: JSONSchemaProps;
  rules: boolean;
}

function validateContent(obj: KubeObject, prev: KubeObject | undefined, checks: Checks, schemaCauses: StatusCause[]): StatusCause[] {
  const causes = [...schemaCauses];
  if (!checks.rules) return causes;
  if (causes.some((c) => BLOCKING.has(c.reason ?? ''))) {
    causes.push(RULES_NOT_CHECKED);
    return causes;
  }
  return appendCauses(causes, validateCelRules(obj, prev, checks.schema));
}

function validateTypeMeta(obj: KubeObject, info: ResourceInfo): StatusCause[] {
  const causes: StatusCause[] = [];
  const apiVersion = `${info.group}/${info.version}`;
  if (obj.kind !== info.kind) causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(obj.kind ?? '')}: must be ${info.kind}`, field: 'kind' });
  if (obj.apiVersion !== apiVersion) causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(obj.apiVersion ?? '')}: must be ${apiVersion}`, field: 'apiVersion' });
  return causes;
}

/** The custom resource strategy of `version` of the definition `spec`. */
export function customResourceStrategy(spec: CustomResourceDefinitionSpec, version: CustomResourceDefinitionVersion): ResourceStrategy {
  const schema = schemaOf(version);
  const { names } = spec;
  const storage = spec.versions.find((v) => v.storage);
  const info: ResourceInfo = {
    ...resourceInfo({
      group: spec.group, version: version.name, plural: names.plural, kind: names.kind, namespaced: spec.scope === 'Namespaced',
      singular: names.singular || names.kind.toLowerCase(), shortNames: names.shortNames ?? [], hasStatus: version.subresources?.status !== undefined,
    }),
    listKind: names.listKind || `${names.kind}List`,
    ...(names.categories && names.categories.length > 0 ? { categories: names.categories } : {}),
    ...(storage && storage.name !== version.name ? { storedAs: { group: spec.group, version: storage.name } } : {}),
    // The order kube-apiserver's CRD handler lists them in.
    verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
    statusResetsMetadata: true,
    custom: { schema, definition: registerCustomDefinitions(spec.group, version.name, names.kind, schema) },
  };
  const hasStatus = info.hasStatus;
  const checks: Checks = { schema, rules: hasCelRules(schema) };
  const defaulted = hasDefaults(schema);
  const columns = printerColumns(version.additionalPrinterColumns ?? []);
  const statusSchema = schema.properties?.status;
  return {
    info,
    // The custom resource store does not return the deleted object.
    deleteAnswersStatus: true,
    // Its own field-label conversion (selectableFields aside): a label it does not know is "not supported".
    fieldLabels: { 'metadata.name': 'metadata.name', 'metadata.namespace': 'metadata.namespace' },
    defaults(obj) {
      if (defaulted) applyDefaults(obj, schema);
    },
    prepareForCreate(obj) {
      if (hasStatus) delete obj.status;
      obj.metadata.generation = 1;
    },
    validateCreate(obj) {
      const typeMeta = validateTypeMeta(obj, info);
      if (typeMeta.length > 0) return typeMeta;
      const causes = validateObjectMeta(obj.metadata, info.namespaced, nameIsDNSSubdomain);
      return appendCauses(causes, validateContent(obj, undefined, checks, validateAgainstSchema(obj, schema)));
    },
    warnings: (obj) => finalizerWarnings(obj.metadata.finalizers ?? []),
    prepareForUpdate(next, prev) {
      if (hasStatus) keepStored(next, prev, 'status');
      if (!jsonEqual(withoutMetadata(next), withoutMetadata(prev))) next.metadata.generation = (prev.metadata.generation ?? 0) + 1;
    },
    validateUpdate(next, prev) {
      const typeMeta = validateTypeMeta(next, info);
      if (typeMeta.length > 0) return typeMeta;
      const causes = validateObjectMetaUpdate(next.metadata, prev.metadata);
      appendCauses(causes, validateObjectMeta(next.metadata, info.namespaced, nameIsDNSSubdomain));
      return appendCauses(causes, validateContent(next, prev, checks, validateAgainstSchema(next, schema)));
    },
    ...(hasStatus ? {
      prepareForStatusUpdate(next: KubeObject, prev: KubeObject) {
        const status = next.status;
        const managedFields = next.metadata.managedFields;
        for (const key of Object.keys(next)) delete next[key];
        Object.assign(next, structuredClone(prev));
        if (status === undefined) delete next.status;
        else next.status = status;
        if (managedFields === undefined) delete next.metadata.managedFields;
        else next.metadata.managedFields = managedFields;
      },
      validateStatusUpdate(next: KubeObject, prev: KubeObject) {
        const causes = validateObjectMetaUpdate(next.metadata, prev.metadata);
        // The status is validated on its own: field paths under status, messages relative to it.
        const statusCauses = next.status !== undefined && statusSchema !== undefined ? validateAgainstSchema(next.status, statusSchema, '', 'status') : [];
        return appendCauses(causes, validateContent(next, prev, checks, statusCauses));
      },
    } : {}),
    fields: () => ({}),
    tableColumns: columns.columns,
    tableRow: columns.row,
  };
}

/** One strategy per served version of a definition. */
export function customResourceStrategies(spec: CustomResourceDefinitionSpec): ResourceStrategy[] {
  if (!spec.versions.some((v) => v.served)) return [];
  return spec.versions.filter((v) => v.served).map((v) => customResourceStrategy(spec, v));
}
