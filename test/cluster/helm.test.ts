/**
 * The Helm chart against the real kube-apiserver: `helm install` with every switch on is
 * accepted object by object (the Prometheus Operator's kinds through minimal CRDs made here),
 * and no pod runs (there is no kubelet). Then the controller runs as a local process with the
 * exact arguments of the chart's Deployment and a TokenRequest token of the chart's
 * ServiceAccount, and binds a claim of the chart's host-path StorageClass — so the chart's RBAC
 * is enough for the controller (test:cluster's audit check fails the run on any denied request).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { CoordinationV1Api, CoreV1Api, KubernetesObjectApi, type KubernetesObject, type V1PersistentVolume, type V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { writeKubeconfig } from '../../src/apiserver/kubeconfig.js';
import { findHelm } from '../../tools/cluster/binaries.js';
import type { ControlPlane } from '../../tools/cluster/control-plane.js';
import { startProcess } from '../../tools/cluster/processes.js';
import { CHART_DIR } from '../../tools/chart/manifests.js';
import { realControlPlaneSkip, startTestControlPlane } from '../helpers/control-plane.js';
import { waitFor } from '../helpers/wait.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const run = promisify(execFile);
const helm = findHelm();
const skip = realControlPlaneSkip() || (helm ? false : 'helm is neither on PATH nor built (`npm run cluster:build`)');
const NAMESPACE = 'kube-system';

type Plane = ControlPlane & { removeDir(): Promise<void> };

async function withPlane(body: (plane: Plane, work: string) => Promise<void>): Promise<void> {
  const plane = await startTestControlPlane({ controllerServiceAccount: false });
  const work = await mkdtemp(join(tmpdir(), 'pv-helm-'));
  try {
    await body(plane, work);
  } finally {
    await plane.stop();
    await plane.removeDir();
    await rm(work, { recursive: true, force: true });
  }
}

/** helm with its cache, config and data in `work`, never the user's. */
async function runHelm(work: string, kubeconfig: string, args: string[]): Promise<string> {
  const env = { ...process.env, HELM_CACHE_HOME: join(work, 'helm-cache'), HELM_CONFIG_HOME: join(work, 'helm-config'), HELM_DATA_HOME: join(work, 'helm-data') };
  try {
    const { stdout } = await run(helm ?? 'helm', [...args, '--kubeconfig', kubeconfig], { env, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    throw new Error(`helm ${args.join(' ')} failed:\n${e.stderr ?? ''}${e.stdout ?? ''}`);
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
    const manifest = await runHelm(work, plane.kubeconfigPath, ['get', 'manifest', 'pv-controller', '--namespace', NAMESPACE]);
    const objects = objectsOf(manifest);
    assert.equal(objects.length, 13, objects.map((o) => `${o.kind}/${o.metadata?.name}`).join(', '));
    const client = KubernetesObjectApi.makeApiClient(plane.admin());
    for (const o of objects) {
      const stored = await client.read({ apiVersion: o.apiVersion, kind: o.kind, metadata: { name: o.metadata?.name ?? '', namespace: o.metadata?.namespace } });
      assert.equal(stored.metadata?.annotations?.['meta.helm.sh/release-name'], 'pv-controller', `${o.kind}/${o.metadata?.name} is stored as part of the release`);
    }
    const status = await runHelm(work, plane.kubeconfigPath, ['status', 'pv-controller', '--namespace', NAMESPACE, '-o', 'json']);
    assert.equal((JSON.parse(status) as { info: { status: string } }).info.status, 'deployed');
    const pods = await plane.admin().makeApiClient(CoreV1Api).listNamespacedPod({ namespace: NAMESPACE, labelSelector: 'app.kubernetes.io/name=pv-controller' });
    assert.equal(pods.items.length, 0, 'no kube-controller-manager makes the pods and no kubelet would run them');
  });
});

/** A kubeconfig with a TokenRequest token of the chart's ServiceAccount. */
async function serviceAccountKubeconfig(plane: Plane, work: string): Promise<string> {
  const review = await plane.admin().makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({
    name: 'pv-controller',
    namespace: NAMESPACE,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  assert.ok(review.status?.token, 'the TokenRequest answered a token');
  const path = join(work, 'controller.kubeconfig');
  await writeKubeconfig(path, plane.url, plane.caPem, review.status.token);
  return path;
}

/** The controller container's arguments in the release, made runnable here. */
function localArgs(manifest: string, nodeName: string): string[] {
  const deployment = objectsOf(manifest).find((o) => o.kind === 'Deployment') as { spec: { template: { spec: { containers: Array<{ args: string[] }> } } } } | undefined;
  assert.ok(deployment, 'the release has a Deployment');
  return deployment.spec.template.spec.containers[0].args.map((a) =>
    a.replace('$(NODE_NAME)', nodeName).replace(/^--metrics-bind-address=.*$/, '--metrics-bind-address=127.0.0.1:0'),
  );
}

test('the controller, run with the chart\'s Deployment arguments and ServiceAccount token, binds a claim of the chart\'s host-path class', { skip, timeout: 180_000 }, async () => {
  await withPlane(async (plane, work) => {
    const root = join(work, 'volumes');
    await mkdir(root);
    await runHelm(work, plane.kubeconfigPath, ['install', 'pv-controller', CHART_DIR, '--namespace', NAMESPACE, '--set', `hostPath.root=${root}`]);
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
