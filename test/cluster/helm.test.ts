/**
 * The Helm chart against the real kube-apiserver: `helm install` with every switch on is
 * accepted object by object (the Prometheus Operator's kinds through minimal CRDs made here),
 * and no pod runs (there is no kubelet). Then the controller runs as a local process with the
 * exact arguments of the chart's Deployment and a TokenRequest token of the chart's
 * ServiceAccount, and binds a claim of the chart's host-path StorageClass — so the chart's RBAC
 * is enough for the controller (test:cluster's audit check fails the run on any denied request).
 * The node-agent values the same way: every object accepted, and the agent, run with the
 * DaemonSet's arguments and its own ServiceAccount's token (in a private mount namespace, for
 * its sized volumes), provisions and deletes a claim with no request of it denied.
 */
import assert from 'node:assert/strict';
import { cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { CoordinationV1Api, CoreV1Api, KubernetesObjectApi, RbacAuthorizationV1Api, type KubernetesObject, type V1PersistentVolume, type V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { parseAllDocuments, stringify } from 'yaml';
import { writeKubeconfig } from '@pv-controller/apiserver/http/kubeconfig.js';
import { ANN_SELECTED_NODE, LABEL_HOSTNAME } from '@pv-controller/kube/annotations.js';
import type { PersistentVolume, PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { imageSupportProblem } from '../../src/plugins/host-path/image-volume.js';
import { grantedUses, summariseAudit, useKey } from '../../tools/cluster/audit.js';
import { findHelm } from '../../tools/cluster/binaries.js';
import type { ControlPlane } from '../../tools/cluster/control-plane.js';
import { startProcess } from '../../tools/cluster/processes.js';
import { CHART_DIR, NODE_AGENT_VALUES } from '../../tools/chart/manifests.js';
import { realControlPlaneSkip, startTestControlPlane } from '../helpers/control-plane.js';
import { mountNamespaceSkipReason } from '../helpers/mount-namespace.js';
import { waitFor } from '../helpers/wait.js';
import { ClusterApi, startNodeAgent } from './multinode/nodes.js';
import { runHelm } from './nodes-chart/release.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const helm = findHelm();
const skip = realControlPlaneSkip() || (helm ? false : 'helm is neither on PATH nor built (`npm run cluster:build`)');
const NAMESPACE = 'kube-system';

type Plane = ControlPlane & { removeDir(): Promise<void> };

async function withPlane(body: (plane: Plane, work: string) => Promise<void>, apiServerArgs: string[] = []): Promise<void> {
  const plane = await startTestControlPlane({ controllerServiceAccount: false, apiServerArgs });
  const work = await mkdtemp(join(tmpdir(), 'pv-helm-'));
  try {
    await body(plane, work);
  } finally {
    await plane.stop();
    await plane.removeDir();
    await rm(work, { recursive: true, force: true });
  }
}

/** A namespaced CRD of the Prometheus Operator's group that accepts any spec. */
function operatorCrd(kind: string, plural: string): KubernetesObject {
  const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.monitoring.coreos.com` },
    spec: {
      group: 'monitoring.coreos.com',
      scope: 'Namespaced',
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema }],
    },
  } as KubernetesObject;
}

async function createCrds(plane: Plane): Promise<void> {
  const client = KubernetesObjectApi.makeApiClient(plane.admin());
  for (const crd of [operatorCrd('ServiceMonitor', 'servicemonitors'), operatorCrd('PrometheusRule', 'prometheusrules')]) await client.create(crd);
  await waitFor(async () => {
    const list = await client.list('monitoring.coreos.com/v1', 'PrometheusRule', NAMESPACE).catch(() => undefined);
    const monitors = await client.list('monitoring.coreos.com/v1', 'ServiceMonitor', NAMESPACE).catch(() => undefined);
    return list !== undefined && monitors !== undefined;
  }, 'the CRDs to be served', { timeoutMs: 30_000, intervalMs: 200 });
}

function objectsOf(manifest: string): KubernetesObject[] {
  return parseAllDocuments(manifest)
    .map((d) => d.toJS() as KubernetesObject)
    .filter((o) => o && o.kind);
}

test('helm install with every switch on: kube-apiserver accepts every object of the chart, and no pod runs', { skip, timeout: 180_000 }, async () => {
  await withPlane(async (plane, work) => {
    await createCrds(plane);
    const values = join(CHART_DIR, 'ci', 'full-values.yaml');
    await runHelm(work, plane.kubeconfigPath, ['install', 'pv-controller', CHART_DIR, '--namespace', NAMESPACE, '-f', values]);
    const objects = await assertReleaseStored(plane, work);
    assert.equal(objects.length, 14, objects.map((o) => `${o.kind}/${o.metadata?.name}`).join(', '));
    const pods = await plane.admin().makeApiClient(CoreV1Api).listNamespacedPod({ namespace: NAMESPACE, labelSelector: 'app.kubernetes.io/name=pv-controller' });
    assert.equal(pods.items.length, 0, 'no kube-controller-manager makes the pods and no kubelet would run them');
    await assertTestHookAccepted(plane, work);
  });
});

/**
 * `helm test`'s pod, created as helm test would create it: kube-apiserver accepts it (no kubelet
 * runs it here; what it checks is test/chart/helm-test-check.test.ts's).
 */
async function assertTestHookAccepted(plane: Plane, work: string): Promise<void> {
  const hooks = objectsOf(await runHelm(work, plane.kubeconfigPath, ['get', 'hooks', 'pv-controller', '--namespace', NAMESPACE]));
  assert.deepEqual(hooks.map((o) => `${o.kind}/${o.metadata?.name}`), ['Pod/pv-controller-test']);
  const client = KubernetesObjectApi.makeApiClient(plane.admin());
  const created = await client.create(hooks[0]);
  assert.equal(created.metadata?.annotations?.['helm.sh/hook'], 'test');
  await client.delete(created);
}

/** Every object of the release, each read back from kube-apiserver as part of it; the release is deployed. */
async function assertReleaseStored(plane: Plane, work: string): Promise<KubernetesObject[]> {
  const manifest = await runHelm(work, plane.kubeconfigPath, ['get', 'manifest', 'pv-controller', '--namespace', NAMESPACE]);
  const objects = objectsOf(manifest);
  const client = KubernetesObjectApi.makeApiClient(plane.admin());
  for (const o of objects) {
    const stored = await client.read({ apiVersion: o.apiVersion, kind: o.kind, metadata: { name: o.metadata?.name ?? '', namespace: o.metadata?.namespace } });
    assert.equal(stored.metadata?.annotations?.['meta.helm.sh/release-name'], 'pv-controller', `${o.kind}/${o.metadata?.name} is stored as part of the release`);
  }
  const status = await runHelm(work, plane.kubeconfigPath, ['status', 'pv-controller', '--namespace', NAMESPACE, '-o', 'json']);
  assert.equal((JSON.parse(status) as { info: { status: string } }).info.status, 'deployed');
  return objects;
}

/** A kubeconfig with a TokenRequest token of one of the chart's ServiceAccounts. */
async function serviceAccountKubeconfig(plane: Plane, work: string, account = 'pv-controller'): Promise<string> {
  const review = await plane.admin().makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({
    name: account,
    namespace: NAMESPACE,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  assert.ok(review.status?.token, 'the TokenRequest answered a token');
  const path = join(work, `${account}.kubeconfig`);
  await writeKubeconfig(path, plane.url, plane.caPem, review.status.token);
  return path;
}

/** The container arguments of the release's Deployment (or DaemonSet), made runnable here. */
function localArgs(manifest: string, nodeName: string, kind: 'Deployment' | 'DaemonSet' = 'Deployment'): string[] {
  const workload = objectsOf(manifest).find((o) => o.kind === kind) as { spec: { template: { spec: { containers: Array<{ args: string[] }> } } } } | undefined;
  assert.ok(workload, `the release has a ${kind}`);
  return workload.spec.template.spec.containers[0].args.map((a) =>
    a.replace('$(NODE_NAME)', nodeName).replace(/^--metrics-bind-address=.*$/, '--metrics-bind-address=127.0.0.1:0'),
  );
}

/** A copy of the chart whose ClusterRole and binding carry 0.1.0's `system:` names. */
async function chartWithSystemNames(work: string): Promise<string> {
  const dir = join(work, 'chart-0.1.0');
  await cp(CHART_DIR, dir, { recursive: true });
  const rbac = join(dir, 'templates', 'rbac.yaml');
  await writeFile(rbac, (await readFile(rbac, 'utf8')).replaceAll('name: {{ include "pv-controller.fullname" . }}\n', 'name: system:{{ include "pv-controller.fullname" . }}\n'));
  return dir;
}

test('helm upgrade from a release with the system:-named ClusterRole; the controller, run with the chart\'s Deployment arguments and ServiceAccount token, binds a claim of the chart\'s host-path class', { skip, timeout: 180_000 }, async () => {
  await withPlane(async (plane, work) => {
    const root = join(work, 'volumes');
    await mkdir(root);
    const values = ['--set', `hostPath.root=${root},hostPath.node=node-a`];
    await runHelm(work, plane.kubeconfigPath, ['install', 'pv-controller', await chartWithSystemNames(work), '--namespace', NAMESPACE, ...values]);
    const rbac = plane.admin().makeApiClient(RbacAuthorizationV1Api);
    assert.ok(await rbac.readClusterRole({ name: 'system:pv-controller' }), 'the old release has the system: name');
    await runHelm(work, plane.kubeconfigPath, ['upgrade', 'pv-controller', CHART_DIR, '--namespace', NAMESPACE, ...values]);
    const names = (await rbac.listClusterRole()).items.map((r) => r.metadata?.name).filter((n) => n?.includes('pv-controller'));
    assert.deepEqual(names, ['pv-controller'], 'helm removed the system:-named ClusterRole and made ours');
    const binding = await rbac.readClusterRoleBinding({ name: 'pv-controller' });
    assert.equal(binding.roleRef.name, 'pv-controller');
    await assert.rejects(rbac.readClusterRoleBinding({ name: 'system:pv-controller' }), 'the old binding is gone');
    const manifest = await runHelm(work, plane.kubeconfigPath, ['get', 'manifest', 'pv-controller', '--namespace', NAMESPACE]);
    const kubeconfig = await serviceAccountKubeconfig(plane, work);
    const args = [MAIN, ...localArgs(manifest, 'node-a'), '--kubeconfig', kubeconfig];
    const controller = startProcess('pv-controller', process.execPath, args, join(work, 'controller.log'), work);
    try {
      const core = plane.admin().makeApiClient(CoreV1Api);
      const spec = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Mi' } }, storageClassName: 'pv-host-path' };
      await core.createNamespacedPersistentVolumeClaim({ namespace: 'default', body: { metadata: { name: 'data' }, spec } });
      const claim = await waitFor(async () => {
        const c: V1PersistentVolumeClaim = await core.readNamespacedPersistentVolumeClaim({ name: 'data', namespace: 'default' });
        return c.status?.phase === 'Bound' ? c : undefined;
      }, 'the claim to be Bound', { timeoutMs: 60_000, intervalMs: 200 });
      const pv: V1PersistentVolume = await core.readPersistentVolume({ name: claim.spec?.volumeName ?? '' });
      const path = pv.spec?.local?.path ?? pv.spec?.hostPath?.path ?? '';
      assert.ok(path.startsWith(`${root}/`), `the volume ${path} lives under the chart's hostPath.root`);
      assert.ok((await stat(path)).isDirectory());
      const terms = pv.spec?.nodeAffinity?.required?.nodeSelectorTerms ?? [];
      assert.deepEqual(terms[0]?.matchExpressions?.[0]?.values, ['node-a'], 'pinned to the node the controller runs on');
      const lease = await plane.admin().makeApiClient(CoordinationV1Api).readNamespacedLease({ name: 'pv-controller', namespace: NAMESPACE });
      assert.ok(lease.spec?.holderIdentity, 'it leads through the chart\'s Lease and Role');
    } finally {
      await controller.stop();
    }
  });
});

