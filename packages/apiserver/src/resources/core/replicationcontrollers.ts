/**
 * ReplicationController (core/v1): SetDefaults_ReplicationController (selector and labels from
 * the template's labels, one replica) and ValidateReplicationControllerSpec's main rules. No
 * controller acts on them here, as with a bare kube-apiserver.
 */
import type { StatusCause } from '@pv-controller/kube/types.js';
import { fieldLabelTable } from '../common.js';
import { forbidden, required } from '../../api/field-errors.js';
import { AGE_COLUMN, NAME_COLUMN, age, field } from '../printing.js';
import type { ResourceStrategy } from '../strategy.js';
import {
  CONTAINERS_COLUMN, IMAGES_COLUMN, containerCells, countColumn, fill, formatLabels, isObject, nonNegative, selectorColumn,
  selectorMismatch, specOf, statusCount as status, validateControllerPodSpec, validatePodTemplateSpec, workloadStrategy, type Workload,
} from '../workload-templates.js';

const hasEntries = (v: unknown): boolean => isObject(v) && Object.keys(v).length > 0;

function defaultReplicationController(w: Workload): void {
  const spec = specOf(w);
  const labels = isObject(spec.template) ? w.spec?.template?.metadata?.labels : undefined;
  if (isObject(labels)) {
    if (!hasEntries(spec.selector)) spec.selector = { ...labels };
    if (!hasEntries(w.metadata.labels)) w.metadata.labels = { ...(labels as Record<string, string>) };
  }
  fill(spec, 'replicas', 1);
}

/** ValidatePodTemplateSpecForRC: a template is required, its labels matched by the selector. */
function validateRCTemplate(w: Workload): StatusCause[] {
  const spec = specOf(w);
  const template = isObject(spec.template) ? w.spec?.template : undefined;
  if (!template) return [required('spec.template')];
  const selector = isObject(spec.selector) ? (spec.selector as Record<string, string>) : {};
  const labels = template.metadata?.labels ?? {};
  const matches = Object.entries(selector).every(([k, v]) => labels[k] === v);
  return [
    ...(matches ? [] : [selectorMismatch('spec.template', template)]),
    ...validatePodTemplateSpec(template, 'spec.template'),
    ...validateControllerPodSpec(template, 'spec.template', 'ReplicationController', (f, _v, detail) => forbidden(f, detail ?? '')),
  ];
}

function validateRCSpec(w: Workload): StatusCause[] {
  const spec = specOf(w);
  return [
    ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'),
    ...(hasEntries(spec.selector) ? [] : [required('spec.selector')]),
    ...validateRCTemplate(w),
    ...nonNegative(spec.replicas, 'spec.replicas'),
  ];
}

export const replicationControllerStrategy: ResourceStrategy = workloadStrategy({
  info: { group: '', version: 'v1', plural: 'replicationcontrollers', kind: 'ReplicationController', shortNames: ['rc'] },
  initialStatus: () => ({ replicas: 0 }),
  defaults: defaultReplicationController,
  validateSpec: validateRCSpec,
  orphansByDefault: true,
  fieldLabels: fieldLabelTable(['metadata.name', 'metadata.namespace', 'status.replicas']),
  fields: (w) => ({ 'status.replicas': String(status(w, 'replicas')) }),
  tableColumns: [
    NAME_COLUMN,
    countColumn('Desired', field('ReplicationControllerSpec', 'replicas')),
    countColumn('Current', field('ReplicationControllerStatus', 'replicas')),
    countColumn('Ready', field('ReplicationControllerStatus', 'readyReplicas')),
    AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN, selectorColumn('io.k8s.api.core.v1.ReplicationControllerSpec'),
  ],
  tableRow(w, now) {
    return [w.metadata.name ?? '', w.spec?.replicas ?? 0, status(w, 'replicas'), status(w, 'readyReplicas'),
      age(w.metadata.creationTimestamp, now), ...containerCells(w.spec?.template), formatLabels(w.spec?.selector)];
  },
});
