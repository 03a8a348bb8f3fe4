/**
 * events.k8s.io/v1 Event: the strict validation of the new API (eventTime required, type
 * Normal|Warning, deprecated fields unset) on top of the legacy rules; fields under the new
 * names (`regarding.*`, `reportingController`, `deprecatedSource`).
 */
import type { KubeObject, ObjectReference, StatusCause } from '@pv-controller/kube/types.js';
import { fieldLabelTable, jsonEqual } from '../common.js';
import { eventStrategy, legacyEventCauses, referenceFieldLabels, referenceFields } from '../core/event-strategy.js';
import { appendCauses, immutable, invalid, required } from '../../api/field-errors.js';
import { nameIsDNSSubdomain, validateObjectMeta, validateObjectMetaUpdate } from '../object-meta.js';
import type { ResourceStrategy } from '../strategy.js';

interface EventV1 extends KubeObject {
  eventTime?: string | null;
  series?: { count?: number; lastObservedTime?: string };
  reportingController?: string;
  reportingInstance?: string;
  action?: string;
  reason?: string;
  regarding?: ObjectReference;
  related?: ObjectReference;
  note?: string;
  type?: string;
  deprecatedSource?: { component?: string; host?: string };
  deprecatedFirstTimestamp?: string | null;
  deprecatedLastTimestamp?: string | null;
  deprecatedCount?: number;
}

function seriesCauses(ev: EventV1): StatusCause[] {
  const causes: StatusCause[] = [];
  if (ev.series) {
    if ((ev.series.count ?? 0) < 2) causes.push(invalid('series.count', '', 'should be at least 2'));
    if (!ev.series.lastObservedTime) causes.push(required('series.lastObservedTime'));
  }
  return causes;
}

function strictCauses(ev: EventV1): StatusCause[] {
  const causes = seriesCauses(ev);
  if (!ev.eventTime) causes.push(required('eventTime'));
  if (ev.type !== 'Normal' && ev.type !== 'Warning') causes.push(invalid('type', '', `has invalid value: ${ev.type ?? ''}`));
  if (ev.deprecatedFirstTimestamp) causes.push(invalid('deprecatedFirstTimestamp', '', 'needs to be unset'));
  if (ev.deprecatedLastTimestamp) causes.push(invalid('deprecatedLastTimestamp', '', 'needs to be unset'));
  if (ev.deprecatedCount) causes.push(invalid('deprecatedCount', '', 'needs to be unset'));
  if (ev.deprecatedSource?.component || ev.deprecatedSource?.host) causes.push(invalid('deprecatedSource', '', 'needs to be unset'));
  return causes;
}

function legacyCauses(ev: EventV1): StatusCause[] {
  return legacyEventCauses({
    namespace: ev.metadata.namespace ?? '',
    involvedNamespace: ev.regarding?.namespace ?? '',
    eventTime: ev.eventTime,
    reportingController: ev.reportingController ?? '',
    reportingInstance: ev.reportingInstance ?? '',
    action: ev.action ?? '',
    reason: ev.reason ?? '',
    message: ev.note ?? '',
  }, 'reportingController');
}

function validateEventV1(obj: KubeObject): StatusCause[] {
  const ev = obj as EventV1;
  return [...legacyCauses(ev), ...validateObjectMeta(ev.metadata, true, nameIsDNSSubdomain), ...strictCauses(ev)];
}

/** The deprecated core/v1 fields have no omitempty on events.k8s.io/v1, so they always serialise. */
function fillDeprecatedFields(obj: KubeObject): void {
  const ev = obj as EventV1;
  if (typeof ev.deprecatedSource !== 'object' || ev.deprecatedSource === null) ev.deprecatedSource = {};
  if (ev.deprecatedFirstTimestamp === undefined) ev.deprecatedFirstTimestamp = null;
  if (ev.deprecatedLastTimestamp === undefined) ev.deprecatedLastTimestamp = null;
}

/**
 * ValidateEventUpdate for events.k8s.io: each field but the series is immutable, checked in
 * upstream's order (reason twice, as there) under the core field names it validates.
 */
const IMMUTABLE_FIELDS: [keyof EventV1, string, unknown][] = [
  ['regarding', 'involvedObject', {}], ['reason', 'reason', ''], ['note', 'message', ''], ['deprecatedSource', 'source', {}],
  ['deprecatedFirstTimestamp', 'firstTimestamp', null], ['deprecatedLastTimestamp', 'lastTimestamp', null], ['deprecatedCount', 'count', 0],
  ['reason', 'reason', ''], ['type', 'type', ''], ['eventTime', 'eventTime', null], ['action', 'action', ''], ['related', 'related', null],
  ['reportingController', 'reportingController', ''], ['reportingInstance', 'reportingInstance', ''],
];

function validateEventV1Update(next: KubeObject, prev: KubeObject): StatusCause[] {
  const [a, b] = [next as EventV1, prev as EventV1];
  // The create-time strict checks are not repeated: legacy validation, then the update rules.
  const causes = [...legacyCauses(a), ...validateObjectMetaUpdate(next.metadata, prev.metadata)];
  if (!jsonEqual(a.series, b.series)) appendCauses(causes, seriesCauses(a));
  for (const [field, path, zero] of IMMUTABLE_FIELDS) {
    const [now, was] = [a[field] ?? zero, b[field] ?? zero];
    if (!jsonEqual(now, was)) causes.push(immutable(path, now));
  }
  return causes;
}

export const eventsV1Strategy: ResourceStrategy = eventStrategy({
  group: 'events.k8s.io',
  fillDefaults: fillDeprecatedFields,
  validateUpdate: validateEventV1Update,
  validate: validateEventV1,

  fields(obj) {
    const ev = obj as EventV1;
    return {
      ...referenceFields('regarding', ev.regarding),
      reason: ev.reason ?? '',
      reportingController: ev.reportingController ?? '',
      type: ev.type ?? '',
    };
  },

  fieldLabels: fieldLabelTable([...referenceFieldLabels('regarding'), 'reason', 'reportingController', 'type', 'metadata.namespace', 'metadata.name']),

  rowParts(obj) {
    const ev = obj as EventV1;
    return {
      first: ev.deprecatedFirstTimestamp, eventTime: ev.eventTime, last: ev.deprecatedLastTimestamp,
      seriesLast: ev.series?.lastObservedTime, seriesCount: ev.series?.count, count: ev.deprecatedCount, type: ev.type,
      reason: ev.reason, kind: ev.regarding?.kind, name: ev.regarding?.name, fieldPath: ev.regarding?.fieldPath,
      component: ev.deprecatedSource?.component || ev.reportingController,
      host: ev.deprecatedSource?.host || ev.reportingInstance, message: ev.note,
    };
  },
});
