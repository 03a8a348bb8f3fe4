/**
 * What both API versions of the one stored Event kind share (core/v1 in events.ts,
 * events.k8s.io/v1 in events-v1.ts): legacyValidateEvent, the `kubectl get events` columns and
 * row, the selectable reference fields, and the strategy shape itself.
 */
import type { KubeObject, ObjectReference, StatusCause } from '@pv-controller/kube/types.js';
import { isDNS1123Subdomain, isQualifiedName } from '@pv-controller/kube/name-validation.js';
import { resourceInfo } from '../common.js';
import { appendCauses, invalid, invalidEach, required } from '../../api/field-errors.js';
import { validateObjectMetaUpdate } from '../object-meta.js';
import { age, column, field } from '../printing.js';
import type { FieldSet, ResourceStrategy, TableColumn } from '../strategy.js';

const REPORTING_INSTANCE_LIMIT = 128;
const ACTION_LIMIT = 128;
const REASON_LIMIT = 128;
const NOTE_LIMIT = 1024;

/** The fields both API versions carry, under core/v1 names. */
export interface EventCore {
  namespace: string;
  involvedNamespace: string;
  eventTime: unknown;
  reportingController: string;
  reportingInstance: string;
  action: string;
  reason: string;
  message: string;
}

const longer = (s: string, n: number): boolean => s.length > n;

/** legacyValidateEvent; `controllerField` is "reportingComponent" on core/v1. */
export function legacyEventCauses(e: EventCore, controllerField: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const mismatch = invalid('involvedObject.namespace', e.involvedNamespace, 'does not match event.namespace');
  if (e.eventTime === undefined || e.eventTime === null || e.eventTime === '') {
    if (!e.involvedNamespace) {
      if (e.namespace !== '' && e.namespace !== 'default') causes.push(mismatch);
    } else if (e.namespace !== e.involvedNamespace) {
      causes.push(mismatch);
    }
  } else {
    if (!e.involvedNamespace && e.namespace !== 'default' && e.namespace !== 'kube-system') causes.push(mismatch);
    if (!e.reportingController) causes.push(required(controllerField));
    appendCauses(causes, invalidEach(controllerField, e.reportingController, isQualifiedName(e.reportingController)));
    if (!e.reportingInstance) causes.push(required('reportingInstance'));
    if (longer(e.reportingInstance, REPORTING_INSTANCE_LIMIT)) {
      causes.push(invalid('reportingInstance', '', `can have at most ${REPORTING_INSTANCE_LIMIT} characters`));
    }
    if (!e.action) causes.push(required('action'));
    if (longer(e.action, ACTION_LIMIT)) causes.push(invalid('action', '', `can have at most ${ACTION_LIMIT} characters`));
    if (!e.reason) causes.push(required('reason'));
    if (longer(e.reason, REASON_LIMIT)) causes.push(invalid('reason', '', `can have at most ${REASON_LIMIT} characters`));
    if (longer(e.message, NOTE_LIMIT)) causes.push(invalid('message', '', `can have at most ${NOTE_LIMIT} characters`));
  }
  appendCauses(causes, invalidEach('namespace', e.namespace, isDNS1123Subdomain(e.namespace)));
  return causes;
}

