/**
 * Watches: the event sequence a create/update/delete produces on every resource, initial events,
 * selectors that objects move out of, bookmarks, the legacy path, Table watches and 410 Gone.
 */
import type { Case, Step } from './case.js';
import { ALL_KINDS, EVENT, MERGE, OWN, PV, PVC, TABLE, create, defineCase, del, get, item, patch, post, tag, watch, withQuery, a } from './fixtures.js';

const AREA = 'watch';

function listRV(collection: string): Step {
  return get(withQuery(collection, OWN), { save: { rv: 'metadata.resourceVersion' } });
}

function perKind(): Case[] {
  return ALL_KINDS.map((k) => {
    const name = `${tag(k)}-{id}`;
    return defineCase(`${tag(k)}-watch-sequence`, AREA, `watch ${a(k)} created, patched and deleted`, watch(withQuery(k.collection, `watch=1&${OWN}&resourceVersion={$rv}`), 3, [
      create(k, name),
      patch(item(k, name), MERGE, k.edit),
      del(item(k, name)),
    ]), { resource: k.resource, setup: [listRV(k.collection)] });
  });
}

const twoClaims = [create(PVC, 'a'), create(PVC, 'b')];

/** Enough events to push the first ones out of both servers' history (see fidelity.test.ts). */
const CHURN = 120;

const extras: Case[] = [
  defineCase('watch-initial-no-rv', AREA, 'a watch without resourceVersion starts with the current objects', watch(withQuery(PVC.collection, 'watch=1'), 3, [create(PVC, 'c')]), {
    resource: PVC.resource,
    setup: twoClaims,
  }),
  defineCase('watch-initial-rv-zero', AREA, 'a watch at resourceVersion=0 starts with the current objects', watch(withQuery(PVC.collection, 'watch=1&resourceVersion=0'), 2), { resource: PVC.resource, setup: twoClaims }),
  defineCase('watch-label-leaves-selection', AREA, 'an object whose label stops matching leaves the watch', watch(withQuery(PV.collection, `watch=1&${OWN}&resourceVersion={$rv}`), 2, [
    patch(item(PV, 'pv-{id}'), MERGE, { metadata: { labels: { tier: 'gold' } } }),
    patch(item(PV, 'pv-{id}'), MERGE, { metadata: { labels: { case: 'moved' } } }),
  ]), { resource: PV.resource, setup: [create(PV, 'pv-{id}')] }),
  defineCase('watch-label-enters-selection', AREA, 'an object whose label starts matching enters the watch', watch(withQuery(PV.collection, 'watch=1&labelSelector=tier%3Dgold&resourceVersion={$rv}'), 1, [
    patch(item(PV, 'pv-{id}'), MERGE, { metadata: { labels: { tier: 'gold' } } }),
  ]), { resource: PV.resource, setup: [create(PV, 'pv-{id}')] }),
  defineCase('watch-field-selector-name', AREA, 'a watch of one object by fieldSelector', watch(withQuery(PVC.collection, 'watch=1&fieldSelector=metadata.name%3Da&resourceVersion={$rv}'), 2, [
    patch(item(PVC, 'b'), MERGE, { metadata: { labels: { x: '1' } } }),
    patch(item(PVC, 'a'), MERGE, { metadata: { labels: { x: '1' } } }),
    patch(item(PVC, 'a'), MERGE, { metadata: { labels: { x: '2' } } }),
  ]), { resource: PVC.resource, setup: [create(PVC, 'a'), create(PVC, 'b')] }),
  defineCase('watch-timeout-seconds', AREA, 'a watch with timeoutSeconds ends by itself', watch(withQuery(PVC.collection, 'watch=1&timeoutSeconds=1&resourceVersion={$rv}'), 1), { resource: PVC.resource, setup: [create(PVC, 'a')] }),
  defineCase('watch-legacy-path', AREA, 'the legacy /watch/ path', watch(`/api/v1/watch/namespaces/{ns}/persistentvolumeclaims?resourceVersion={$rv}`, 1, [create(PVC, 'b')]), {
    resource: PVC.resource,
    setup: [create(PVC, 'a')],
  }),
  defineCase('watch-legacy-single-object', AREA, 'the legacy /watch/ path of one object', watch('/api/v1/watch/persistentvolumes/pv-{id}?resourceVersion={$rv}', 1, [patch(item(PV, 'pv-{id}'), MERGE, { metadata: { labels: { x: '1' } } })]), {
    resource: PV.resource,
    setup: [create(PV, 'pv-{id}')],
  }),
  defineCase('watch-initial-events-bookmark', AREA, 'sendInitialEvents ends the initial events with a bookmark', watch(withQuery(PVC.collection, 'watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true'), 3), {
    resource: PVC.resource,
    setup: twoClaims,
  }),
  defineCase('watch-send-initial-events-without-match', AREA, 'sendInitialEvents without resourceVersionMatch', watch(withQuery(PVC.collection, 'watch=1&sendInitialEvents=true'), 1), { resource: PVC.resource }),
  defineCase('watch-as-table', AREA, 'a watch that asks for Table rows', { ...watch(withQuery(PVC.collection, 'watch=1&resourceVersion={$rv}'), 1, [create(PVC, 'b')]), accept: TABLE }, {
    resource: PVC.resource,
    setup: [create(PVC, 'a')],
  }),
  defineCase('watch-events-expired', AREA, 'a watch from a resourceVersion whose history is gone answers 410', watch(withQuery(EVENT.collection, 'watch=1&resourceVersion={$rv}'), 1), {
    resource: EVENT.resource,
    setup: [
      create(EVENT, 'first'),
      { kind: 'repeat', times: CHURN, request: post(EVENT.collection, EVENT.sample('churn-{i}')) },
      { kind: 'poll', untilStatus: 410, timeoutMs: 20_000, request: get(withQuery(EVENT.collection, 'resourceVersion={$rv}&resourceVersionMatch=Exact&limit=1')) },
    ],
  }),
  defineCase('watch-rv-invalid', AREA, 'a watch with a resourceVersion that is no number', watch(withQuery(PVC.collection, 'watch=1&resourceVersion=abc'), 1), { resource: PVC.resource }),
];

export const watchCases: Case[] = [...perKind(), ...extras];
