import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const ROOT = new URL('../../../', import.meta.url);

interface Crd {
  kind: string;
  metadata: { name: string };
  spec: { group: string; names: { kind: string; plural: string }; scope: string; versions: { name: string; served: boolean; storage: boolean }[] };
}

test('the committed snapshot CRDs were generated from the external-snapshotter client version tools/snapshot/go.mod requires', async () => {
  const goMod = await readFile(fileURLToPath(new URL('tools/snapshot/go.mod', ROOT)), 'utf8');
  const required = /^\s*github\.com\/kubernetes-csi\/external-snapshotter\/client\/v8 (v\S+)/m.exec(goMod)?.[1];
  assert.ok(required, 'tools/snapshot/go.mod requires the client module');
  const list = JSON.parse(await readFile(fileURLToPath(new URL('packages/apiserver/src/crds/snapshot.storage.k8s.io.json', ROOT)), 'utf8')) as {
    metadata: { annotations: Record<string, string> };
    items: Crd[];
  };
  assert.match(list.metadata.annotations['pv-controller.io/generated-from'] ?? '', new RegExp(`@${required.replace(/\./g, '\\.')} `));
  const kinds = list.items.map((c) => `${c.spec.names.kind}/${c.spec.scope}`).sort();
  assert.deepEqual(kinds, ['VolumeSnapshot/Namespaced', 'VolumeSnapshotClass/Cluster', 'VolumeSnapshotContent/Cluster']);
  for (const crd of list.items) {
    assert.equal(crd.kind, 'CustomResourceDefinition');
    assert.equal(crd.spec.group, 'snapshot.storage.k8s.io');
    assert.equal(crd.metadata.name, `${crd.spec.names.plural}.snapshot.storage.k8s.io`);
    const stored = crd.spec.versions.filter((v) => v.storage);
    assert.deepEqual(stored.map((v) => v.name), ['v1']);
  }
});

test('the chart ships the same CRDs as the embedded server serves (crds/, generated together)', async () => {
  const { parseAllDocuments } = await import('yaml');
  const json = JSON.parse(await readFile(fileURLToPath(new URL('packages/apiserver/src/crds/snapshot.storage.k8s.io.json', ROOT)), 'utf8')) as { items: Crd[] };
  const text = await readFile(fileURLToPath(new URL('charts/pv-controller/crds/snapshot.storage.k8s.io.yaml', ROOT)), 'utf8');
  const docs = parseAllDocuments(text).map((d) => d.toJS() as Crd).filter((d) => d !== null);
  assert.deepEqual(docs, json.items);
});