/** Columns of `kubectl get events` (same printer for both API versions). */
export const EVENT_COLUMNS: TableColumn[] = [
  column('Last Seen', field('Event', 'lastTimestamp')),
  column('Type', field('Event', 'type')),
  column('Reason', field('Event', 'reason')),
  column('Object', field('Event', 'involvedObject')),
  column('Subobject', field('ObjectReference', 'fieldPath'), { priority: 1 }),
  column('Source', field('Event', 'source'), { priority: 1 }),
  column('Message', field('Event', 'message')),
  column('First Seen', field('Event', 'firstTimestamp'), { priority: 1 }),
  // kube-apiserver declares this column a string though its cells are integers.
  column('Count', field('Event', 'count'), { priority: 1 }),
  column('Name', field('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'name'), { priority: 1, format: 'name' }),
];

interface EventRowParts {
  first?: string | null;
  eventTime?: string | null;
  last?: string | null;
  seriesLast?: string | null;
  seriesCount?: number;
  count?: number;
  type?: string;
  reason?: string;
  kind?: string;
  name?: string;
  fieldPath?: string;
  component?: string;
  host?: string;
  message?: string;
}

/** printEvent: timestamps fall back to eventTime/series; Object is "kind/name" lower-cased kind. */
function eventRow(p: EventRowParts, objName: string, now: Date): unknown[] {
  const first = p.first ? age(p.first, now) : age(p.eventTime, now);
  let last = p.last ? age(p.last, now) : first;
  let count = p.count ?? 0;
  if (p.seriesLast) {
    last = age(p.seriesLast, now);
    count = p.seriesCount ?? count;
  } else if (count === 0) {
    count = 1;
  }
  const kind = (p.kind ?? '').toLowerCase();
  const target = p.name ? `${kind}/${p.name}` : kind;
  const source = p.host ? `${p.component ?? ''}, ${p.host}` : (p.component ?? '');
  return [last, p.type ?? '', p.reason ?? '', target, p.fieldPath ?? '', source, (p.message ?? '').trim(), first, count, objName];
}

const REFERENCE_FIELDS = ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'] as const;

/** The field labels of referenceFields. */
export function referenceFieldLabels(prefix: string): string[] {
  return REFERENCE_FIELDS.map((f) => `${prefix}.${f}`);
}

/** The seven fields of an object reference a fieldSelector may name, each under `prefix.`. */
export function referenceFields(prefix: string, ref: ObjectReference | undefined): FieldSet {
  const r = ref ?? {};
  return {
    [`${prefix}.kind`]: r.kind ?? '',
    [`${prefix}.namespace`]: r.namespace ?? '',
    [`${prefix}.name`]: r.name ?? '',
    [`${prefix}.uid`]: r.uid ?? '',
    [`${prefix}.apiVersion`]: r.apiVersion ?? '',
    [`${prefix}.resourceVersion`]: r.resourceVersion ?? '',
    [`${prefix}.fieldPath`]: r.fieldPath ?? '',
  };
}

/** What differs between the two API versions of the one stored Event kind. */
interface EventVersion {
  group: string;
  /** Defaulting (decoding, MicroTimes included, happened before). */
  fillDefaults?(obj: KubeObject): void;
  validate(obj: KubeObject): StatusCause[];
  /** The whole update validation where it is not `validate` plus the metadata rules (events.k8s.io). */
  validateUpdate?(next: KubeObject, prev: KubeObject): StatusCause[];
  fields(obj: KubeObject): FieldSet;
  fieldLabels: Readonly<Record<string, string>>;
  rowParts(obj: KubeObject): EventRowParts;
}

/** One strategy for either version: same scope, decoding, update rules and `kubectl get events` columns. */
export function eventStrategy(v: EventVersion): ResourceStrategy {
  return {
    info: resourceInfo({ group: v.group, version: 'v1', plural: 'events', kind: 'Event', namespaced: true,
      shortNames: ['ev'], hasStatus: false, storedAs: { group: '', version: 'v1' } }),
    deleteAnswersStatus: true,
    noWatchCache: true,
    allowCreateOnUpdate: true,
    defaults(obj) {
      v.fillDefaults?.(obj);
    },
    prepareForCreate() {},
    validateCreate: v.validate,
    prepareForUpdate() {},
    validateUpdate: (next, prev) =>
      v.validateUpdate ? v.validateUpdate(next, prev) : [...v.validate(next), ...validateObjectMetaUpdate(next.metadata, prev.metadata)],
    fields: v.fields,
    fieldLabels: v.fieldLabels,
    tableColumns: EVENT_COLUMNS,
    tableRow: (obj, now) => eventRow(v.rowParts(obj), obj.metadata.name ?? '', now),
  };
}
