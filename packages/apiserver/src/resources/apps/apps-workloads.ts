/**
 * Deployments, ReplicaSets and DaemonSets (apps/v1): defaults of pkg/apis/apps/v1/defaults.go and
 * the main rules of pkg/apis/apps/validation (selector required and matching the template's
 * labels, immutable on update, counts not negative, the template validated as a Pod's spec).
 * Nothing acts on them here: without kube-controller-manager no Pods are made, as with a bare
 * kube-apiserver.
 */
import type { StatusCause } from '@pv-controller/kube/types.js';
import { appendCauses, forbidden, immutable, invalid, notSupported } from '../../api/field-errors.js';
import { AGE_COLUMN, NAME_COLUMN, age, column, field } from '../printing.js';
import type { ResourceStrategy } from '../strategy.js';
import { validateLabelSelector } from '../core/volume-validation.js';
import {
  CONTAINERS_COLUMN, IMAGES_COLUMN, containerCells, countColumn, fill, formatLabelSelector, formatLabels, isObject,
  nonNegative, selectorColumn, selectorMatch, selectorMismatch, specOf, statusCount as status, validateControllerPodSpec,
  validatePodTemplateSpec, validateRequiredSelector, workloadStrategy, type Json, type Workload,
} from '../workload-templates.js';

const APPS = 'io.k8s.api.apps.v1';
const TEMPLATE_GENERATION = 'deprecated.daemonset.template.generation';

/** ValidatePodTemplateSpecForReplicaSet: labels matched by a non-empty selector, then the template. */
function validateReplicaTemplate(w: Workload, kind: string): StatusCause[] {
  const spec = specOf(w);
  const template = w.spec?.template;
  const match = selectorMatch(spec.selector, template?.metadata?.labels);
  if (match === 'invalid') return [invalid('spec.selector', spec.selector, 'invalid label selector')];
  return [
    ...(match === 'mismatch' ? [selectorMismatch('spec.template', template)] : []),
    ...validatePodTemplateSpec(template, 'spec.template'),
    ...validateControllerPodSpec(template, 'spec.template', kind, invalid),
  ];
}

function selectorUnchanged(next: Workload, prev: Workload): StatusCause[] {
  const before = JSON.stringify(prev.spec?.selector ?? null);
  return JSON.stringify(next.spec?.selector ?? null) === before ? [] : [immutable('spec.selector', next.spec?.selector ?? null)];
}

const isZero = (v: unknown): boolean => v === 0 || v === '0%';