const AGENT_ACCOUNT = 'pv-controller-node-agent';
const AGENT_USER = `system:serviceaccount:${NAMESPACE}:${AGENT_ACCOUNT}`;
const agentSkip = skip || mountNamespaceSkipReason() || imageSupportProblem() || false;

/** The release's node-agent Roles alone, as a file grantedUses reads. */
async function agentRoles(manifest: string, work: string): Promise<string> {
  const roles = objectsOf(manifest).filter((o) => (o.kind === 'Role' || o.kind === 'ClusterRole') && o.metadata?.name?.includes('node-agent'));
  const path = join(work, 'agent-roles.yaml');
  await writeFile(path, roles.map((r) => stringify(r)).join('---\n'));
  return path;
}

test('helm install of the node-agent values: every object accepted (the privileged DaemonSet with its Bidirectional root too); the agent, run with the DaemonSet\'s arguments and its ServiceAccount token, provisions and deletes a sized claim with no request denied', { skip: agentSkip, timeout: 300_000 }, async (t) => {
  await withPlane(async (plane, work) => {
    await runHelm(work, plane.kubeconfigPath, ['install', 'pv-controller', CHART_DIR, '--namespace', NAMESPACE, '-f', join(CHART_DIR, NODE_AGENT_VALUES)]);
    const objects = await assertReleaseStored(plane, work);
    assert.equal(objects.length, 15, objects.map((o) => `${o.kind}/${o.metadata?.name}`).join(', '));
    const manifest = await runHelm(work, plane.kubeconfigPath, ['get', 'manifest', 'pv-controller', '--namespace', NAMESPACE]);
    const api = new ClusterApi(plane.admin());
    const sandbox = await mkdtemp(join(tmpdir(), 'pv-helm-agent-'));
    await api.post('/api/v1/nodes', 'v1', 'Node', { metadata: { name: 'node-a', labels: { [LABEL_HOSTNAME]: 'node-a' } } });
    const controllerArgs = [MAIN, ...localArgs(manifest, 'node-a'), '--kubeconfig', await serviceAccountKubeconfig(plane, work)];
    const controller = startProcess('pv-controller', process.execPath, controllerArgs, join(work, 'controller.log'), work);
    // The DaemonSet's arguments, less the root the sandbox gives (a tmpfs of its own at the same place on every node).
    const agentArgs = localArgs(manifest, 'node-a', 'DaemonSet').filter((a) => a !== 'node-agent' && !a.startsWith('--host-path-root='));
    const agent = startNodeAgent({ node: 'node-a', args: [...agentArgs, '--kubeconfig', await serviceAccountKubeconfig(plane, work, AGENT_ACCOUNT)], sandbox, rootSize: '64m', logDir: work });
    try {
      await api.post('/api/v1/namespaces/default/persistentvolumeclaims', 'v1', 'PersistentVolumeClaim', {
        metadata: { name: 'data', namespace: 'default', annotations: { [ANN_SELECTED_NODE]: 'node-a' } },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '20Mi' } }, storageClassName: 'pv-local' },
      });
      const claim = await waitFor(async () => {
        const c = await api.get<PersistentVolumeClaim>('/api/v1/namespaces/default/persistentvolumeclaims/data');
        return c?.status?.phase === 'Bound' ? c : undefined;
      }, 'the claim to be Bound', { timeoutMs: 90_000, intervalMs: 250 });
      const pv = await api.get<PersistentVolume>(`/api/v1/persistentvolumes/${claim.spec.volumeName ?? ''}`);
      const path = pv?.spec.local?.path ?? '';
      assert.deepEqual(agent.mountsUnder(path), [path], 'the sized volume is mounted on the agent\'s root');
      assert.deepEqual(pv?.spec.nodeAffinity?.required?.nodeSelectorTerms?.[0]?.matchExpressions?.[0]?.values, ['node-a']);
      await waitFor(async () => ((await api.items(`/apis/storage.k8s.io/v1/namespaces/${NAMESPACE}/csistoragecapacities`)).length === 1 ? true : undefined), 'the agent\'s CSIStorageCapacity', { timeoutMs: 60_000, intervalMs: 250 });
      await api.delete('/api/v1/namespaces/default/persistentvolumeclaims/data');
      await waitFor(async () => ((await api.get(`/api/v1/persistentvolumes/${pv?.metadata.name ?? ''}`)) ? undefined : true), 'the PV to be deleted', { timeoutMs: 90_000, intervalMs: 250 });
      assert.deepEqual(agent.mountsUnder(path), [], 'unmounted once deleted');
    } finally {
      await agent.process.stop();
      await controller.stop();
      api.close();
      await rm(sandbox, { recursive: true, force: true });
    }
    const summary = await summariseAudit(plane.dir, AGENT_USER);
    assert.deepEqual(summary.denied, [], 'the chart\'s node-agent RBAC is enough');
    assert.ok(summary.requests > 0, 'the agent used its own ServiceAccount');
    const unused = (await grantedUses(await agentRoles(manifest, work))).filter((g) => !summary.used.has(useKey(g))).map(useKey);
    t.diagnostic(`agent: ${summary.requests} requests; granted but not used in this run: ${unused.join(', ') || 'none'}`);
    // kube-apiserver refuses privileged containers unless allowed, as kubeadm and most distributions do.
  }, ['--allow-privileged=true']);
});
