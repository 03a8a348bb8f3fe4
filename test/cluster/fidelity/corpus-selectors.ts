/** Label and field selectors, limit/continue and list resourceVersion semantics. */
import type { Case } from './case.js';
import { EVENT, NAMESPACE, NODE, POD, PV, PVC, SC, create, defineCase, get, post, withQuery, type Kind, plural } from './fixtures.js';

const SELECTORS = 'selectors';
const PAGES = 'limit/continue';

/** Three PVs in the case: tiers gold, silver and none. */
const tiered = [
  post(PV.collection, { ...PV.sample('a-{id}'), metadata: { name: 'a-{id}', labels: { case: '{id}', tier: 'gold' } } }),
  post(PV.collection, { ...PV.sample('b-{id}'), metadata: { name: 'b-{id}', labels: { case: '{id}', tier: 'silver' } } }),
  post(PV.collection, { ...PV.sample('c-{id}'), metadata: { name: 'c-{id}', labels: { case: '{id}' } } }),
];

function labelCase(id: string, selector: string): Case {
  return defineCase(id, SELECTORS, `labelSelector ${selector}`, get(withQuery(PV.collection, `labelSelector=case%3D{id}%2C${encodeURIComponent(selector)}`)), {
    resource: PV.resource,
    setup: tiered,
  });
}

function fieldCase(id: string, kind: Kind, selector: string, setup = [create(kind, `${id}-a`), create(kind, `${id}-b`)]): Case {
  return defineCase(id, SELECTORS, `fieldSelector ${selector} on ${plural(kind)}`, get(withQuery(kind.collection, `labelSelector=case%3D{id}&fieldSelector=${encodeURIComponent(selector)}`)), {
    resource: kind.resource,
    setup,
  });
}

const selectors: Case[] = [
  labelCase('label-equals', 'tier=gold'),
  labelCase('label-not-equals', 'tier!=gold'),
  labelCase('label-in', 'tier in (gold,silver)'),
  labelCase('label-notin', 'tier notin (gold)'),
  labelCase('label-exists', 'tier'),
  labelCase('label-not-exists', '!tier'),
  labelCase('label-double-equals', 'tier==silver'),
  defineCase('label-invalid', SELECTORS, 'an invalid labelSelector', get(withQuery(PV.collection, 'labelSelector=tier%20in%20gold')), { resource: PV.resource }),
  fieldCase('field-pv-name', PV, 'metadata.name=field-pv-name-a'),
  fieldCase('field-pv-name-not', PV, 'metadata.name!=field-pv-name-a'),
  fieldCase('field-pvc-namespace', PVC, 'metadata.namespace={ns}'),
  fieldCase('field-pod-node', POD, 'spec.nodeName=', [create(POD, 'field-pod-node-a')]),
  fieldCase('field-pod-phase', POD, 'status.phase=Pending', [create(POD, 'field-pod-phase-a')]),
  fieldCase('field-event-reason', EVENT, 'reason=ProvisioningSucceeded,type=Normal'),
  fieldCase('field-event-involved', EVENT, 'involvedObject.name=claim,involvedObject.kind=PersistentVolumeClaim'),
  fieldCase('field-ns-phase', NAMESPACE, 'status.phase=Active'),
  fieldCase('field-node-unschedulable', NODE, 'spec.unschedulable=false'),
  fieldCase('field-pv-phase', PV, 'status.phase=Pending'),
  defineCase('field-unsupported', SELECTORS, 'a fieldSelector on a field that is not indexed', get(withQuery(PV.collection, 'fieldSelector=spec.storageClassName%3Dmanual')), { resource: PV.resource }),
  defineCase('field-invalid', SELECTORS, 'a fieldSelector without an operator', get(withQuery(PV.collection, 'fieldSelector=metadata.name')), { resource: PV.resource }),
  defineCase('field-sc-name-get', SELECTORS, 'fieldSelector metadata.name on StorageClasses', get(withQuery(SC.collection, 'fieldSelector=metadata.name%3Dsc-{id}')), { resource: SC.resource, setup: [create(SC, 'sc-{id}')] }),
];

const five = ['a', 'b', 'c', 'd', 'e'].map((n) => create(PVC, n));
const own = 'labelSelector=case%3D{id}';

const pages: Case[] = [
  defineCase('list-limit-first-page', PAGES, 'the first page of a limited list', get(withQuery(PVC.collection, 'limit=2')), { resource: PVC.resource, setup: five }),
  defineCase('list-limit-second-page', PAGES, 'the second page through continue', get(withQuery(PVC.collection, 'limit=2&continue={$next}')), {
    resource: PVC.resource,
    setup: [...five, get(withQuery(PVC.collection, 'limit=2'), { save: { next: 'metadata.continue' } })],
  }),
  defineCase('list-limit-last-page', PAGES, 'the last page has no continue', get(withQuery(PVC.collection, 'limit=3&continue={$next}')), {
    resource: PVC.resource,
    setup: [...five, get(withQuery(PVC.collection, 'limit=2'), { save: { next: 'metadata.continue' } })],
  }),
  defineCase('list-limit-with-selector', PAGES, 'a limited list with a labelSelector', get(withQuery(PVC.collection, `limit=2&${own}`)), { resource: PVC.resource, setup: five }),
  defineCase('list-limit-zero', PAGES, 'limit=0 lists everything', get(withQuery(PVC.collection, 'limit=0')), { resource: PVC.resource, setup: five.slice(0, 2) }),
  defineCase('list-continue-invalid', PAGES, 'a continue token that is not one', get(withQuery(PVC.collection, 'limit=2&continue=bm90LWEtdG9rZW4')), { resource: PVC.resource }),
  defineCase('list-rv-not-older-than', PAGES, 'a list with resourceVersionMatch=NotOlderThan', get(withQuery(PVC.collection, 'resourceVersion={$rv}&resourceVersionMatch=NotOlderThan')), {
    resource: PVC.resource,
    setup: five.slice(0, 2),
  }),
  defineCase('list-rv-match-without-rv', PAGES, 'resourceVersionMatch without a resourceVersion', get(withQuery(PVC.collection, 'resourceVersionMatch=Exact')), { resource: PVC.resource }),
  defineCase('list-rv-invalid', PAGES, 'a resourceVersion that is no number', get(withQuery(PVC.collection, 'resourceVersion=abc')), { resource: PVC.resource }),
];

// Reads at resourceVersion=0 ("any version") are not compared: kube-apiserver serves them from
// its watch cache, which may not yet hold an object created a moment before (a 404 or a shorter
// list in some runs), so no single answer is kube-apiserver's.
export const selectorCases: Case[] = [...selectors, ...pages];