/** ValidateDeploymentStrategy for the strategy types and the rolling update's two bounds. */
function validateDeploymentStrategy(strategy: unknown): StatusCause[] {
  const s = isObject(strategy) ? strategy : {};
  if (s.type !== 'Recreate' && s.type !== 'RollingUpdate') return [notSupported('spec.strategy.type', s.type ?? '', ['Recreate', 'RollingUpdate'])];
  const rolling = isObject(s.rollingUpdate) ? s.rollingUpdate : undefined;
  if (s.type === 'Recreate') {
    return rolling ? [forbidden('spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'")] : [];
  }
  if (rolling && isZero(rolling.maxUnavailable) && isZero(rolling.maxSurge)) {
    return [invalid('spec.strategy.rollingUpdate.maxUnavailable', rolling.maxUnavailable, 'may not be 0 when `maxSurge` is 0')];
  }
  return [];
}

function validateDeploymentSpec(w: Workload): StatusCause[] {
  const spec = specOf(w);
  const causes = [
    ...nonNegative(spec.replicas, 'spec.replicas'),
    ...validateRequiredSelector(spec.selector, 'spec.selector', validateLabelSelector),
    ...validateReplicaTemplate(w, 'ReplicaSet'),
    ...validateDeploymentStrategy(spec.strategy),
    ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'),
    ...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'),
  ];
  const deadline = spec.progressDeadlineSeconds;
  if (typeof deadline === 'number') {
    appendCauses(causes, nonNegative(deadline, 'spec.progressDeadlineSeconds'));
    if (deadline <= (typeof spec.minReadySeconds === 'number' ? spec.minReadySeconds : 0)) {
      causes.push(invalid('spec.progressDeadlineSeconds', deadline, 'must be greater than minReadySeconds'));
    }
  }
  return causes;
}

/** SetDefaults_Deployment: one replica, a 25%/25% rolling update, 10 revisions, a 600 s deadline. */
function defaultDeployment(w: Workload): void {
  const spec = specOf(w);
  fill(spec, 'replicas', 1);
  if (!isObject(spec.strategy)) spec.strategy = {};
  const strategy = spec.strategy as Json;
  if (!strategy.type) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    if (!isObject(strategy.rollingUpdate)) strategy.rollingUpdate = {};
    fill(strategy.rollingUpdate as Json, 'maxUnavailable', '25%');
    fill(strategy.rollingUpdate as Json, 'maxSurge', '25%');
  }
  fill(spec, 'revisionHistoryLimit', 10);
  fill(spec, 'progressDeadlineSeconds', 600);
}

export const deploymentStrategy: ResourceStrategy = workloadStrategy({
  info: { group: 'apps', version: 'v1', plural: 'deployments', kind: 'Deployment', shortNames: ['deploy'] },
  initialStatus: () => ({}),
  defaults: defaultDeployment,
  validateSpec: validateDeploymentSpec,
  validateSpecUpdate: selectorUnchanged,
  tableColumns: [
    NAME_COLUMN,
    column('Ready', 'Number of the pod with ready state'),
    column('Up-to-date', field(`${APPS}.DeploymentStatus`, 'updatedReplicas')),
    column('Available', field(`${APPS}.DeploymentStatus`, 'availableReplicas')),
    AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN, selectorColumn(`${APPS}.DeploymentSpec`),
  ],
  tableRow(w, now) {
    return [w.metadata.name ?? '', `${status(w, 'readyReplicas')}/${w.spec?.replicas ?? 0}`, status(w, 'updatedReplicas'),
      status(w, 'availableReplicas'), age(w.metadata.creationTimestamp, now), ...containerCells(w.spec?.template),
      formatLabelSelector(w.spec?.selector)];
  },
});

export const replicaSetStrategy: ResourceStrategy = workloadStrategy({
  info: { group: 'apps', version: 'v1', plural: 'replicasets', kind: 'ReplicaSet', shortNames: ['rs'] },
  initialStatus: () => ({ replicas: 0 }),
  defaults: (w) => fill(specOf(w), 'replicas', 1),
  validateSpec(w) {
    const spec = specOf(w);
    return [...nonNegative(spec.replicas, 'spec.replicas'), ...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'),
      ...validateRequiredSelector(spec.selector, 'spec.selector', validateLabelSelector), ...validateReplicaTemplate(w, 'ReplicaSet')];
  },
  validateSpecUpdate: selectorUnchanged,
  tableColumns: [
    NAME_COLUMN,
    countColumn('Desired', field(`${APPS}.ReplicaSetSpec`, 'replicas')),
    countColumn('Current', field(`${APPS}.ReplicaSetStatus`, 'replicas')),
    countColumn('Ready', field(`${APPS}.ReplicaSetStatus`, 'readyReplicas')),
    AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN, selectorColumn(`${APPS}.ReplicaSetSpec`),
  ],
  tableRow(w, now) {
    return [w.metadata.name ?? '', w.spec?.replicas ?? 0, status(w, 'replicas'), status(w, 'readyReplicas'),
      age(w.metadata.creationTimestamp, now), ...containerCells(w.spec?.template), formatLabelSelector(w.spec?.selector)];
  },
});

/** ValidateDaemonSetSpec: an absent selector matches nothing, an empty one is refused. */
function validateDaemonSetSpec(w: Workload): StatusCause[] {
  const spec = specOf(w);
  const template = w.spec?.template;
  const causes = isObject(spec.selector) ? validateLabelSelector(spec.selector, 'spec.selector') : [];
  const match = selectorMatch(spec.selector, template?.metadata?.labels);
  if (match === 'mismatch') causes.push(selectorMismatch('spec.template', template));
  if (match === 'empty') causes.push(invalid('spec.selector', spec.selector, 'empty selector is invalid for daemonset'));
  appendCauses(causes, validatePodTemplateSpec(template, 'spec.template'), validateControllerPodSpec(template, 'spec.template', 'DaemonSet', invalid),
    nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  const update = isObject(spec.updateStrategy) ? spec.updateStrategy : {};
  if (update.type !== 'RollingUpdate' && update.type !== 'OnDelete') {
    causes.push(notSupported('spec.updateStrategy.type', update.type ?? '', ['OnDelete', 'RollingUpdate']));
  }
  return [...causes, ...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit')];
}

/** SetDefaults_DaemonSet: a rolling update of one unavailable node at a time, 10 revisions. */
function defaultDaemonSet(w: Workload): void {
  const spec = specOf(w);
  if (!isObject(spec.updateStrategy)) spec.updateStrategy = {};
  const update = spec.updateStrategy as Json;
  if (!update.type) update.type = 'RollingUpdate';
  if (update.type === 'RollingUpdate') {
    if (!isObject(update.rollingUpdate)) update.rollingUpdate = {};
    fill(update.rollingUpdate as Json, 'maxUnavailable', 1);
    fill(update.rollingUpdate as Json, 'maxSurge', 0);
  }
  fill(spec, 'revisionHistoryLimit', 10);
  // The v1 conversion writes the template generation (below 1 on create: 1) before the writer's
  // managed fields are taken, so the writer owns the annotation.
  if (w.metadata.annotations?.[TEMPLATE_GENERATION] === undefined) setTemplateGeneration(w, 1);
}

/** The template generation the v1 API carries as an annotation: 1 on create, +1 per template change. */
function setTemplateGeneration(w: Workload, generation: number): void {
  w.metadata.annotations = { ...(w.metadata.annotations ?? {}), [TEMPLATE_GENERATION]: String(generation) };
}

export const daemonSetStrategy: ResourceStrategy = workloadStrategy({
  info: { group: 'apps', version: 'v1', plural: 'daemonsets', kind: 'DaemonSet', shortNames: ['ds'] },
  initialStatus: () => ({ currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 }),
  defaults: defaultDaemonSet,
  validateSpec: validateDaemonSetSpec,
  validateSpecUpdate: selectorUnchanged,
  prepareForCreate(w) {
    const sent = Number(w.metadata.annotations?.[TEMPLATE_GENERATION]);
    setTemplateGeneration(w, Number.isInteger(sent) && sent >= 1 ? sent : 1);
  },
  prepareForUpdate(next, prev) {
    const stored = Number(prev.metadata.annotations?.[TEMPLATE_GENERATION] ?? 0) || 0;
    const changed = JSON.stringify(next.spec?.template ?? null) !== JSON.stringify(prev.spec?.template ?? null);
    setTemplateGeneration(next, changed ? stored + 1 : stored);
  },
  tableColumns: [
    NAME_COLUMN,
    countColumn('Desired', field(`${APPS}.DaemonSetStatus`, 'desiredNumberScheduled')),
    countColumn('Current', field(`${APPS}.DaemonSetStatus`, 'currentNumberScheduled')),
    countColumn('Ready', field(`${APPS}.DaemonSetStatus`, 'numberReady')),
    countColumn('Up-to-date', field(`${APPS}.DaemonSetStatus`, 'updatedNumberScheduled')),
    countColumn('Available', field(`${APPS}.DaemonSetStatus`, 'numberAvailable')),
    column('Node Selector', field('PodSpec', 'nodeSelector')),
    AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN, selectorColumn(`${APPS}.DaemonSetSpec`),
  ],
  tableRow(w, now) {
    return [w.metadata.name ?? '', status(w, 'desiredNumberScheduled'), status(w, 'currentNumberScheduled'), status(w, 'numberReady'),
      status(w, 'updatedNumberScheduled'), status(w, 'numberAvailable'), formatLabels(w.spec?.template?.spec?.nodeSelector),
      age(w.metadata.creationTimestamp, now), ...containerCells(w.spec?.template), formatLabelSelector(w.spec?.selector)];
  },
});
