/**
 * What a user sees and does with the real kubectl (docs/lifecycle.md): the class's TTL on the PV,
 * the deadline and its event in `kubectl describe pv`, and `kubectl annotate … reuse=true`
 * making the Released volume Available again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { kubectlPath, NO_KUBECTL, runKubectl } from '../helpers/apiserver.js';
import { startTestCluster } from '../helpers/cluster.js';
import { reclaimModules, waitFor } from './reclaim-helpers.js';

const skip = kubectlPath() === undefined ? NO_KUBECTL : false;

const MANIFEST = `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: keep-a-day
  annotations:
    pv-controller.io/released-ttl: 24h
provisioner: kubernetes.io/host-path
reclaimPolicy: Retain
volumeBindingMode: Immediate
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
  namespace: default
spec:
  storageClassName: keep-a-day
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
`;

test('kubectl: describe pv shows the TTL, the deadline and its event; annotate reuse=true makes the volume Available', { skip }, async () => {
  const cluster = await startTestCluster({ modules: reclaimModules(), controllerOptions: { syncPeriodMs: 300 } });
  const kubectl = async (...args: string[]): Promise<string> => {
    const r = await runKubectl(args, cluster.api.server.kubeconfigPath);
    assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  try {
    const file = join(cluster.dataDir, 'lifecycle.yaml');
    await writeFile(file, MANIFEST);
    await kubectl('apply', '-f', file);
    const pv = await waitFor(async () => (await kubectl('get', 'pvc', 'data', '-o', 'jsonpath={.spec.volumeName}')) || undefined, 'the claim bound');
    await kubectl('delete', 'pvc', 'data');
    const described = await waitFor(async () => {
      const text = await kubectl('describe', 'pv', pv);
      return /ReleasedDeadlineSet/.test(text) ? text : undefined;
    }, 'the deadline event in describe');
    assert.match(described, /pv-controller\.io\/released-ttl: 24h/);
    assert.match(described, /pv-controller\.io\/released-deadline: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/);
    assert.match(described, /Status:\s+Released/);
    assert.match(described, /Released volume kept until \S+ \(pv-controller\.io\/released-ttl 24h\), then deleted/);
    await kubectl('annotate', 'pv', pv, 'pv-controller.io/reuse=true');
    await waitFor(async () => (await kubectl('get', 'pv', pv, '-o', 'jsonpath={.status.phase}')) === 'Available', 'the PV Available');
    assert.equal(await kubectl('get', 'pv', pv, '-o', 'jsonpath={.metadata.annotations.pv-controller\\.io/released-deadline}'), '');
  } finally {
    await cluster.stop();
  }
});
