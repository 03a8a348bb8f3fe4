/**
 * What the workload kinds (Deployments, ReplicaSets, DaemonSets, ReplicationControllers) share:
 * their pod template's defaults and validation (ValidatePodTemplateSpec and the
 * ...ForReplicaSet / ...ForRC rules in pkg/apis/apps/validation and pkg/apis/core/validation),
 * selector checks, the Containers/Images/Selector columns, and one strategy shape: stored
 * objects whose status only a controller writes, as kube-apiserver serves them without
 * kube-controller-manager.
 */
import { labelSelectorAsRequirements, matchesLabelRequirements } from '@pv-controller/kube/selectors.js';
import { labelRequirementsToString } from '../api/label-selector-parser.js';
import type { KubeObject, LabelSelector, Pod, StatusCause } from '@pv-controller/kube/types.js';
import { keepStored, resourceInfo } from './common.js';
import { invalid, notSupported, required } from '../api/field-errors.js';
import { nameIsDNSSubdomain, validateAnnotations, validateLabels, validateObjectMeta, validateObjectMetaUpdate } from './object-meta.js';
import { defaultPod } from './core/pod-defaults.js';
import { validatePodSpec } from './core/pod-validation.js';
import { column, field, type FieldDescription } from './printing.js';
import type { ResourceInfo, ResourceStrategy, TableColumn } from './strategy.js';

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const objectsIn = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : []);

interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Json;
}

/** A workload object as the strategies read it: spec and status are free-form JSON. */
export interface Workload extends KubeObject {
  spec?: Json & { template?: PodTemplate; replicas?: number };
  status?: Json;
}

const asWorkload = (obj: KubeObject): Workload => obj as Workload;

/** Sets `obj[key]` when the client left it out. */
export function fill(obj: Json, key: string, value: unknown): void {
  if (obj[key] === undefined || obj[key] === null) obj[key] = value;
}

/** The spec object of a workload, created when absent (defaulting always has one to fill). */
export function specOf(obj: KubeObject): Json {
  const w = asWorkload(obj);
  if (!isObject(w.spec)) w.spec = {};
  return w.spec;
}

/**
 * SetDefaults_PodSpec and the container defaults, as for a Pod. enableServiceLinks is
 * SetDefaults_Pod's, not the spec's, so a template keeps what the client sent; and no admission
 * runs, as templates are not Pods.
 */
function defaultPodTemplate(template: unknown): void {
  if (!isObject(template) || !isObject(template.spec)) return;
  const sentServiceLinks = template.spec.enableServiceLinks;
  defaultPod({ metadata: {}, spec: template.spec } as unknown as Pod);
  if (sentServiceLinks === undefined) delete template.spec.enableServiceLinks;
  else template.spec.enableServiceLinks = sentServiceLinks;
}

/**
 * How a label selector relates to a template's labels: LabelSelectorAsSelector makes nothing of
 * an absent selector (it matches no labels) and everything of an empty one.
 */
export function selectorMatch(sel: unknown, labels: Record<string, string> | undefined): 'match' | 'mismatch' | 'invalid' | 'empty' {
  if (!isObject(sel)) return 'mismatch';
  try {
    const reqs = labelSelectorAsRequirements(sel as LabelSelector);
    if (reqs.length === 0) return 'empty';
    return matchesLabelRequirements(reqs, labels) ? 'match' : 'mismatch';
  } catch {
    return 'invalid';
  }
}

const MISMATCH = '`selector` does not match template `labels`';

export function selectorMismatch(path: string, template: PodTemplate | undefined): StatusCause {
  return invalid(`${path}.metadata.labels`, template?.metadata?.labels ?? null, MISMATCH);
}

/** ValidatePodTemplateSpec: the template's labels and annotations, then its pod spec. */
export function validatePodTemplateSpec(template: PodTemplate | undefined, path: string): StatusCause[] {
  const meta = isObject(template?.metadata) ? template.metadata : {};
  return [
    ...validateLabels(meta.labels, `${path}.labels`),
    ...validateAnnotations(meta.annotations, `${path}.annotations`),
    ...validatePodSpec({ spec: template?.spec as Pod['spec'] }, `${path}.spec`),
  ];
}

/** The rules every controller's template follows: pods restart Always and have no deadline. */
export function validateControllerPodSpec(template: PodTemplate | undefined, path: string, kind: string, deadline: typeof invalid): StatusCause[] {
  const spec = isObject(template?.spec) ? template.spec : {};
  const causes: StatusCause[] = [];
  // A template without a spec is defaulted as an empty one in Go (a value, not a pointer): Always.
  if ((spec.restartPolicy ?? 'Always') !== 'Always') causes.push(notSupported(`${path}.spec.restartPolicy`, spec.restartPolicy ?? '', ['Always']));
  if (spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds !== null) {
    causes.push(deadline(`${path}.spec.activeDeadlineSeconds`, spec.activeDeadlineSeconds, `activeDeadlineSeconds in ${kind} is not Supported`));
  }
  return causes;
}

/** A count in the status, 0 when the controller has not written it. */
export const statusCount = (w: Workload, key: string): number => (typeof w.status?.[key] === 'number' ? (w.status[key] as number) : 0);

