/**
 * `kubectl delete pod` against the embedded server, which has no kubelet: a pod bound to a node
 * no kubelet serves is removed once its grace period is over (the pod GC in
 * packages/apiserver/src/controllers/pod-gc.ts), so kubectl's wait returns; a pod whose node has
 * a kubelet heartbeat is left for that kubelet.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectlPath, NO_KUBECTL, runKubectl, startEmbeddedTestApiServer, type EmbeddedTestApiServer } from '../helpers/apiserver.js';

const skip = kubectlPath() ? false : NO_KUBECTL;
let t: EmbeddedTestApiServer;

before(async () => {
  if (!skip) t = await startEmbeddedTestApiServer();
});
after(async () => {
  await t?.stop();
});

const kubectl = (...args: string[]): ReturnType<typeof runKubectl> => runKubectl(args, t.server.kubeconfigPath);

const podYaml = (name: string, nodeName: string, extra: { grace?: number; finalizer?: string } = {}): string => `
apiVersion: v1
kind: Pod
metadata:
  name: ${name}
${extra.finalizer ? `  finalizers: [${extra.finalizer}]\n` : ''}spec:
  nodeName: ${nodeName}
${extra.grace !== undefined ? `  terminationGracePeriodSeconds: ${extra.grace}\n` : ''}  containers:
  - name: c
    image: busybox
`;

async function apply(yaml: string): Promise<void> {
  const r = await runKubectl(['apply', '-f', '-'], t.server.kubeconfigPath, { stdin: yaml });
  assert.equal(r.code, 0, r.stderr);
}

test('kubectl delete pod returns once the pod\'s own grace period is over, on a node that does not exist', { skip, timeout: 60_000 }, async () => {
  await apply(podYaml('own-grace', 'laptop', { grace: 1 }));
  const deleted = await kubectl('delete', 'pod', 'own-grace', '--timeout=30s');
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.match(deleted.stdout, /pod "own-grace" deleted/);
  const gone = await kubectl('get', 'pod', 'own-grace');
  assert.notEqual(gone.code, 0);
  assert.match(gone.stderr, /NotFound|not found/);
});

test('kubectl delete pod --grace-period=2 shortens the pod\'s 30 s and returns', { skip, timeout: 60_000 }, async () => {
  await apply(podYaml('shortened', 'laptop'));
  const deleted = await kubectl('delete', 'pod', 'shortened', '--grace-period=2', '--timeout=20s');
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.notEqual((await kubectl('get', 'pod', 'shortened')).code, 0);
});

test('a pod with a finalizer stays Terminating until kubectl removes the finalizer; kubectl wait --for=delete then returns', { skip, timeout: 60_000 }, async () => {
  await apply(podYaml('held', 'laptop', { grace: 1, finalizer: 'example.com/hold' }));
  const timedOut = await kubectl('delete', 'pod', 'held', '--timeout=3s');
  assert.notEqual(timedOut.code, 0, 'the finalizer holds the pod past its grace period');
  const table = await kubectl('get', 'pod', 'held');
  assert.match(table.stdout, /held\s+0\/1\s+Terminating/);
  const patched = await kubectl('patch', 'pod', 'held', '--type=merge', '-p', '{"metadata":{"finalizers":null}}');
  assert.equal(patched.code, 0, patched.stderr);
  const waited = await kubectl('wait', '--for=delete', 'pod/held', '--timeout=30s');
  assert.equal(waited.code, 0, waited.stderr);
});

test('a pod on a node whose kubelet renews its Lease stays Terminating: kubectl delete times out and leaves it to the kubelet', { skip, timeout: 60_000 }, async () => {
  await apply('apiVersion: v1\nkind: Node\nmetadata:\n  name: with-kubelet\n');
  const renewTime = new Date().toISOString().replace(/Z$/, '000Z');
  await apply(`apiVersion: coordination.k8s.io/v1
kind: Lease
metadata:
  name: with-kubelet
  namespace: kube-node-lease
spec:
  holderIdentity: with-kubelet
  leaseDurationSeconds: 40
  renewTime: "${renewTime}"
`);
  await apply(podYaml('served', 'with-kubelet', { grace: 1 }));
  const timedOut = await kubectl('delete', 'pod', 'served', '--timeout=4s');
  assert.notEqual(timedOut.code, 0, `the kubelet, not the server, finishes it:\n${timedOut.stdout}`);
  assert.match((await kubectl('get', 'pod', 'served')).stdout, /served\s+0\/1\s+Terminating/);
  // The kubelet's own last step: a delete with no grace period.
  const forced = await kubectl('delete', 'pod', 'served', '--grace-period=0', '--force', '--timeout=20s');
  assert.equal(forced.code, 0, forced.stderr);
});
