/**
 * A claim's dataSource and dataSourceRef as kube-apiserver keeps them (KEP-1495, AnyVolumeDataSource
 * GA; CrossNamespaceVolumeDataSource alpha, off): one mirrored into the other, a populator's kind
 * in dataSource alone silently dropped, a namespaced dataSourceRef dropped, an omitted
 * dataSourceRef filled in again on update, and "must match" comparing the API group as given.
 */
import type { Case } from './case.js';
import { PVC, defineCase, get, item, post, put } from './fixtures.js';

const AREA = 'claim data sources';
const SNAPSHOT = { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'nightly' };
const POPULATOR = { apiGroup: 'populators.example.com', kind: 'Tarball', name: 'seed' };
const CLONE = { kind: 'PersistentVolumeClaim', name: 'origin' };

function claimWith(name: string, sources: Record<string, unknown>): Record<string, unknown> {
  const base = PVC.sample(name);
  return { ...base, spec: { ...(base.spec as object), ...sources } };
}

const create = (id: string, title: string, sources: Record<string, unknown>): Case =>
  defineCase(id, AREA, title, post(PVC.collection, claimWith('claim', sources)), { resource: PVC.resource });

export const dataSourceCases: Case[] = [
  create('pvc-datasource-snapshot-mirrored', 'a VolumeSnapshot dataSource is mirrored into dataSourceRef', { dataSource: SNAPSHOT }),
  create('pvc-datasource-clone-mirrored', 'a claim dataSource (core group) is mirrored into dataSourceRef', { dataSource: CLONE }),
  create('pvc-datasourceref-populator-mirrored', 'a populator\'s dataSourceRef is mirrored into dataSource', { dataSourceRef: POPULATOR }),
  create('pvc-datasource-populator-dropped', 'a populator\'s kind in dataSource alone is dropped, as if no source were asked', { dataSource: POPULATOR }),
  create('pvc-datasourceref-namespace-dropped', 'a dataSourceRef naming a namespace is dropped (CrossNamespaceVolumeDataSource is off)', { dataSourceRef: { ...SNAPSHOT, namespace: 'other' } }),
  create('pvc-datasource-both-equal', 'dataSource and dataSourceRef both given, equal', { dataSource: SNAPSHOT, dataSourceRef: SNAPSHOT }),
  create('pvc-datasource-both-differ', 'dataSource and dataSourceRef both given, different', { dataSource: SNAPSHOT, dataSourceRef: { ...SNAPSHOT, name: 'weekly' } }),
  create('pvc-datasource-empty-group-vs-none', 'an empty apiGroup on one side and none on the other do not match', { dataSource: CLONE, dataSourceRef: { ...CLONE, apiGroup: '' } }),
  defineCase('pvc-update-omitting-datasourceref', AREA, 'an update from a client that omits dataSourceRef keeps it', put(item(PVC, 'claim'), undefined, { edit: { of: 'obj', merge: { metadata: { labels: { tier: 'gold' } }, spec: { dataSourceRef: null } } } }), {
    resource: PVC.resource,
    setup: [post(PVC.collection, claimWith('claim', { dataSource: SNAPSHOT })), get(item(PVC, 'claim'), { save: { obj: '.' } })],
  }),
  defineCase('pvc-update-adds-populator-datasource', AREA, 'an update adding a populator\'s dataSource to a claim without one', put(item(PVC, 'claim'), undefined, { edit: { of: 'obj', merge: { spec: { dataSource: POPULATOR } } } }), {
    resource: PVC.resource,
    setup: [post(PVC.collection, claimWith('claim', {})), get(item(PVC, 'claim'), { save: { obj: '.' } })],
  }),
];
