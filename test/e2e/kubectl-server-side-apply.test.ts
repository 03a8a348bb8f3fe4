/**
 * kubectl's server-side apply against the embedded API server: create and re-apply, a conflict
 * with another manager and --force-conflicts, migrating a client-side-applied object, and
 * get --show-managed-fields.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectlPath, NO_KUBECTL, runKubectl, startTestApiServer, type TestApiServer } from '../helpers/apiserver.js';

const skip = kubectlPath() === undefined ? NO_KUBECTL : false;

let t: TestApiServer;
let dir: string;

const claim = (name: string, size: string, label: string): string => `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: ${name}
  namespace: default
  labels:
    tier: ${label}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: gold
  resources:
    requests:
      storage: ${size}
`;

async function kubectl(args: string[], want = 0): Promise<{ stdout: string; stderr: string }> {
  const r = await runKubectl(args, t.server.kubeconfigPath);
  assert.equal(r.code, want, `kubectl ${args.join(' ')} exited ${r.code}:\n${r.stderr}\n${r.stdout}`);
  return r;
}

async function applyFile(text: string, ...flags: string[]): Promise<{ stdout: string; stderr: string }> {
  const path = join(dir, `m-${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(path, text);
  return kubectl(['apply', '-f', path, ...flags]);
}

interface Entry { manager: string; operation: string; fieldsV1: Record<string, unknown> }

async function managers(name: string): Promise<Entry[]> {
  const out = await kubectl(['get', 'pvc', name, '-o', 'json', '--show-managed-fields']);
  return (JSON.parse(out.stdout) as { metadata: { managedFields: Entry[] } }).metadata.managedFields;
}

before(async () => {
  if (skip) return;
  t = await startTestApiServer();
  dir = await mkdtemp(join(tmpdir(), 'kubectl-ssa-'));
});

after(async () => {
  if (skip) return;
  await t.stop();
  await rm(dir, { recursive: true, force: true });
});

test('kubectl apply --server-side creates, then re-applies; the claim records kubectl as its Apply manager', { skip }, async () => {
  assert.match((await applyFile(claim('ssa1', '1Gi', 'a'), '--server-side')).stdout, /serverside-applied/);
  assert.match((await applyFile(claim('ssa1', '1Gi', 'b'), '--server-side')).stdout, /serverside-applied/);
  const m = await managers('ssa1');
  assert.deepEqual(m.map((e) => `${e.manager}/${e.operation}`), ['kubectl/Apply']);
  assert.deepEqual(m[0].fieldsV1['f:metadata'], { 'f:labels': { 'f:tier': {} } });
});

test('a second manager changing a field kubectl applied conflicts until --force-conflicts', { skip }, async () => {
  await applyFile(claim('ssa2', '1Gi', 'a'), '--server-side');
  const path = join(dir, 'other.yaml');
  await writeFile(path, claim('ssa2', '1Gi', 'other'));
  const refused = await kubectl(['apply', '-f', path, '--server-side', '--field-manager=other'], 1);
  assert.match(refused.stderr, /conflict with "kubectl": \.metadata\.labels\.tier/);
  await kubectl(['apply', '-f', path, '--server-side', '--field-manager=other', '--force-conflicts']);
  const m = await managers('ssa2');
  assert.deepEqual(m.map((e) => e.manager).sort(), ['kubectl', 'other']);
});

test('kubectl apply --server-side takes over a client-side-applied claim without conflicts', { skip }, async () => {
  await applyFile(claim('ssa3', '1Gi', 'a'));
  assert.deepEqual((await managers('ssa3')).map((e) => `${e.manager}/${e.operation}`), ['kubectl-client-side-apply/Update']);
  await applyFile(claim('ssa3', '1Gi', 'b'), '--server-side');
  const m = await managers('ssa3');
  assert.ok(m.some((e) => e.manager === 'kubectl' && e.operation === 'Apply'), JSON.stringify(m));
  const live = JSON.parse((await kubectl(['get', 'pvc', 'ssa3', '-o', 'json'])).stdout) as { metadata: { labels: Record<string, string>; managedFields?: unknown } };
  assert.equal(live.metadata.labels.tier, 'b');
  assert.equal(live.metadata.managedFields, undefined, 'kubectl get hides managedFields without --show-managed-fields');
});
