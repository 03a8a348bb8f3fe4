/** Table output (what `kubectl get` prints): column definitions, cells and the row objects. */
import type { Case } from './case.js';
import { ALL_KINDS, OWN, PV, PVC, TABLE, create, defineCase, get, item, tag, withQuery, plural } from './fixtures.js';

const AREA = 'table';

function perKind(): Case[] {
  return ALL_KINDS.map((k) =>
    defineCase(`${tag(k)}-table-list`, AREA, `${plural(k)} as a Table`, get(withQuery(k.collection, OWN), { accept: TABLE }), {
      resource: k.resource,
      setup: [create(k, `${tag(k)}-{id}`)],
    }),
  );
}

const extras: Case[] = [
  defineCase('pv-table-get', AREA, 'one PersistentVolume as a Table', get(item(PV, 'pv-{id}'), { accept: TABLE }), { resource: PV.resource, setup: [create(PV, 'pv-{id}')] }),
  defineCase('pv-table-include-none', AREA, 'a Table with includeObject=None', get(withQuery(PV.collection, `${OWN}&includeObject=None`), { accept: TABLE }), { resource: PV.resource, setup: [create(PV, 'pv-{id}')] }),
  defineCase('pv-table-include-object', AREA, 'a Table with includeObject=Object', get(withQuery(PV.collection, `${OWN}&includeObject=Object`), { accept: TABLE }), { resource: PV.resource, setup: [create(PV, 'pv-{id}')] }),
  defineCase('pvc-table-v1beta1', AREA, 'a meta.k8s.io/v1beta1 Table', get(withQuery(PVC.collection, OWN), { accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io' }), {
    resource: PVC.resource,
    setup: [create(PVC, 'claim')],
  }),
  defineCase('pvc-table-empty', AREA, 'an empty Table', get(withQuery(PVC.collection, OWN), { accept: TABLE }), { resource: PVC.resource }),
  defineCase('pvc-table-limit', AREA, 'a limited Table carries continue', get(withQuery(PVC.collection, `${OWN}&limit=1`), { accept: TABLE }), {
    resource: PVC.resource,
    setup: [create(PVC, 'a'), create(PVC, 'b')],
  }),
  defineCase('pvc-table-kubectl-accept', AREA, 'the Accept header kubectl get sends', get(withQuery(PVC.collection, OWN), { accept: `${TABLE},application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json` }), {
    resource: PVC.resource,
    setup: [create(PVC, 'claim')],
  }),
  defineCase('pv-partial-metadata', AREA, 'PartialObjectMetadataList, as metadata informers ask', get(withQuery(PV.collection, OWN), { accept: 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json' }), {
    resource: PV.resource,
    setup: [create(PV, 'pv-{id}')],
  }),
];

export const tableCases: Case[] = [...perKind(), ...extras];
