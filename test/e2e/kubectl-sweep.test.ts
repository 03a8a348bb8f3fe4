/**
 * The kubectl sweep: the commands a user types, run with the real kubectl against the embedded
 * server started as `npm start` starts it (`up` with a data dir: server, controller, SQLite),
 * each checked for its exit code and the lines that matter. Cases that need work on other
 * branches (protobuf bodies, OpenAPI, server-side apply) are marked todo with the branch.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { kubectlPath, NO_KUBECTL, runKubectl, startKubectl, type KubectlResult } from '../helpers/apiserver.js';
import { startUp, type UpProcess } from '../helpers/up-process.js';
import { waitFor } from '../helpers/wait.js';
import * as m from './kubectl-sweep-manifests.js';

const skip = kubectlPath() === undefined ? NO_KUBECTL : false;
let up: UpProcess;

before(async () => {
  if (skip) return;
  up = await startUp();
  const files: Record<string, string> = {
    'sc.yaml': m.STORAGE_CLASS, 'pv.yaml': m.VOLUME, 'claim.yaml': m.claim('1Gi'), 'claim-3gi.yaml': m.claim('3Gi'),
    'dynamic.yaml': m.DYNAMIC_CLAIM, 'ns.yaml': m.NAMESPACE, 'node.yaml': m.NODE, 'pod.yaml': m.POD, 'svc.yaml': m.SERVICE,
    'edit.mjs': m.EDITOR_SCRIPT,
  };
  for (const [name, text] of Object.entries(files)) await writeFile(join(up.dataDir, name), text);
});

after(async () => {
  await up?.stop();
});

const file = (name: string): string => join(up.dataDir, name);

async function kubectl(args: string[], env: Record<string, string> = {}): Promise<KubectlResult> {
  return await runKubectl(args, up.kubeconfigPath, { env });
}

/** Runs kubectl and checks its exit code and that every pattern matches its stdout. */
async function expectOk(args: string[], ...patterns: RegExp[]): Promise<string> {
  const r = await kubectl(args);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')} exited ${r.code}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  for (const p of patterns) assert.match(r.stdout, p, `kubectl ${args.join(' ')}`);
  return r.stdout;
}

async function expectFailure(args: string[], code: number, stderr: RegExp): Promise<void> {
  const r = await kubectl(args);
  assert.equal(r.code, code, `kubectl ${args.join(' ')}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`);
  assert.match(r.stderr, stderr);
}

const opts = { skip, timeout: 120_000 };

test('kubectl version shows the server version, without a skew warning for a kubectl within one minor version', opts, async () => {
  const r = await kubectl(['version']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Server Version: v1\.37\.2/);
  const clientMinor = Number(/Client Version: v1\.(\d+)\./.exec(r.stdout)?.[1]);
  if (Math.abs(clientMinor - 37) <= 1) assert.doesNotMatch(r.stderr, /exceeds the supported minor version skew/);
});

test('kubectl api-versions and api-resources list every group and resource served', opts, async () => {
  await expectOk(['api-versions'], /^v1$/m, /^storage\.k8s\.io\/v1$/m, /^authorization\.k8s\.io\/v1$/m, /^authentication\.k8s\.io\/v1$/m);
  await expectOk(['api-resources'], /^persistentvolumes\s+pv\s+v1\s+false\s+PersistentVolume$/m,
    /^services\s+svc\s+v1\s+true\s+Service$/m, /^selfsubjectaccessreviews\s+authorization\.k8s\.io\/v1\s+false\s+SelfSubjectAccessReview$/m);
});

test('kubectl cluster-info names the control plane', opts, async () => {
  await expectOk(['cluster-info'], /Kubernetes control plane is running at https:\/\/127\.0\.0\.1:\d+/);
});

test('kubectl auth can-i, can-i --list and whoami answer for the token user', opts, async () => {
  await expectOk(['auth', 'can-i', 'create', 'pv'], /^yes$/m);
  await expectOk(['auth', 'can-i', 'delete', 'pvc', '-n', 'kube-system'], /^yes$/m);
  await expectOk(['auth', 'can-i', '--list'], /^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]$/m);
  await expectOk(['auth', 'whoami'], /^Username\s+pv-controller-admin$/m, /system:masters/);
});

