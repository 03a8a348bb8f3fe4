/** Both Event strategies (core/v1 and events.k8s.io/v1) serve one stored kind: what they must agree on, and where they differ. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BadRequestError } from '@pv-controller/kube/errors.js';
import type { KubeObject } from '@pv-controller/kube/types.js';
import { EVENT_COLUMNS } from '@pv-controller/apiserver/resources/core/event-strategy.js';
import { coreEventStrategy } from '@pv-controller/apiserver/resources/core/events.js';
import { eventsV1Strategy } from '@pv-controller/apiserver/resources/events.k8s.io/events-v1.js';
import { create, EVENT_V1, update, withChanges } from './helpers.js';

const ref = { kind: 'PersistentVolumeClaim', namespace: 'ns', name: 'c1', uid: 'u1', apiVersion: 'v1', resourceVersion: '7', fieldPath: 'spec' };

const coreEvent: KubeObject = {
  metadata: { name: 'c1.1', namespace: 'ns' },
  involvedObject: ref,
  reason: 'Provisioned',
  reportingComponent: 'example.com/ctrl',
  source: { component: 'pv-controller', host: 'node-1' },
  type: 'Warning',
};

const v1Event: KubeObject = withChanges(EVENT_V1, { regarding: ref });

test('both versions are the namespaced Event kind, short name ev, without status, printed with the same columns', () => {
  for (const [s, group] of [[coreEventStrategy, ''], [eventsV1Strategy, 'events.k8s.io']] as const) {
    assert.deepEqual(
      { ...s.info },
      { group, version: 'v1', plural: 'events', singular: 'event', kind: 'Event', listKind: 'EventList', namespaced: true,
        shortNames: ['ev'], hasStatus: false, verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
        storedAs: { group: '', version: 'v1' } },
    );
    assert.equal(s.tableColumns, EVENT_COLUMNS);
  }
  // kube-apiserver declares every Event column a string, Count too.
  assert.deepEqual(EVENT_COLUMNS.map((c) => c.type), EVENT_COLUMNS.map(() => 'string'));
});

test('core/v1 fields: every involvedObject reference field, reason, reportingComponent, source (falling back to reportingComponent), type', () => {
  assert.deepEqual(coreEventStrategy.fields(coreEvent), {
    'involvedObject.kind': 'PersistentVolumeClaim', 'involvedObject.namespace': 'ns', 'involvedObject.name': 'c1', 'involvedObject.uid': 'u1',
    'involvedObject.apiVersion': 'v1', 'involvedObject.resourceVersion': '7', 'involvedObject.fieldPath': 'spec',
    reason: 'Provisioned', reportingComponent: 'example.com/ctrl', source: 'pv-controller', type: 'Warning',
  });
  const bare = coreEventStrategy.fields({ metadata: { name: 'x', namespace: 'ns' } });
  assert.equal(bare['involvedObject.name'], '');
  assert.equal(coreEventStrategy.fields(withChanges(coreEvent, { source: undefined })).source, 'example.com/ctrl');
});

test('events.k8s.io/v1 fields: every regarding reference field, reason, reportingController, type', () => {
  assert.deepEqual(eventsV1Strategy.fields(v1Event), {
    'regarding.kind': 'PersistentVolumeClaim', 'regarding.namespace': 'ns', 'regarding.name': 'c1', 'regarding.uid': 'u1',
    'regarding.apiVersion': 'v1', 'regarding.resourceVersion': '7', 'regarding.fieldPath': 'spec',
    reason: 'Provisioned', reportingController: 'example.com/ctrl', type: 'Normal',
  });
  assert.equal(eventsV1Strategy.fields({ metadata: { name: 'x', namespace: 'ns' } })['regarding.kind'], '');
});

test('a core event without involvedObject gets an empty one; a v1 event is left without regarding', () => {
  const core = create(coreEventStrategy, { metadata: { name: 'x', namespace: 'default' }, reason: 'R' });
  assert.deepEqual((core.obj as { involvedObject?: unknown }).involvedObject, {});
  const v1 = create(eventsV1Strategy, withChanges(v1Event, { regarding: undefined }));
  assert.equal((v1.obj as { regarding?: unknown }).regarding, undefined);
});

test('a MicroTime that is not six-digit RFC 3339 is a decode error naming the version, in eventTime or series.lastObservedTime', () => {
  const bad = '2024-05-01T10:00:00Z';
  assert.throws(() => create(coreEventStrategy, withChanges(coreEvent, { eventTime: bad })), (err: unknown) =>
    err instanceof BadRequestError && /Event in version "v1"/.test(err.message));
  assert.throws(() => create(coreEventStrategy, withChanges(coreEvent, { 'series.lastObservedTime': bad })), BadRequestError);
  assert.throws(() => create(eventsV1Strategy, withChanges(v1Event, { eventTime: bad })), (err: unknown) =>
    err instanceof BadRequestError && /^Event in version "v1" cannot be handled as a Event: parsing time /.test(err.message));
  assert.throws(() => create(eventsV1Strategy, withChanges(v1Event, { series: { count: 2, lastObservedTime: bad } })), BadRequestError);
});

test('an update is validated like a create plus the metadata update rules, in both versions', () => {
  const cases = [
    [coreEventStrategy, coreEvent, { 'involvedObject.namespace': 'other' }, 'involvedObject.namespace'],
    [eventsV1Strategy, v1Event, { type: 'Info' }, 'type'],
  ] as const;
  for (const [s, ev, breakIt, brokenField] of cases) {
    const prev = create(s, ev).obj;
    assert.deepEqual(update(s, prev, prev).causes, []);
    const moved = update(s, withChanges(prev, { 'metadata.namespace': 'other' }), prev).causes.map((c) => c.field);
    assert.ok(moved.includes('metadata.namespace'), JSON.stringify(moved));
    const broken = update(s, withChanges(prev, breakIt), prev).causes.map((c) => c.field);
    assert.deepEqual(broken, [brokenField]);
  }
});
