/**
 * The Helm chart, rendered by the helm built from tools/helm (or the one on PATH): it lints, it
 * renders the objects each values file asks for, it refuses shapes that cannot work, its
 * PrometheusRule and dashboard are the files the monitoring tests check, and deploy/rbac.yaml is
 * exactly what it renders.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { parse, parseAllDocuments } from 'yaml';
import { findHelm } from '../../tools/cluster/binaries.js';
import { CHART_DIR, helmTemplate, PLAIN_MANIFESTS, staleManifests } from '../../tools/chart/manifests.js';
import { GRAFANA_DASHBOARD, PROMETHEUS_RULES } from '../monitoring/monitoring.js';

const run = promisify(execFile);
const helm = findHelm();
const skip = helm ? false : 'helm is neither on PATH nor built (`npm run cluster:build` builds it from tools/helm)';
const VALUES_FILES = ['ci/full-values.yaml', 'ci/gce-values.yaml', 'ci/openstack-values.yaml'];

interface RenderedObject {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
  [key: string]: unknown;
}

async function render(args: string[] = []): Promise<RenderedObject[]> {
  const docs = parseAllDocuments(await helmTemplate(args, helm));
  return docs.map((d) => d.toJS() as RenderedObject).filter((o) => o && o.kind);
}

function kinds(objects: RenderedObject[]): string[] {
  return objects.map((o) => `${o.kind}/${o.metadata.name}`).sort();
}

interface ContainerSpec {
  args: string[];
  env?: Array<{ name: string; value?: string }>;
  envFrom?: unknown[];
  securityContext?: Record<string, unknown>;
}

function controllerContainer(objects: RenderedObject[]): { pod: Record<string, unknown>; container: ContainerSpec } {
  const deployment = objects.find((o) => o.kind === 'Deployment');
  assert.ok(deployment, 'a Deployment is rendered');
  const pod = (deployment.spec as { template: { spec: Record<string, unknown> } }).template.spec;
  return { pod, container: (pod.containers as ContainerSpec[])[0] };
}

async function renderFailure(args: string[]): Promise<string> {
  const err = await helmTemplate(args, helm).then(
    () => undefined,
    (e: { stderr?: string }) => e,
  );
  assert.ok(err, `helm template ${args.join(' ')} should fail`);
  return err.stderr ?? '';
}

describe('charts/pv-controller', { skip }, () => {
  test('helm lint passes for the default values and every values file of ci/', async () => {
    for (const values of [[], ...VALUES_FILES.map((f) => ['-f', join(CHART_DIR, f)])]) {
      const { stdout } = await run(helm ?? 'helm', ['lint', CHART_DIR, '--strict', ...values]);
      assert.match(stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/, `helm lint ${values.join(' ')}`);
    }
  });

  test('the default values render a one-replica host-path controller with its RBAC, metrics Service and class', async () => {
    const objects = await render();
    assert.deepEqual(kinds(objects), [
      'ClusterRole/system:pv-controller',
      'ClusterRoleBinding/system:pv-controller',
      'Deployment/pv-controller',
      'Role/pv-controller-leader-election',
      'RoleBinding/pv-controller-leader-election',
      'Service/pv-controller-metrics',
      'ServiceAccount/pv-controller',
      'StorageClass/pv-host-path',
    ]);
    const { pod, container } = controllerContainer(objects);
    assert.ok(container.args.includes('--host-path-root=/var/lib/pv-controller/volumes'));
    assert.ok(container.args.includes('--node-name=$(NODE_NAME)'));
    assert.ok(container.args.includes('--leader-elect=true'));
    assert.ok(container.args.includes('--metrics-bind-address=:10258'));
    assert.equal((pod.securityContext as { runAsUser: number }).runAsUser, 0, 'host-path runs as root');
  });

  test('the full values render every object: three plugins, credentials from a Secret, ServiceMonitor, PrometheusRule, dashboard', async () => {
    const objects = await render(['-f', join(CHART_DIR, 'ci/full-values.yaml')]);
    assert.deepEqual(kinds(objects), [
      'ClusterRole/system:pv-controller',
      'ClusterRoleBinding/system:pv-controller',
      'ConfigMap/pv-controller-dashboard',
      'Deployment/pv-controller',
      'PrometheusRule/pv-controller',
      'Role/pv-controller-leader-election',
      'RoleBinding/pv-controller-leader-election',
      'Service/pv-controller-metrics',
      'ServiceAccount/pv-controller',
      'ServiceMonitor/pv-controller',
      'StorageClass/ebs-gp3',
      'StorageClass/local',
      'StorageClass/nfs',
    ]);
    const { container } = controllerContainer(objects);
    for (const arg of ['--cloud-provider=aws', '--nfs-mount=nfs.example.internal:/exports/k8s=/mnt/nfs/shared', '--host-path-root=/srv/volumes']) {
      assert.ok(container.args.includes(arg), `${arg} in ${container.args.join(' ')}`);
    }
    assert.deepEqual(container.envFrom, [{ secretRef: { name: 'pv-controller-aws' } }]);
    const classes = Object.fromEntries(objects.filter((o) => o.kind === 'StorageClass').map((o) => [o.metadata.name, o.provisioner]));
    assert.deepEqual(classes, { local: 'kubernetes.io/host-path', nfs: 'pv-controller.io/nfs-subdir', 'ebs-gp3': 'kubernetes.io/aws-ebs' });
    const rule = objects.find((o) => o.kind === 'PrometheusRule');
    assert.deepEqual(rule?.spec, parse(await readFile(PROMETHEUS_RULES, 'utf8')), 'the PrometheusRule is the rule file promtool tests');
    const dashboard = objects.find((o) => o.kind === 'ConfigMap');
    assert.deepEqual(JSON.parse(dashboard?.data?.['pv-controller.json'] ?? '{}'), JSON.parse(await readFile(GRAFANA_DASHBOARD, 'utf8')));
  });

  test('cloud credentials come from Secrets: a GCE key file and an OpenStack clouds.yaml are mounted, never inlined', async () => {
    const gce = controllerContainer(await render(['-f', join(CHART_DIR, 'ci/gce-values.yaml')]));
    assert.ok(gce.container.env?.some((e) => e.name === 'GOOGLE_APPLICATION_CREDENTIALS' && e.value === '/etc/pv-controller/cloud/key.json'));
    assert.deepEqual((gce.pod.volumes as Array<{ name: string; secret?: unknown }>).find((v) => v.name === 'cloud-credentials')?.secret, { secretName: 'pv-controller-gce' });
    assert.equal((gce.pod.securityContext as { runAsNonRoot: boolean }).runAsNonRoot, true, 'without host-path it runs as non-root');
    const openstack = controllerContainer(await render(['-f', join(CHART_DIR, 'ci/openstack-values.yaml')]));
    assert.ok(openstack.container.env?.some((e) => e.name === 'OS_CLIENT_CONFIG_FILE' && e.value === '/etc/pv-controller/cloud/clouds.yaml'));
    assert.ok(openstack.container.env?.some((e) => e.name === 'OS_CLOUD' && e.value === 'production'));
    assert.ok(openstack.container.args.includes('--leader-elect=false'));
  });

  test('refuses a StorageClass no configured plugin serves, and host-path replicas spread over nodes', async () => {
    const unserved = await renderFailure(['--set', 'storageClasses[0].name=ebs,storageClasses[0].plugin=aws-ebs']);
    assert.match(unserved, /storageClasses\[ebs\]: plugin aws-ebs is not served by this controller/);
    const spread = await renderFailure(['--set', 'replicas=2']);
    assert.match(spread, /with replicas > 1, pin every replica to that node with nodeSelector/);
    const unknown = await renderFailure(['--set', 'storageClasses[0].name=x,storageClasses[0].plugin=ceph']);
    assert.match(unknown, /storageClasses\[x\]: plugin ceph is not served/);
  });

  test('deploy/ (RBAC, the Deployment, its Service, the host-path class) is what the chart renders (npm run chart:manifests)', async () => {
    assert.deepEqual(PLAIN_MANIFESTS.map((m) => m.file), ['deploy/rbac.yaml', 'deploy/deployment.yaml', 'deploy/service.yaml', 'deploy/storageclass-host-path.yaml']);
    assert.deepEqual(await staleManifests(helm), []);
  });
});