/** ValidateNonnegativeField, for a value the client may leave out. */
export function nonNegative(value: unknown, path: string): StatusCause[] {
  return typeof value === 'number' && value < 0 ? [invalid(path, value, 'must be greater than or equal to 0')] : [];
}

/** The Deployment/ReplicaSet selector rules: required, and never empty. */
export function validateRequiredSelector(sel: unknown, path: string, validateSelector: (s: LabelSelector, f: string) => StatusCause[]): StatusCause[] {
  if (!isObject(sel)) return [required(path)];
  const causes = validateSelector(sel as LabelSelector, path);
  if (Object.keys(isObject(sel.matchLabels) ? sel.matchLabels : {}).length + objectsIn(sel.matchExpressions).length === 0) {
    causes.push(invalid(path, sel, 'empty selector is invalid for deployment'));
  }
  return causes;
}

/** metav1.FormatLabelSelector. */
export function formatLabelSelector(sel: unknown): string {
  if (!isObject(sel)) return '<none>';
  try {
    return labelRequirementsToString(labelSelectorAsRequirements(sel as LabelSelector)) || '<none>';
  } catch {
    return '<error>';
  }
}

/** labels.FormatLabels: sorted key=value pairs, "<none>" for none. */
export function formatLabels(labels: unknown): string {
  const entries = isObject(labels) ? Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : [];
  return entries.length ? entries.map(([k, v]) => `${k}=${String(v)}`).join(',') : '<none>';
}

/** layoutContainerCells: container names and images, comma-separated. */
export function containerCells(template: PodTemplate | undefined): [string, string] {
  const containers = objectsIn(template?.spec?.containers);
  return [containers.map((c) => String(c.name ?? '')).join(','), containers.map((c) => String(c.image ?? '')).join(',')];
}

export const CONTAINERS_COLUMN = column('Containers', 'Names of each container in the template.', { priority: 1 });
export const IMAGES_COLUMN = column('Images', 'Images referenced by each container in the template.', { priority: 1 });

export function selectorColumn(definition: string): TableColumn {
  return column('Selector', field(definition, 'selector'), { priority: 1 });
}

export function countColumn(name: string, description: FieldDescription | string, type: TableColumn['type'] = 'integer'): TableColumn {
  return column(name, description, { type });
}

interface WorkloadOptions {
  info: Omit<ResourceInfo, 'listKind' | 'verbs' | 'singular' | 'namespaced' | 'hasStatus'> & { shortNames: string[] };
  /** The status a new object starts with (the status fields Go always serialises, at zero). */
  initialStatus(): Json;
  defaults(obj: Workload): void;
  validateSpec(obj: Workload): StatusCause[];
  /** Extra rules of an update (immutable selector), after the create rules. */
  validateSpecUpdate?(next: Workload, prev: Workload): StatusCause[];
  prepareForCreate?(obj: Workload): void;
  prepareForUpdate?(next: Workload, prev: Workload): void;
  fieldLabels?: Readonly<Record<string, string>>;
  orphansByDefault?: boolean;
  fields?(obj: Workload): Record<string, string>;
  tableColumns: TableColumn[];
  tableRow(obj: Workload, now: Date): unknown[];
}

function validateWorkload(obj: KubeObject, options: WorkloadOptions): StatusCause[] {
  return [...validateObjectMeta(obj.metadata, true, nameIsDNSSubdomain), ...options.validateSpec(asWorkload(obj))];
}

/**
 * A workload kind's strategy: generation counts spec changes, status is reset on create and kept
 * on update, the /status subresource changes status only.
 */
export function workloadStrategy(options: WorkloadOptions): ResourceStrategy {
  return {
    info: resourceInfo({ ...options.info, namespaced: true, hasStatus: true, categories: ['all'] }),
    tracksGeneration: true,
    deleteAnswersStatus: true,
    ...(options.orphansByDefault ? { orphansByDefault: true } : {}),
    defaults(obj) {
      options.defaults(asWorkload(obj));
      defaultPodTemplate(specOf(obj).template);
    },
    prepareForCreate(obj) {
      asWorkload(obj).status = options.initialStatus();
      options.prepareForCreate?.(asWorkload(obj));
    },
    validateCreate: (obj) => validateWorkload(obj, options),
    prepareForUpdate(next, prev) {
      keepStored(next, prev, 'status');
      options.prepareForUpdate?.(asWorkload(next), asWorkload(prev));
    },
    validateUpdate(next, prev) {
      return [...validateWorkload(next, options), ...validateObjectMetaUpdate(next.metadata, prev.metadata),
        ...(options.validateSpecUpdate?.(asWorkload(next), asWorkload(prev)) ?? [])];
    },
    prepareForStatusUpdate(next, prev) {
      keepStored(next, prev, 'spec');
      const status = asWorkload(next).status;
      asWorkload(next).status = { ...options.initialStatus(), ...(isObject(status) ? status : {}) };
    },
    validateStatusUpdate(next, prev) {
      return validateObjectMetaUpdate(next.metadata, prev.metadata);
    },
    fields: (obj) => options.fields?.(asWorkload(obj)) ?? {},
    ...(options.fieldLabels ? { fieldLabels: options.fieldLabels } : {}),
    tableColumns: options.tableColumns,
    tableRow: (obj, now) => options.tableRow(asWorkload(obj), now),
  };
}
