/**
 * kubectl against the snapshot.storage.k8s.io kinds and CustomResourceDefinitions on the
 * embedded server (and on the real kube-apiserver with external-snapshotter's CRDs under
 * `npm run test:cluster`): apply, the printed columns (wide too), the status subresource,
 * explain, and a CRD of one's own applied, used and deleted with its instances.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectlPath, NO_KUBECTL } from '../helpers/apiserver.js';
import { kubectlSession } from '../helpers/kubectl-session.js';
import { ensureSnapshotKinds } from '../helpers/snapshot-crds.js';
import { waitFor } from '../helpers/wait.js';

const skip = kubectlPath() === undefined ? NO_KUBECTL : false;
const k = kubectlSession(skip, ensureSnapshotKinds);
const kubectl = (...args: string[]): Promise<string> => k.succeeds(...args);
const manifest = (name: string, text: string): Promise<string> => k.manifest(name, text);

const SNAPSHOT = `apiVersion: snapshot.storage.k8s.io/v1
kind: VolumeSnapshot
metadata:
  name: nightly
spec:
  volumeSnapshotClassName: csi-hostpath
  source:
    persistentVolumeClaimName: data
`;

const CONTENT = `apiVersion: snapshot.storage.k8s.io/v1
kind: VolumeSnapshotContent
metadata:
  name: content-nightly
spec:
  deletionPolicy: Retain
  driver: hostpath.csi.k8s.io
  source:
    snapshotHandle: snap-1
  volumeSnapshotRef:
    name: nightly
    namespace: default
`;

test('kubectl apply of a VolumeSnapshot, and kubectl get vs prints its columns', { skip }, async () => {
  assert.match(await kubectl('apply', '-f', await manifest('vs.yaml', SNAPSHOT)), /volumesnapshot\.snapshot\.storage\.k8s\.io\/nightly created/);
  const table = await kubectl('get', 'vs');
  assert.match(table, /^NAME\s+READYTOUSE\s+SOURCEPVC\s+SOURCESNAPSHOTCONTENT\s+RESTORESIZE\s+SNAPSHOTCLASS\s+SNAPSHOTCONTENT\s+CREATIONTIME\s+AGE$/m);
  assert.match(table, /^nightly\s+data\s+csi-hostpath\s+\S+$/m);
  assert.match(await kubectl('apply', '-f', await manifest('vs.yaml', SNAPSHOT)), /nightly unchanged/);
});

test('kubectl patch --subresource=status of a VolumeSnapshotContent shows in get -o wide', { skip }, async () => {
  await kubectl('apply', '-f', await manifest('vsc.yaml', CONTENT));
  await kubectl('patch', 'vsc', 'content-nightly', '--subresource=status', '--type=merge', '-p', '{"status":{"readyToUse":true,"restoreSize":1073741824}}');
  const wide = await kubectl('get', 'vsc', 'content-nightly', '-o', 'wide');
  assert.match(wide, /^NAME\s+READYTOUSE\s+RESTORESIZE\s+DELETIONPOLICY\s+DRIVER\s+VOLUMESNAPSHOTCLASS\s+VOLUMESNAPSHOT\s+VOLUMESNAPSHOTNAMESPACE\s+AGE$/m);
  assert.match(wide, /^content-nightly\s+true\s+1073741824\s+Retain\s+hostpath\.csi\.k8s\.io\s+nightly\s+default\s+\S+$/m);
});

test('kubectl refuses a VolumeSnapshot naming two sources with the CEL rule\'s message', { skip }, async () => {
  const bad = SNAPSHOT.replace('name: nightly', 'name: both').replace('persistentVolumeClaimName: data', 'persistentVolumeClaimName: data\n    volumeSnapshotContentName: c');
  const r = await k.run(['create', '-f', await manifest('both.yaml', bad)]);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /spec\.source: Invalid value: exactly one of volumeSnapshotContentName and persistentVolumeClaimName must be set/);
});

test('kubectl explain reads a VolumeSnapshot\'s schema', { skip }, async () => {
  const out = await kubectl('explain', 'volumesnapshot.spec.source');
  assert.match(out, /^KIND:\s+VolumeSnapshot$/m);
  assert.match(out, /^\s+persistentVolumeClaimName\s+<string>$/m);
  assert.match(out, /^\s+volumeSnapshotContentName\s+<string>$/m);
});

const WIDGETS = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {plural: widgets, kind: Widget, shortNames: [wd]}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, default: 3}
`;

test('a CRD applied with kubectl is established, served with its defaults, and deleted with its instances', { skip }, async () => {
  await kubectl('apply', '-f', await manifest('crd.yaml', WIDGETS));
  await kubectl('wait', '--for=condition=Established', 'crd/widgets.example.com', '--timeout=60s');
  assert.match(await kubectl('get', 'crd'), /^volumesnapshots\.snapshot\.storage\.k8s\.io\s+Namespaced\s+v1\(storage\)\s+\S+$/m);
  const widget = await manifest('w.yaml', 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\nspec: {}\n');
  await waitFor(async () => (await k.run(['apply', '-f', widget])).code === 0, 'the Widget kind to be served', { timeoutMs: 30_000, intervalMs: 200 });
  assert.equal(await kubectl('get', 'wd', 'w1', '-o', 'jsonpath={.spec.size}'), '3');
  await kubectl('delete', 'crd', 'widgets.example.com', '--wait=true', '--timeout=60s');
  const r = await k.run(['get', 'crd', 'widgets.example.com']);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /NotFound|not found/);
});
