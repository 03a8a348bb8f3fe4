/**
 * kubectl against Secrets and CSINodes on the embedded server (and on the real kube-apiserver
 * under `npm run test:cluster`): `create secret generic`, `get -o yaml`, the printed columns,
 * api-resources, explain, apply and patch of a CSINode.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kubectlPath, NO_KUBECTL } from '../helpers/apiserver.js';
import { kubectlSession } from '../helpers/kubectl-session.js';

const skip = kubectlPath() === undefined ? NO_KUBECTL : false;
const k = kubectlSession(skip);

const CSINODE = (nodeID: string, count: number): string => `apiVersion: storage.k8s.io/v1
kind: CSINode
metadata:
  name: kubectl-node
spec:
  drivers:
  - name: hostpath.csi.k8s.io
    nodeID: ${nodeID}
    topologyKeys: [topology.hostpath.csi/node]
    allocatable:
      count: ${count}
`;

test('kubectl create secret generic --from-literal stores base64 data that get -o yaml shows', { skip }, async () => {
  await k.succeeds('create', 'secret', 'generic', 'literal', '--from-literal=k=v', '--from-literal=user=admin');
  const yaml = await k.succeeds('get', 'secret', 'literal', '-o', 'yaml');
  assert.match(yaml, /^ {2}k: dg==$/m);
  assert.match(yaml, /^ {2}user: YWRtaW4=$/m);
  assert.match(yaml, /^type: Opaque$/m);
  assert.doesNotMatch(yaml, /stringData/);
  const table = await k.succeeds('get', 'secret', 'literal');
  assert.match(table, /^NAME\s+TYPE\s+DATA\s+AGE$/m);
  assert.match(table, /^literal\s+Opaque\s+2\s+\S+$/m);
});

test('kubectl apply of a Secret with stringData, then a refused change of its type', { skip }, async () => {
  const file = await k.manifest('secret.yaml', 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: applied\nstringData:\n  token: abc\n');
  await k.succeeds('apply', '-f', file);
  assert.equal(await k.succeeds('get', 'secret', 'applied', '-o', 'jsonpath={.data.token}'), 'YWJj');
  const r = await k.run(['patch', 'secret', 'applied', '--type=merge', '-p', '{"type":"kubernetes.io/tls"}']);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /type: Invalid value: "kubernetes\.io\/tls": field is immutable/);
});

test('kubectl api-resources and explain know secrets and csinodes', { skip }, async () => {
  const resources = await k.succeeds('api-resources', '--no-headers');
  assert.match(resources, /^secrets\s+v1\s+true\s+Secret$/m);
  assert.match(resources, /^csinodes\s+storage\.k8s\.io\/v1\s+false\s+CSINode$/m);
  const explained = await k.succeeds('explain', 'csinode.spec.drivers.topologyKeys');
  assert.match(explained, /topologyKeys/);
  assert.match(await k.succeeds('explain', 'secret.stringData'), /stringData/);
});

test('kubectl applies a CSINode, prints its drivers, patches allocatable and is refused a new nodeID', { skip }, async () => {
  await k.succeeds('apply', '-f', await k.manifest('csinode.yaml', CSINODE('node-1', 5)));
  assert.match(await k.succeeds('get', 'csinodes'), /^kubectl-node\s+1\s+\S+$/m);
  await k.succeeds('apply', '-f', await k.manifest('csinode-count.yaml', CSINODE('node-1', 7)));
  assert.equal(await k.succeeds('get', 'csinode', 'kubectl-node', '-o', 'jsonpath={.spec.drivers[0].allocatable.count}'), '7');
  const r = await k.run(['apply', '-f', await k.manifest('csinode-id.yaml', CSINODE('node-2', 7))]);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /spec\.drivers: Invalid value: .*"NodeID":"node-2".*: field is immutable/);
});