test('kubectl get --raw serves /metrics, /readyz?verbose and /livez', opts, async () => {
  await expectOk(['get', '--raw', '/metrics'], /^# TYPE apiserver_request_total counter$/m, /^apiserver_request_total\{verb="GET"/m);
  await expectOk(['get', '--raw', '/readyz?verbose'], /^\[\+\]ping ok$/m, /^readyz check passed$/m);
  await expectOk(['get', '--raw', '/livez'], /^ok$/);
});

test('kubectl apply -f creates each kind, and a second apply leaves them unchanged', opts, async () => {
  for (const [name, what] of [['ns.yaml', 'namespace/sweep'], ['sc.yaml', 'storageclass.storage.k8s.io/sweep-manual'],
    ['pv.yaml', 'persistentvolume/sweep-pv'], ['claim.yaml', 'persistentvolumeclaim/sweep-static'],
    ['dynamic.yaml', 'persistentvolumeclaim/sweep-dynamic'], ['node.yaml', 'node/sweep-node'], ['pod.yaml', 'pod/sweep-pod'],
    ['svc.yaml', 'service/sweep-svc']] as const) {
    await expectOk(['apply', '-f', file(name)], new RegExp(`^${what.replace(/\./g, '\\.')} created$`, 'm'));
  }
  await expectOk(['apply', '-f', file('pv.yaml')], /^persistentvolume\/sweep-pv unchanged$/m);
});

test('kubectl wait --for=jsonpath and --for=condition see the claims bound', opts, async () => {
  await expectOk(['wait', '-n', 'sweep', '--for=jsonpath={.status.phase}=Bound', 'pvc/sweep-static', 'pvc/sweep-dynamic', '--timeout=60s'],
    /persistentvolumeclaim\/sweep-static condition met/);
  await expectOk(['wait', '--for=jsonpath={.status.phase}=Bound', 'pv/sweep-pv', '--timeout=30s'], /condition met/);
  await expectFailure(['wait', '-n', 'sweep', '--for=condition=Resizing', 'pvc/sweep-static', '--timeout=1s'], 1, /timed out waiting for the condition/);
});

test('kubectl get prints wide, yaml, jsonpath and custom-columns output', opts, async () => {
  await expectOk(['get', 'pv,pvc', '-A', '-o', 'wide'], /^persistentvolume\/sweep-pv\s+2Gi\s+RWO\s+Retain\s+Bound\s+sweep\/sweep-static\s+sweep-manual\s+.*Filesystem$/m);
  await expectOk(['get', 'pvc', 'sweep-static', '-n', 'sweep', '-o', 'yaml'], /^ {2}volumeName: sweep-pv$/m, /^ {2}phase: Bound$/m);
  await expectOk(['get', 'pvc', '-n', 'sweep', 'sweep-static', '-o', 'jsonpath={.spec.volumeName}'], /^sweep-pv$/);
  await expectOk(['get', 'pvc', '-n', 'sweep', '-o', 'custom-columns=NAME:.metadata.name,CLASS:.spec.storageClassName'], /^sweep-static\s+sweep-manual$/m);
  await expectOk(['get', 'svc', '-n', 'sweep', '-o', 'wide'], /^sweep-svc\s+ClusterIP\s+10\.0\.0\.\d+\s+<none>\s+80\/TCP\s+\S+\s+app=sweep$/m);
  await expectOk(['get', 'nodes'], /^sweep-node\s+Unknown/m);
  await expectOk(['get', 'pods', '-n', 'sweep'], /^sweep-pod\s+0\/1\s+Pending/m);
});

test('kubectl get --field-selector uses the labels each kind supports and refuses the rest as kube-apiserver', opts, async () => {
  await expectOk(['get', 'pods', '-n', 'sweep', '--field-selector', 'status.phase=Pending'], /^sweep-pod /m);
  await expectOk(['get', 'ns', '--field-selector', 'status.phase=Active,metadata.name=sweep'], /^sweep\s+Active/m);
  await expectOk(['get', 'svc', '-A', '--field-selector', 'spec.type=ClusterIP'], /^sweep\s+sweep-svc /m);
  await expectFailure(['get', 'pvc', '-n', 'sweep', '--field-selector', 'status.phase=Bound'], 1,
    /"status\.phase" is not a known field selector: only "metadata\.name", "metadata\.namespace"/);
  await expectFailure(['get', 'nodes', '--field-selector', 'metadata.namespace=x'], 1, /field label not supported: metadata\.namespace/);
});

test('kubectl describe shows pv, pvc, sc, node, namespace, pod and service', opts, async () => {
  await expectOk(['describe', 'pv', 'sweep-pv'], /^Name:\s+sweep-pv$/m, /^Claim:\s+sweep\/sweep-static$/m, /^Status:\s+Bound$/m);
  await expectOk(['describe', 'pvc', '-n', 'sweep', 'sweep-dynamic'], /^Status:\s+Bound$/m, /ProvisioningSucceeded/);
  await expectOk(['describe', 'sc', 'sweep-manual'], /^Provisioner:\s+kubernetes\.io\/no-provisioner$/m);
  await expectOk(['describe', 'node', 'sweep-node'], /^Name:\s+sweep-node$/m);
  await expectOk(['describe', 'ns', 'sweep'], /^Status:\s+Active$/m);
  await expectOk(['describe', 'pod', '-n', 'sweep', 'sweep-pod'], /^Name:\s+sweep-pod$/m, /ClaimName:\s+sweep-dynamic/);
  await expectOk(['describe', 'svc', '-n', 'sweep', 'sweep-svc'], /^IP:\s+10\.0\.0\.\d+$/m, /^TargetPort:\s+8080\/TCP$/m);
});

test('kubectl events lists the controller\'s events', opts, async () => {
  await expectOk(['events', '-n', 'sweep'], /ProvisioningSucceeded\s+PersistentVolumeClaim\/sweep-dynamic/);
  await expectOk(['get', 'events', '-n', 'sweep', '--field-selector', 'involvedObject.name=sweep-dynamic,reason=ProvisioningSucceeded'], /ProvisioningSucceeded/);
});

test('kubectl label and annotate, with --overwrite, on every kind', opts, async () => {
  for (const target of [['pv', 'sweep-pv'], ['pvc', 'sweep-static', '-n', 'sweep'], ['sc', 'sweep-manual'], ['ns', 'sweep'],
    ['node', 'sweep-node'], ['pod', 'sweep-pod', '-n', 'sweep'], ['svc', 'sweep-svc', '-n', 'sweep']]) {
    await expectOk(['label', ...target, 'sweep=one'], / labeled$/m);
    await expectFailure(['label', ...target, 'sweep=two'], 1, /already has a value \(one\), and --overwrite is false/);
    await expectOk(['label', ...target, 'sweep=two', '--overwrite'], / labeled$/m);
    await expectOk(['annotate', ...target, 'sweep=one', '--overwrite'], / annotated$/m);
    await expectOk(['get', ...target, '-o', 'jsonpath={.metadata.labels.sweep}/{.metadata.annotations.sweep}'], /^two\/one$/);
  }
});

test('kubectl patch with merge, json and strategic patches on every kind', opts, async () => {
  await expectOk(['patch', 'pv', 'sweep-pv', '--type', 'merge', '-p', '{"spec":{"mountOptions":["ro"]}}'], /patched$/m);
  await expectOk(['patch', 'pvc', 'sweep-static', '-n', 'sweep', '-p', '{"metadata":{"labels":{"patched":"strategic"}}}'], /patched$/m);
  await expectOk(['patch', 'sc', 'sweep-manual', '--type', 'json', '-p', '[{"op":"add","path":"/allowVolumeExpansion","value":true}]'], /patched$/m);
  await expectOk(['patch', 'ns', 'sweep', '-p', '{"metadata":{"annotations":{"patched":"yes"}}}'], /patched$/m);
  await expectOk(['patch', 'node', 'sweep-node', '-p', '{"spec":{"unschedulable":true}}'], /patched$/m);
  await expectOk(['patch', 'pod', 'sweep-pod', '-n', 'sweep', '-p', '{"spec":{"activeDeadlineSeconds":600}}'], /patched$/m);
  await expectOk(['patch', 'svc', 'sweep-svc', '-n', 'sweep', '-p', '{"spec":{"ports":[{"name":"http","port":80,"targetPort":9090}]}}'], /patched$/m);
  await expectOk(['get', 'svc', 'sweep-svc', '-n', 'sweep', '-o', 'jsonpath={.spec.ports[0].targetPort}'], /^9090$/);
  await expectOk(['patch', 'pv', 'sweep-pv', '--type', 'merge', '-p', '{"spec":{"mountOptions":["ro"]}}'], /patched \(no change\)$/m);
});

test('kubectl edit with an EDITOR script saves the edited object', opts, async () => {
  const r = await kubectl(['edit', 'sc', 'sweep-manual'], { EDITOR: `${process.execPath} ${file('edit.mjs')}` });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /storageclass\.storage\.k8s\.io\/sweep-manual edited/);
  await expectOk(['get', 'sc', 'sweep-manual', '-o', 'jsonpath={.metadata.labels.edited}'], /^yes$/);
});

