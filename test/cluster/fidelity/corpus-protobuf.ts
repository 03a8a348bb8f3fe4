/**
 * application/vnd.kubernetes.protobuf: creates whose bodies our encoder builds (as kubectl's and
 * client-go's typed calls send them), answers asked for in protobuf (decoded for comparison),
 * errors as protobuf Status, and what cannot be protobuf.
 */
import type { Case } from './case.js';
import { ALL_KINDS, OWN, PV, NAMESPACE, TABLE, create, defineCase, get, item, post, tag, withQuery, patch, MERGE } from './fixtures.js';

const AREA = 'protobuf';
export const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const BOTH_WAYS = { contentType: PROTOBUF, accept: PROTOBUF };

function perKind(): Case[] {
  return ALL_KINDS.flatMap((k) => [
    defineCase(`${tag(k)}-protobuf-create`, AREA, `a ${k.resource} created from a protobuf body, answered in protobuf`, create(k, `${tag(k)}-{id}`, BOTH_WAYS), { resource: k.resource }),
    defineCase(`${tag(k)}-protobuf-get`, AREA, `a ${k.resource} read in protobuf`, get(item(k, `${tag(k)}-{id}`), { accept: `${PROTOBUF},application/json` }), {
      resource: k.resource,
      setup: [create(k, `${tag(k)}-{id}`)],
    }),
  ]);
}

const extras: Case[] = [
  defineCase('pv-protobuf-list', AREA, 'a list in protobuf', get(withQuery(PV.collection, OWN), { accept: PROTOBUF }), { resource: PV.resource, setup: [create(PV, 'pv-{id}')] }),
  defineCase('pv-protobuf-not-found', AREA, 'a 404 Status in protobuf', get(item(PV, 'pv-missing-{id}'), { accept: PROTOBUF }), { resource: PV.resource }),
  defineCase('namespace-protobuf-truncated', AREA, 'a protobuf envelope cut short', post(NAMESPACE.collection, 'k8s\u0000\u0012', { contentType: PROTOBUF }), { resource: NAMESPACE.resource }),
  defineCase('pv-protobuf-table-only', AREA, 'a Table asked for only in protobuf', get(withQuery(PV.collection, OWN), { accept: `${PROTOBUF};as=Table;v=v1;g=meta.k8s.io` }), { resource: PV.resource }),
  defineCase('pv-protobuf-table-or-json', AREA, 'a protobuf Table, else a JSON Table', get(withQuery(PV.collection, OWN), { accept: `${PROTOBUF};as=Table;v=v1;g=meta.k8s.io,${TABLE}` }), { resource: PV.resource, setup: [create(PV, 'pv-{id}')] }),
  defineCase('pv-protobuf-patch-body', AREA, 'a patch whose body is protobuf', patch(item(PV, 'pv-{id}'), PROTOBUF, 'k8s\u0000'), { resource: PV.resource, setup: [create(PV, 'pv-{id}')] }),
  defineCase('pv-protobuf-merge-patch-answer', AREA, 'a merge patch answered in protobuf', { ...patch(item(PV, 'pv-{id}'), MERGE, { metadata: { labels: { a: 'b' } } }), accept: PROTOBUF }, { resource: PV.resource, setup: [create(PV, 'pv-{id}')] }),
];

export const protobufCases: Case[] = [...perKind(), ...extras];
