/**
 * kubectl 1.32, unmodified, against the embedded API server: apply (create, then strategic merge
 * patch), get (JSON and the printed columns), patch (merge, json, strategic, also of a
 * Deployment's template containers), wait, get -w,
 * describe, delete.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectlPath, NO_KUBECTL, runKubectl, startKubectl, startTestApiServer, type TestApiServer } from '../helpers/apiserver.js';

const skip = kubectlPath() === undefined ? NO_KUBECTL : false;

let t: TestApiServer;
let dir: string;

const PV = (label: string, mountOption: string): string => `apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv1
  labels:
    tier: ${label}
spec:
  capacity:
    storage: 5Gi
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: gold
  mountOptions: [${mountOption}]
  hostPath:
    path: /tmp/pv1
`;

const PVC = `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: claim1
  namespace: default
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: gold
  resources:
    requests:
      storage: 1Gi
`;

const SC = `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: gold
provisioner: example.com/gold
reclaimPolicy: Retain
volumeBindingMode: WaitForFirstConsumer
`;

async function kubectl(...args: string[]): Promise<string> {
  const r = await runKubectl(args, t.server.kubeconfigPath);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed:\n${r.stderr}\n${r.stdout}`);
  return r.stdout;
}

async function manifest(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

before(async () => {
  if (skip) return;
  t = await startTestApiServer();
  dir = await mkdtemp(join(tmpdir(), 'kubectl-manifests-'));
});

after(async () => {
  if (skip) return;
  await t.stop();
  await rm(dir, { recursive: true, force: true });
});

test('kubectl apply creates a StorageClass, a PV and a PVC with default validation', { skip }, async () => {
  assert.match(await kubectl('apply', '-f', await manifest('sc.yaml', SC)), /storageclass.storage.k8s.io\/gold created/);
  assert.match(await kubectl('apply', '-f', await manifest('pv.yaml', PV('gold', 'noatime'))), /persistentvolume\/pv1 created/);
  assert.match(await kubectl('apply', '-f', await manifest('pvc.yaml', PVC)), /persistentvolumeclaim\/claim1 created/);
  const pv = JSON.parse(await kubectl('get', 'pv', 'pv1', '-o', 'json'));
  assert.equal(pv.spec.capacity.storage, '5Gi');
  assert.ok(pv.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
  const pvc = JSON.parse(await kubectl('get', 'pvc', 'claim1', '-o', 'json'));
  assert.equal(pvc.status.phase, 'Pending');
});

test('re-applying a changed manifest sends a strategic merge patch that lands', { skip }, async () => {
  const out = await kubectl('apply', '-f', await manifest('pv.yaml', PV('silver', 'nfsvers=4.1')));
  assert.match(out, /persistentvolume\/pv1 configured/);
  const pv = JSON.parse(await kubectl('get', 'pv', 'pv1', '-o', 'json'));
  assert.equal(pv.metadata.labels.tier, 'silver');
  assert.deepEqual(pv.spec.mountOptions, ['nfsvers=4.1']);
  assert.match(await kubectl('apply', '-f', join(dir, 'pv.yaml')), /persistentvolume\/pv1 unchanged/);
});

test('kubectl get pv prints the server-side columns', { skip }, async () => {
  const out = await kubectl('get', 'pv');
  const header = out.split('\n')[0];
  for (const col of ['NAME', 'CAPACITY', 'ACCESS MODES', 'RECLAIM POLICY', 'STATUS', 'CLAIM', 'STORAGECLASS']) {
    assert.ok(header.includes(col), `missing column ${col} in: ${header}`);
  }
  assert.match(out.split('\n')[1], /^pv1\s+5Gi\s+RWO\s+Retain\s+/);
  assert.match(await kubectl('get', 'sc'), /^gold\s+example.com\/gold/m);
});

test('kubectl patch works with merge, json and strategic patches', { skip }, async () => {
  await kubectl('patch', 'pv', 'pv1', '--type=merge', '-p', '{"metadata":{"labels":{"m":"1"}}}');
  await kubectl('patch', 'pv', 'pv1', '--type=json', '-p', '[{"op":"add","path":"/metadata/labels/j","value":"2"}]');
  await kubectl('patch', 'pv', 'pv1', '-p', '{"metadata":{"finalizers":["example.com/extra"]}}');
  const pv = JSON.parse(await kubectl('get', 'pv', 'pv1', '-o', 'json'));
  assert.equal(pv.metadata.labels.m, '1');
  assert.equal(pv.metadata.labels.j, '2');
  assert.ok(pv.metadata.finalizers.includes('example.com/extra'), 'strategic patch merges the finalizer list');
  assert.ok(pv.metadata.finalizers.includes('kubernetes.io/pv-protection'), 'and keeps the existing ones');
});

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: nginx:1
        ports: [{containerPort: 80}]
        env: [{name: MODE, value: prod}]
      - name: sidecar
        image: envoy:1
`;

test('kubectl patch of a Deployment merges its template containers by name, keeping the sidecar, ports and env', { skip }, async () => {
  await kubectl('apply', '-f', await manifest('deploy.yaml', DEPLOYMENT));
  await kubectl('patch', 'deploy', 'web', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:2"}]}}}}');
  const containers = JSON.parse(await kubectl('get', 'deploy', 'web', '-o', 'json')).spec.template.spec.containers;
  assert.deepEqual(containers.map((c: { name: string; image: string }) => `${c.name}=${c.image}`), ['app=nginx:2', 'sidecar=envoy:1']);
  assert.deepEqual(containers[0].ports, [{ containerPort: 80, protocol: 'TCP' }]);
  assert.deepEqual(containers[0].env, [{ name: 'MODE', value: 'prod' }]);
});

test('kubectl wait --for=jsonpath returns once the condition holds', { skip }, async () => {
  const wait = await startKubectl(['wait', '--for=jsonpath={.status.phase}=Available', 'pv/pv1', '--timeout=30s'], t.server.kubeconfigPath);
  try {
    await kubectl('patch', 'pv', 'pv1', '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Available"}}');
    await new Promise<void>((resolve) => (wait.child.exitCode !== null ? resolve() : wait.child.once('close', () => resolve())));
  } finally {
    const r = await wait.stop();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /persistentvolume\/pv1 condition met/);
  }
});

test('kubectl get -w sees a change as it happens', { skip }, async () => {
  const watcher = await startKubectl(['get', 'pvc', '-w'], t.server.kubeconfigPath);
  try {
    await watcher.waitForOutput(/claim1\s+Pending/);
    await kubectl('label', 'pvc', 'claim1', 'seen=yes');
    await kubectl('patch', 'pvc', 'claim1', '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Lost"}}');
    await watcher.waitForOutput(/claim1\s+Lost/);
  } finally {
    await watcher.stop();
  }
});

test('kubectl describe pv works', { skip }, async () => {
  const out = await kubectl('describe', 'pv', 'pv1');
  assert.match(out, /^Name:\s+pv1$/m);
  assert.match(out, /^StorageClass:\s+gold$/m);
  assert.match(out, /^Status:\s+Available$/m);
});

test('kubectl delete waits for objects to go; finalizers hold a PV until removed', { skip }, async () => {
  assert.match(await kubectl('delete', 'sc', 'gold'), /storageclass.storage.k8s.io "gold" deleted/);
  assert.match(await kubectl('delete', 'pv', 'pv1', '--wait=false'), /persistentvolume "pv1" deleted/);
  const held = JSON.parse(await kubectl('get', 'pv', 'pv1', '-o', 'json'));
  assert.ok(held.metadata.deletionTimestamp);
  await kubectl('patch', 'pv', 'pv1', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]');
  const r = await runKubectl(['get', 'pv', 'pv1'], t.server.kubeconfigPath);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /persistentvolumes "pv1" not found/);
});
