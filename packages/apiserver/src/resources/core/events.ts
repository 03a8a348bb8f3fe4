/**
 * core/v1 Event: the legacy event validation (namespace agreement; for events carrying an
 * eventTime, the reporting fields) over core/v1 field names, the selectable fields
 * `kubectl describe` uses, and where a `kubectl get events` row takes its values from.
 */
import type { CoreEvent, KubeObject, StatusCause } from '@pv-controller/kube/types.js';
import { fieldLabelTable } from '../common.js';
import { eventStrategy, legacyEventCauses, referenceFieldLabels, referenceFields, type EventCore } from './event-strategy.js';
import { nameIsDNSSubdomain, validateObjectMeta } from '../object-meta.js';
import type { ResourceStrategy } from '../strategy.js';

function coreOf(ev: CoreEvent): EventCore {
  return {
    namespace: ev.metadata.namespace ?? '',
    involvedNamespace: ev.involvedObject?.namespace ?? '',
    eventTime: ev.eventTime,
    reportingController: ev.reportingComponent ?? '',
    reportingInstance: ev.reportingInstance ?? '',
    action: ev.action ?? '',
    reason: ev.reason ?? '',
    message: ev.message ?? '',
  };
}

function validateCoreEvent(obj: KubeObject): StatusCause[] {
  const ev = obj as CoreEvent;
  return [...validateObjectMeta(ev.metadata, true, nameIsDNSSubdomain), ...legacyEventCauses(coreOf(ev), 'reportingComponent')];
}

type CoreEventSeries = { series?: { lastObservedTime?: string; count?: number } };

export const coreEventStrategy: ResourceStrategy = eventStrategy({
  group: '',
  fillDefaults(obj) {
    const ev = obj as CoreEvent;
    if (typeof ev.involvedObject !== 'object' || ev.involvedObject === null) ev.involvedObject = {};
    // The fields of the events.k8s.io version have no omitempty on core/v1, so they always serialise.
    if (ev.eventTime === undefined) ev.eventTime = null;
    ev.reportingComponent ??= '';
    ev.reportingInstance ??= '';
  },
  validate: validateCoreEvent,

  fields(obj) {
    const ev = obj as CoreEvent;
    return {
      ...referenceFields('involvedObject', ev.involvedObject),
      reason: ev.reason ?? '',
      reportingComponent: ev.reportingComponent ?? '',
      source: ev.source?.component || ev.reportingComponent || '',
      type: ev.type ?? '',
    };
  },

  fieldLabels: fieldLabelTable([...referenceFieldLabels('involvedObject'), 'reason', 'reportingComponent', 'source', 'type', 'metadata.namespace', 'metadata.name']),

  rowParts(obj) {
    const ev = obj as CoreEvent;
    const series = (obj as CoreEventSeries).series;
    return {
      first: ev.firstTimestamp, eventTime: ev.eventTime ?? null, last: ev.lastTimestamp,
      seriesLast: series?.lastObservedTime, seriesCount: series?.count, count: ev.count, type: ev.type, reason: ev.reason,
      kind: ev.involvedObject?.kind, name: ev.involvedObject?.name, fieldPath: ev.involvedObject?.fieldPath,
      component: ev.source?.component || ev.reportingComponent, host: ev.source?.host || ev.reportingInstance,
      message: ev.message,
    };
  },
});
