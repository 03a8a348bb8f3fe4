/**
 * Protobuf against the real kube-apiserver: the committed descriptor is what the generator
 * derives from the Go types today, kube-apiserver's protobuf answers are byte for byte what our
 * encoder makes of its JSON answers (and decode back to them), and the client-go program passes
 * there too, server-side apply step included.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT } from '../../tools/cluster/binaries.js';
import { GO_BUILD_ENV, GO_BUILD_FLAGS, goBuildArgs } from '../../tools/cluster/build.js';
import { decodeObject, encodeObject } from '@pv-controller/apiserver/protobuf/envelope.js';
import { startTestApiServer, type TestApiServer } from '../helpers/apiserver.js';
import { realControlPlaneSkip } from '../helpers/control-plane.js';
import { api } from '../../packages/apiserver/test/http-client.js';

const noGo = spawnSync('go', ['version']).status === 0 ? false : 'go is not on PATH';
const skip = realControlPlaneSkip();
const GO_MODULE = join(REPO_ROOT, 'tools', 'k8s');

function run(cmd: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: GO_MODULE, env: { ...process.env, ...GO_BUILD_ENV }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('packages/apiserver/src/protobuf/schema.json is what tools/k8s/cmd/protobuf-schema generates', { skip: noGo }, async () => {
  const generated = await run('go', ['run', ...GO_BUILD_FLAGS, './cmd/protobuf-schema']);
  assert.equal(generated.code, 0, generated.stderr);
  const committed = await readFile(join(REPO_ROOT, 'packages', 'apiserver', 'src', 'protobuf', 'schema.json'), 'utf8');
  assert.ok(generated.stdout === committed, 'schema.json is stale: regenerate it (see its comment)');
});

let t: TestApiServer;
const ID = `pbx-${process.pid}`;

const OBJECTS: Array<{ path: string; body: Record<string, unknown> }> = [
  { path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ID, labels: { '10': 'a', '9': 'b', z: 'c' } } } },
  {
    path: '/api/v1/persistentvolumes',
    body: {
      apiVersion: 'v1', kind: 'PersistentVolume',
      metadata: { name: ID, annotations: { note: 'ü' }, finalizers: ['example.com/f'] },
      spec: {
        capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce', 'ReadOnlyMany'], persistentVolumeReclaimPolicy: 'Retain', storageClassName: 'fast',
        mountOptions: ['ro'], claimRef: { namespace: ID, name: 'c' },
        csi: { driver: 'example.csi', volumeHandle: 'h', volumeAttributes: { b: '1', a: '2' } },
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'In', values: ['a', 'b'] }] }] } },
      },
    },
  },
  {
    path: `/api/v1/namespaces/${ID}/persistentvolumeclaims`,
    body: {
      apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1500m' } }, selector: { matchLabels: { a: '1' } }, volumeMode: 'Block' },
    },
  },
  {
    path: '/apis/storage.k8s.io/v1/storageclasses',
    body: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: ID }, provisioner: 'example.com/p', parameters: { type: 'gp3' }, allowVolumeExpansion: true },
  },
  {
    path: `/apis/coordination.k8s.io/v1/namespaces/${ID}/leases`,
    body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l' }, spec: { holderIdentity: 'me', leaseDurationSeconds: 15, renewTime: '2026-01-02T03:04:05.123456Z' } },
  },
  {
    path: `/apis/events.k8s.io/v1/namespaces/${ID}/events`,
    body: {
      apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e' }, eventTime: '2026-01-02T03:04:05.123456Z', reportingController: 'example.com/c',
      reportingInstance: 'i', action: 'Bind', reason: 'Bound', type: 'Normal', regarding: { kind: 'PersistentVolumeClaim', namespace: ID, name: 'c', apiVersion: 'v1' },
    },
  },
];

/** JSON compared across encoders: keys sorted, nulls (Go's nil pointers without omitempty) dropped. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).filter(([, y]) => y !== null).sort(([a], [b]) => (a < b ? -1 : 1)))
      : x);
}

before(async () => {
  if (skip) return;
  t = await startTestApiServer();
  for (const o of OBJECTS) {
    const r = await api(t.server, 'POST', o.path, { body: o.body });
    assert.equal(r.status, 201, `${o.path}: ${r.text}`);
  }
});

after(async () => {
  if (skip) return;
  await api(t.server, 'DELETE', `/api/v1/persistentvolumes/${ID}`);
  await api(t.server, 'PATCH', `/api/v1/persistentvolumes/${ID}`, { rawBody: '{"metadata":{"finalizers":null}}', headers: { 'Content-Type': 'application/merge-patch+json' } });
  await api(t.server, 'DELETE', `/apis/storage.k8s.io/v1/storageclasses/${ID}`);
  await api(t.server, 'DELETE', `/api/v1/namespaces/${ID}`);
  await t.stop();
});

/**
 * The JSON and the protobuf answer for one path, taken until nothing changed between them: the
 * real control plane's kube-controller-manager may write the claims of this namespace at any time
 * (its binder annotates them), and a list read before such a write is not the list read after.
 */
async function sameVersionAnswers(path: string): Promise<{ json: Awaited<ReturnType<typeof api>>; protobuf: Awaited<ReturnType<typeof api>> }> {
  const versionOf = (r: Awaited<ReturnType<typeof api>>): unknown => (r.json as { metadata?: { resourceVersion?: string } } | undefined)?.metadata?.resourceVersion;
  for (let attempt = 1; ; attempt++) {
    const json = await api(t.server, 'GET', path);
    const protobuf = await api(t.server, 'GET', path, { headers: { Accept: 'application/vnd.kubernetes.protobuf' } });
    const again = await api(t.server, 'GET', path);
    if (versionOf(json) === versionOf(again) || attempt === 5) return { json, protobuf };
  }
}

test("kube-apiserver's protobuf answers are our encoding of its JSON answers, and decode back to them", { skip }, async () => {
  const paths = OBJECTS.map((o) => `${o.path}/${o.body.kind === 'Namespace' || o.body.kind === 'PersistentVolume' || o.body.kind === 'StorageClass' ? ID : (o.body.metadata as { name: string }).name}`);
  paths.push(`/api/v1/namespaces/${ID}/persistentvolumeclaims`, '/api/v1/persistentvolumes/pbx-missing');
  for (const path of paths) {
    const { json, protobuf } = await sameVersionAnswers(path);
    assert.equal(protobuf.headers['content-type'], 'application/vnd.kubernetes.protobuf', path);
    assert.ok(encodeObject(json.json).equals(protobuf.bytes), `${path}: our encoding differs from kube-apiserver's`);
    const back = decodeObject(protobuf.bytes, { apiVersion: json.json.apiVersion, kind: json.json.kind }).value;
    assert.equal(canonical(back), canonical(json.json), path);
  }
});

test('the client-go protobuf program passes against kube-apiserver, server-side apply included', { skip: skip || noGo, timeout: 300_000 }, async () => {
  const built = await run('go', goBuildArgs('./cmd/protobuf-client', join(t.dataDir, 'protobuf-client')));
  assert.equal(built.code, 0, built.stderr);
  const r = await run(join(t.dataDir, 'protobuf-client'), ['-kubeconfig', t.server.kubeconfigPath, '-name', `${ID}-client`, '-apply']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /ok apply\n[^]*ok all answers protobuf\n$/);
});