test('kubectl diff shows a change and exits 1, and nothing for an unchanged object', opts, async () => {
  const changed = await kubectl(['diff', '-f', file('claim-3gi.yaml')]);
  assert.equal(changed.code, 1, changed.stderr);
  assert.match(changed.stdout, /^-\s+storage: 1Gi$/m);
  assert.match(changed.stdout, /^\+\s+storage: 3Gi$/m);
  const same = await kubectl(['diff', '-f', file('pv.yaml')]);
  assert.equal(same.code, 0, `${same.stdout}\n${same.stderr}`);
});

test('kubectl get -w prints the object, then its change', opts, async () => {
  const watch = await startKubectl(['get', 'pvc', '-n', 'sweep', 'sweep-static', '-w', '-o', 'custom-columns=NAME:.metadata.name,W:.metadata.labels.watched'],
    up.kubeconfigPath);
  try {
    await watch.waitForOutput(/^sweep-static\s+<none>$/m);
    await expectOk(['label', 'pvc', '-n', 'sweep', 'sweep-static', 'watched=yes'], /labeled/);
    await watch.waitForOutput(/^sweep-static\s+yes$/m);
  } finally {
    await watch.stop();
  }
});

test('kubectl delete --wait and wait --for=delete end when the objects are gone', opts, async () => {
  await expectOk(['delete', 'svc', '-n', 'sweep', 'sweep-svc', '--wait'], /^service "sweep-svc" deleted/m);
  await expectOk(['delete', 'pod', '-n', 'sweep', 'sweep-pod', '--wait=false'], /deleted/);
  await expectOk(['wait', '--for=delete', '-n', 'sweep', 'pod/sweep-pod', '--timeout=30s'], /^/);
  await expectOk(['delete', 'pvc', '-n', 'sweep', 'sweep-dynamic', '--wait', '--timeout=60s'], /deleted/);
  await waitFor(async () => (await kubectl(['get', 'pv', '-o', 'name'])).stdout.trim() === 'persistentvolume/sweep-pv', 'the dynamic PV deleted');
  await expectFailure(['get', 'pvc', '-n', 'sweep', 'sweep-dynamic'], 1, /persistentvolumeclaims "sweep-dynamic" not found/);
});

test('kubectl create namespace (a protobuf body)', { ...opts }, async () => {
  await expectOk(['create', 'namespace', 'sweep-typed'], /^namespace\/sweep-typed created$/m);
  await expectOk(['create', 'service', 'clusterip', 'sweep-typed', '-n', 'sweep', '--tcp=80:8080'], /^service\/sweep-typed created$/m);
});

test('kubectl explain pv and pvc.spec.resources', { ...opts }, async () => {
  await expectOk(['explain', 'pv'], /^KIND:\s+PersistentVolume$/m);
  await expectOk(['explain', 'pvc.spec.resources'], /^FIELD:\s+resources/m);
});

test('kubectl apply --server-side and get --show-managed-fields', { ...opts }, async () => {
  await expectOk(['apply', '--server-side', '-f', file('claim.yaml')], /serverside-applied/);
  await expectOk(['get', 'pvc', '-n', 'sweep', 'sweep-static', '-o', 'yaml', '--show-managed-fields'], /manager: kubectl/);
});

test('kubectl cluster-info dump lists nodes, workloads and events of every namespace', opts, async () => {
  await expectOk(['cluster-info', 'dump'], /"kind": "NodeList"/);
});
