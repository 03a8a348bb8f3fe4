/**
 * The real kubectl and a client-go program, both unmodified and speaking protobuf, against the
 * embedded server: kubectl's typed calls (create namespace, create -f, label, delete) send
 * protobuf bodies and ask for protobuf first; the client-go program (tools/k8s/cmd/
 * protobuf-client) is configured for protobuf only and checks every answer was protobuf.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GO_BUILD_ENV, goBuildArgs } from '../../tools/cluster/build.js';
import { kubectlPath, NO_KUBECTL, runKubectl, startTestApiServer, type TestApiServer } from '../helpers/apiserver.js';

const REPO = new URL('../../../', import.meta.url).pathname;
const noKubectl = kubectlPath() === undefined ? NO_KUBECTL : false;
const noGo = spawnSync('go', ['version']).status === 0 ? false : 'go is not on PATH: the client-go program cannot be built';

let t: TestApiServer;
let dir: string;
let clientBinary: string | undefined;
let buildError = '';

/** Builds the client-go program once (its time is not the test's), as cluster:build builds, so its packages come from the Go build cache. */
function buildClient(out: string): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn('go', goBuildArgs('./cmd/protobuf-client', out), { cwd: join(REPO, 'tools', 'k8s'), env: { ...process.env, ...GO_BUILD_ENV }, stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr.on('data', (c: Buffer) => (buildError += c.toString()));
    child.on('close', (code) => {
      if (code === 0) clientBinary = out;
      resolve();
    });
  });
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pb-clients-'));
  t = await startTestApiServer();
  if (!noGo) await buildClient(join(dir, 'protobuf-client'));
});

after(async () => {
  await t?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Runs the client-go program; asynchronously, as the embedded server serves from this process. */
function runClient(args: string[]): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(clientBinary!, ['-kubeconfig', t.server.kubeconfigPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stdout += c.toString()));
    child.on('close', (code) => resolve({ code, stdout }));
  });
}

async function kubectl(...args: string[]): Promise<string> {
  const r = await runKubectl(args, t.server.kubeconfigPath);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed:\n${r.stderr}\n${r.stdout}`);
  return r.stdout;
}

const MANIFESTS = `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: pb-gold}
provisioner: example.com/gold
parameters: {type: gp3}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pb-pv, labels: {tier: gold}}
spec:
  capacity: {storage: 5Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: pb-gold
  hostPath: {path: /tmp/pb-pv}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: pb-claim, namespace: default}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: pb-gold
  resources: {requests: {storage: 1Gi}}
---
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: pb-lease, namespace: default}
spec: {holderIdentity: me, leaseDurationSeconds: 15, renewTime: "2026-01-02T03:04:05.123456Z"}
---
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: pb-event, namespace: default}
eventTime: "2026-01-02T03:04:05.123456Z"
reportingController: example.com/c
reportingInstance: i1
action: Bind
reason: Bound
type: Normal
regarding: {kind: PersistentVolume, name: pb-pv, apiVersion: v1}
`;

test('kubectl create namespace, label and delete work over protobuf', { skip: noKubectl }, async () => {
  assert.equal((await kubectl('create', 'namespace', 'pb-foo')).trim(), 'namespace/pb-foo created');
  assert.equal((await kubectl('label', 'namespace', 'pb-foo', 'team=storage')).trim(), 'namespace/pb-foo labeled');
  assert.equal((await kubectl('get', 'namespace', 'pb-foo', '-o', 'jsonpath={.metadata.labels.team}')).trim(), 'storage');
  assert.match(await kubectl('delete', 'namespace', 'pb-foo', '--wait=false'), /namespace "pb-foo" deleted/);
});

test('kubectl create -f of every kind in a manifest, then get and delete them', { skip: noKubectl }, async () => {
  const file = join(dir, 'objects.yaml');
  await writeFile(file, MANIFESTS);
  const out = await kubectl('create', '-f', file);
  for (const line of ['storageclass.storage.k8s.io/pb-gold created', 'persistentvolume/pb-pv created', 'persistentvolumeclaim/pb-claim created',
    'lease.coordination.k8s.io/pb-lease created', 'event.events.k8s.io/pb-event created']) {
    assert.ok(out.includes(line), `${line} in:\n${out}`);
  }
  assert.equal((await kubectl('get', 'lease', 'pb-lease', '-o', 'jsonpath={.spec.renewTime}')).trim(), '2026-01-02T03:04:05.123456Z');
  assert.equal((await kubectl('get', 'sc', 'pb-gold', '-o', 'jsonpath={.parameters.type}')).trim(), 'gp3');
  await kubectl('delete', '-f', file, '--wait=false');
});

test('a client-go program speaking only protobuf lists, creates, gets, updates, patches, watches and deletes', { skip: noGo }, async () => {
  assert.ok(clientBinary, `the client-go program did not build:\n${buildError}`);
  const r = await runClient(['-name', 'pb-client']);
  assert.equal(r.code, 0, r.stdout);
  assert.match(r.stdout, /ok watch deleted\nok all answers protobuf\n$/);
});

test('the client-go program applies an apply configuration (server-side apply) over protobuf', { skip: noGo }, async () => {
  assert.ok(clientBinary, `the client-go program did not build:\n${buildError}`);
  const r = await runClient(['-name', 'pb-apply', '-apply']);
  assert.equal(r.code, 0, r.stdout);
  assert.match(r.stdout, /ok apply\n/);
});
