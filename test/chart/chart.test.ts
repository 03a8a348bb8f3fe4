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
import { parse } from 'yaml';
import { CHART_DIR, NODE_AGENT_VALUES, PLAIN_MANIFESTS, staleManifests } from '../../tools/chart/manifests.js';
import { GRAFANA_DASHBOARD, PROMETHEUS_RULES } from '../monitoring/monitoring.js';
import { helm, helmSkip, kinds, render, renderFailure, type RenderedObject } from './render.js';
import { NODE_AGENT_PROVENANCE_NAME } from '../../src/controller/modules.js';
import { provenanceSecretName } from '../../src/controller/provenance/key.js';

const run = promisify(execFile);
const skip = helmSkip;
const VALUES_FILES = ['ci/full-values.yaml', 'ci/gce-values.yaml', 'ci/openstack-values.yaml', 'ci/csi-values.yaml', NODE_AGENT_VALUES];

interface ContainerSpec {
  args: string[];
  volumeMounts?: Array<{ name: string; mountPath: string; mountPropagation?: string }>;
  resources?: Record<string, unknown>;
  env?: Array<{ name: string; value?: string }>;
  envFrom?: unknown[];
  securityContext?: Record<string, unknown>;
}

function podOf(objects: RenderedObject[], kind: 'Deployment' | 'DaemonSet'): { pod: Record<string, unknown>; container: ContainerSpec } {
  const workload = objects.find((o) => o.kind === kind);
  assert.ok(workload, `a ${kind} is rendered`);
  const pod = (workload.spec as { template: { spec: Record<string, unknown> } }).template.spec;
  return { pod, container: (pod.containers as ContainerSpec[])[0] };
}

const controllerContainer = (objects: RenderedObject[]) => podOf(objects, 'Deployment');

describe('charts/pv-controller', { skip }, () => {
  test('snapshots: the role reaches the controller, each class is a VolumeSnapshotClass of its plugin or driver, and a bad class is refused', async () => {
    const objects = await render([
      '--set', 'snapshots.role=sidecar',
      '--set', 'snapshots.classes[0].name=hp', '--set', 'snapshots.classes[0].plugin=host-path', '--set', 'snapshots.classes[0].default=true',
      '--set', 'snapshots.classes[1].name=ebs', '--set', 'snapshots.classes[1].driver=ebs.csi.aws.com', '--set', 'snapshots.classes[1].deletionPolicy=Retain',
    ]);
    assert.ok(controllerContainer(objects).container.args.includes('--snapshot-role=sidecar'));
    const classes = objects.filter((o) => o.kind === 'VolumeSnapshotClass');
    assert.deepEqual(
      classes.map((c) => [c.metadata.name, c.driver, c.deletionPolicy, (c.metadata as { annotations?: Record<string, string> }).annotations?.['snapshot.storage.kubernetes.io/is-default-class']]),
      [['hp', 'kubernetes.io/host-path', 'Delete', 'true'], ['ebs', 'ebs.csi.aws.com', 'Retain', undefined]],
    );
    assert.match(await renderFailure(['--set', 'snapshots.classes[0].name=x', '--set', 'snapshots.classes[0].plugin=host-path', '--set', 'snapshots.classes[0].driver=d']), /give plugin or driver, not both/);
    assert.match(await renderFailure(['--set', 'snapshots.classes[0].name=x', '--set', 'snapshots.classes[0].driver=d', '--set', 'snapshots.classes[0].deletionPolicy=Recycle']), /deletionPolicy('?: value must be one of 'Delete', 'Retain'| must be Delete or Retain)/, 'the schema (or the template) refuses it');
  });

  test('the snapshot CRDs are the chart\'s crds/: rendered with --include-crds, left out by default', async () => {
    const withCrds = await render(['--include-crds']);
    assert.deepEqual(
      withCrds.filter((o) => o.kind === 'CustomResourceDefinition').map((o) => o.metadata.name).sort(),
      ['volumesnapshotclasses.snapshot.storage.k8s.io', 'volumesnapshotcontents.snapshot.storage.k8s.io', 'volumesnapshots.snapshot.storage.k8s.io'],
    );
    assert.equal((await render()).filter((o) => o.kind === 'CustomResourceDefinition').length, 0);
  });

  test('helm lint passes for the default values and every values file of ci/', async () => {
    for (const values of [[], ...VALUES_FILES.map((f) => ['-f', join(CHART_DIR, f)])]) {
      const { stdout } = await run(helm ?? 'helm', ['lint', CHART_DIR, '--strict', '--set', 'hostPath.node=node-1', ...values]);
      assert.match(stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/, `helm lint ${values.join(' ')}`);
    }
  });

  test('the default values render a one-replica host-path controller with its RBAC, metrics Service and class', async () => {
    const objects = await render();
    assert.deepEqual(kinds(objects), [
      'ClusterRole/pv-controller',
      'ClusterRoleBinding/pv-controller',
      'Deployment/pv-controller',
      'Pod/pv-controller-test',
      'PodDisruptionBudget/pv-controller',
      'Role/pv-controller-leases',
      'RoleBinding/pv-controller-leases',
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
      'ClusterRole/pv-controller',
      'ClusterRoleBinding/pv-controller',
      'ConfigMap/pv-controller-dashboard',
      'Deployment/pv-controller',
      'Pod/pv-controller-test',
      'PodDisruptionBudget/pv-controller',
      'PrometheusRule/pv-controller',
      'Role/pv-controller-leases',
      'RoleBinding/pv-controller-leases',
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

  test('the ServiceMonitor names the job pv-controller (the down alert\'s), and runbookBaseUrl points every runbook_url at the served runbook', async () => {
    const base = 'https://docs.example.internal/pv-controller/runbook.html';
    const objects = await render(['-f', join(CHART_DIR, 'ci/full-values.yaml'), '--set', `metrics.prometheusRule.runbookBaseUrl=${base}/`]);
    assert.equal(objects.find((o) => o.kind === 'ServiceMonitor')?.spec?.jobLabel, 'app.kubernetes.io/name');
    const rule = objects.find((o) => o.kind === 'PrometheusRule')?.spec as { groups: Array<{ rules: Array<{ alert?: string; annotations?: Record<string, string> }> }> };
    const urls = rule.groups.flatMap((g) => g.rules.filter((r) => r.alert).map((r) => r.annotations?.runbook_url ?? ''));
    assert.ok(urls.length > 0);
    for (const url of urls) assert.match(url, new RegExp(`^${base.replace(/\./g, '\\.')}#pvcontroller\\w+$`));
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

  test('cloud.tagsFromAnnotations becomes one --cloud-tag-from-annotation per entry, and none without it', async () => {
    const aws = controllerContainer(await render(['-f', join(CHART_DIR, 'ci/gce-values.yaml'), '--set-string', 'cloud.tagsFromAnnotations.example\\.com/cost-center=cost-center']));
    assert.ok(aws.container.args.includes('--cloud-tag-from-annotation=example.com/cost-center=cost-center'), aws.container.args.join(' '));
    const none = controllerContainer(await render(['-f', join(CHART_DIR, 'ci/gce-values.yaml')]));
    assert.ok(!none.container.args.some((a) => a.startsWith('--cloud-tag-from-annotation')));
  });

  test('the CSI values run the driver\'s controller container beside the controller, one socket each through an emptyDir, with --csi-address and the Secret and CSINode reads in the ClusterRole', async () => {
    const objects = await render(['-f', join(CHART_DIR, 'ci/csi-values.yaml')]);
    const { pod, container } = controllerContainer(objects);
    assert.ok(container.args.includes('--csi-address=/csi/mock/csi.sock'));
    assert.ok(container.args.includes('--csi-timeout=90s'));
    assert.ok(container.args.includes('--csi-strict-topology'));
    assert.deepEqual(container.volumeMounts?.find((m) => m.name === 'csi-mock'), { name: 'csi-mock', mountPath: '/csi/mock' });
    const driver = (pod.containers as Array<ContainerSpec & { name: string; image: string }>)[1];
    assert.equal(driver?.name, 'mock-driver');
    assert.equal(driver?.image, 'registry.example.internal/csi-mock:v1.37.2');
    assert.deepEqual(driver?.volumeMounts, [{ name: 'csi-mock', mountPath: '/csi/mock' }]);
    assert.deepEqual((pod.volumes as Array<{ name: string; emptyDir?: unknown }>).find((v) => v.name === 'csi-mock'), { name: 'csi-mock', emptyDir: {} });
    const role = objects.find((o) => o.kind === 'ClusterRole' && !o.metadata.name.includes('node-agent')) as unknown as { rules: Array<{ resources: string[]; verbs: string[] }> };
    assert.deepEqual(role.rules.find((r) => r.resources.includes('secrets'))?.verbs, ['get']);
    assert.deepEqual(role.rules.find((r) => r.resources.includes('csinodes'))?.verbs, ['get', 'list']);
    const leases = objects.find((o) => o.kind === 'Role' && o.metadata.name.endsWith('-leases')) as unknown as { rules: Array<{ resources: string[]; verbs: string[] }> };
    assert.deepEqual(leases.rules.find((r) => r.resources.includes('secrets'))?.verbs, ['create'], 'its provenance key, in its own namespace');
    // Without CSI drivers the controller reads no Secret.
    const plain = (await render()).find((o) => o.kind === 'ClusterRole') as unknown as { rules: Array<{ resources: string[] }> };
    assert.equal(plain.rules.some((r) => r.resources.includes('secrets')), false);
    const bad = await renderFailure(['--set', 'csi.drivers[0].name=Bad_Name,csi.drivers[0].image=x']);
    assert.match(bad, /'\/csi\/drivers\/0\/name': 'Bad_Name' does not match pattern/);
  });

  test('refuses a StorageClass no configured plugin serves, and host-path replicas spread over nodes', async () => {
    const unserved = await renderFailure(['--set', 'storageClasses[0].name=ebs,storageClasses[0].plugin=aws-ebs']);
    assert.match(unserved, /storageClasses\[ebs\]: plugin aws-ebs is not served by this controller/);
    const spread = await renderFailure(['--set', 'replicas=2,hostPath.node=', '--set-json', 'affinity={"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"disk","operator":"In","values":["ssd"]}]}]}}}']);
    assert.match(spread, /with replicas > 1, pin every replica to that node with hostPath.node or nodeSelector/);
    const unknown = await renderFailure(['--set', 'storageClasses[0].name=x,storageClasses[0].plugin=ceph']);
    assert.match(unknown, /'\/storageClasses\/0\/plugin': value must be one of 'host-path'/, 'values.schema.json names the plugins');
  });

  test('the node-agent values render a DaemonSet of `node-agent --node-name $(NODE_NAME)` with its own ServiceAccount and RBAC, and a controller that serves no host-path and runs as non-root', async () => {
    const objects = await render(['-f', join(CHART_DIR, NODE_AGENT_VALUES)]);
    assert.deepEqual(kinds(objects), [
      'ClusterRole/pv-controller',
      'ClusterRole/pv-controller-node-agent',
      'ClusterRoleBinding/pv-controller',
      'ClusterRoleBinding/pv-controller-node-agent',
      'DaemonSet/pv-controller-node-agent',
      'Deployment/pv-controller',
      'Pod/pv-controller-test',
      'PodDisruptionBudget/pv-controller',
      'Role/pv-controller-leases',
      'Role/pv-controller-node-agent',
      'RoleBinding/pv-controller-leases',
      'RoleBinding/pv-controller-node-agent',
      'Service/pv-controller-metrics',
      'ServiceAccount/pv-controller',
      'ServiceAccount/pv-controller-node-agent',
      'StorageClass/pv-local',
    ]);
    const agent = podOf(objects, 'DaemonSet');
    assert.deepEqual(agent.container.args.slice(0, 4), ['node-agent', '--node-name=$(NODE_NAME)', '--host-path-root=/var/lib/pv-controller/volumes', '--host-path-overcommit-ratio=1']);
    assert.ok(agent.container.args.includes('--capacity-namespace=kube-system'));
    assert.equal(agent.pod.serviceAccountName, 'pv-controller-node-agent');
    const controller = controllerContainer(objects);
    assert.ok(!controller.container.args.some((a) => a.startsWith('--host-path-root') || a.startsWith('--node-name')), controller.container.args.join(' '));
    assert.equal((controller.pod.securityContext as { runAsNonRoot: boolean }).runAsNonRoot, true);
    const cls = objects.find((o) => o.kind === 'StorageClass');
    assert.deepEqual([cls?.provisioner, cls?.volumeBindingMode, cls?.parameters], ['host-path.pv-controller.io', 'WaitForFirstConsumer', { sizing: 'image' }]);
    const selectors = objects.filter((o) => o.kind === 'Deployment' || o.kind === 'DaemonSet').map((o) => (o.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels['app.kubernetes.io/name']);
    assert.deepEqual(selectors.sort(), ['pv-controller', 'pv-controller-node-agent'], 'neither selector matches the other\'s pods');
  });

  test('the agent\'s RBAC is only what an agent does: its node\'s volumes and claims (and their status, as it grows them), the snapshots its claims restore from and the snapshot contents it cuts, classes, attribute classes, pods, its Node, the CSIDriver, events; capacity objects, Leases and its proof key in its namespace', async () => {
    const objects = await render(['-f', join(CHART_DIR, NODE_AGENT_VALUES)]);
    const rules = (kind: 'ClusterRole' | 'Role', name: string) => (objects.find((o) => o.metadata.name === name && o.kind === kind)?.rules as Array<{ resources: string[]; verbs: string[] }>)
      .map((r) => `${r.resources.join(',')}: ${r.verbs.join(',')}`);
    assert.deepEqual(rules('ClusterRole', 'pv-controller-node-agent'), [
      'persistentvolumes: get,list,watch,create,update,delete',
      'persistentvolumes/status: update',
      'persistentvolumeclaims: get,list,watch,update',
      'persistentvolumeclaims/status: update',
      'volumesnapshots,volumesnapshotcontents: get',
      'volumeattributesclasses: get',
      'storageclasses: get,list,watch',
      'pods: list,watch',
      'nodes: get',
      'csidrivers: get,create',
      'volumesnapshots,volumesnapshotclasses: list,watch',
      'volumesnapshotcontents: list,watch,update',
      'volumesnapshotcontents/status: update',
      'events: create,patch',
    ]);
    assert.deepEqual(rules('Role', 'pv-controller-node-agent'), ['csistoragecapacities: list,create,update,delete', 'leases: get,create,update', 'secrets: create', 'secrets: get']);
    const key = (objects.find((o) => o.kind === 'Role' && o.metadata.name === 'pv-controller-node-agent')?.rules as Array<{ resourceNames?: string[]; verbs: string[] }>).find((r) => r.verbs.includes('get') && r.resourceNames);
    assert.deepEqual(key?.resourceNames, [provenanceSecretName(NODE_AGENT_PROVENANCE_NAME)], 'the agents read only their snapshot proof key');
    const binding = objects.find((o) => o.kind === 'RoleBinding' && o.metadata.name === 'pv-controller-node-agent');
    assert.equal(binding?.metadata.namespace, 'kube-system');
  });

  test('sized volumes make the agent privileged with the node\'s /dev and the root Bidirectional; plain directories keep it to DAC_OVERRIDE and FOWNER', async () => {
    const sized = podOf(await render(['-f', join(CHART_DIR, NODE_AGENT_VALUES)]), 'DaemonSet');
    assert.deepEqual(sized.container.securityContext, { readOnlyRootFilesystem: true, privileged: true });
    assert.deepEqual(sized.container.volumeMounts?.map((m) => [m.mountPath, m.mountPropagation ?? 'None']), [
      ['/tmp', 'None'],
      ['/var/lib/pv-controller/volumes', 'Bidirectional'],
      ['/dev', 'None'],
    ]);
    const plainArgs = ['--set', 'nodeAgent.enabled=true,storageClasses[0].name=dirs,storageClasses[0].plugin=host-path-node'];
    const plain = podOf(await render(plainArgs), 'DaemonSet');
    assert.deepEqual(plain.container.securityContext, { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'], add: ['DAC_OVERRIDE', 'FOWNER'] } });
    assert.deepEqual(plain.container.volumeMounts?.map((m) => [m.mountPath, m.mountPropagation ?? 'None']), [['/tmp', 'None'], ['/var/lib/pv-controller/volumes', 'None']]);
    const forced = podOf(await render([...plainArgs, '--set', 'nodeAgent.sizedVolumes=true']), 'DaemonSet');
    assert.equal(forced.container.securityContext?.privileged, true, 'sizedVolumes for classes made outside the chart');
  });

  test('the agent takes its root, over-commit ratio, resources, tolerations, nodeSelector and priorityClassName from nodeAgent', async () => {
    const values = [
      'nodeAgent.root=/srv/local', 'nodeAgent.overcommitRatio=1.5', 'nodeAgent.priorityClassName=system-node-critical',
      'nodeAgent.nodeSelector.storage=local', 'nodeAgent.tolerations[0].operator=Exists', 'nodeAgent.resources.limits.memory=1Gi',
    ];
    const { pod, container } = podOf(await render(['-f', join(CHART_DIR, NODE_AGENT_VALUES), '--set', values.join(',')]), 'DaemonSet');
    assert.ok(container.args.includes('--host-path-root=/srv/local') && container.args.includes('--host-path-overcommit-ratio=1.5'), container.args.join(' '));
    assert.deepEqual((pod.volumes as Array<{ name: string; hostPath?: { path: string } }>).find((v) => v.name === 'host-path-root')?.hostPath?.path, '/srv/local');
    assert.deepEqual([pod.priorityClassName, pod.nodeSelector, pod.tolerations], ['system-node-critical', { storage: 'local' }, [{ operator: 'Exists' }]]);
    assert.deepEqual(container.resources?.limits, { memory: '1Gi' });
  });

  test('nodeAgent.roots gives each agent several roots, each mounted, with its capacity and weight; without it the one root is used as before', async () => {
    const values = ['nodeAgent.roots[0].path=/mnt/disk1', 'nodeAgent.roots[0].capacity=500Gi', 'nodeAgent.roots[0].weight=2', 'nodeAgent.roots[1].path=/mnt/disk2', 'nodeAgent.roots[1].weight=0'];
    const { pod, container } = podOf(await render(['-f', join(CHART_DIR, NODE_AGENT_VALUES), '--set', values.join(',')]), 'DaemonSet');
    const rootArgs = container.args.filter((a) => a.startsWith('--host-path-root'));
    assert.deepEqual(rootArgs, [
      '--host-path-root=/mnt/disk1',
      '--host-path-root-capacity=/mnt/disk1=500Gi',
      '--host-path-root-weight=/mnt/disk1=2',
      '--host-path-root=/mnt/disk2',
      '--host-path-root-weight=/mnt/disk2=0',
    ]);
    const volumes = (pod.volumes as Array<{ name: string; hostPath?: { path: string } }>).filter((v) => v.name.startsWith('host-path-root'));
    assert.deepEqual(volumes.map((v) => [v.name, v.hostPath?.path]), [['host-path-root', '/mnt/disk1'], ['host-path-root-1', '/mnt/disk2']]);
    assert.deepEqual(container.volumeMounts?.filter((m) => m.name.startsWith('host-path-root')).map((m) => m.mountPath), ['/mnt/disk1', '/mnt/disk2']);
    const pinned = podOf(await render(['-f', join(CHART_DIR, NODE_AGENT_VALUES), '--set', 'nodeAgent.nodeAffinityLabel=example.com/disk']), 'DaemonSet');
    assert.ok(pinned.container.args.includes('--node-affinity-label=example.com/disk'), pinned.container.args.join(' '));
    const single = podOf(await render(['-f', join(CHART_DIR, NODE_AGENT_VALUES)]), 'DaemonSet');
    assert.ok(!single.container.args.some((a) => a.startsWith('--node-affinity-label')), 'the default is the agent\'s own');
    assert.deepEqual(single.container.args.filter((a) => a.startsWith('--host-path-root')), ['--host-path-root=/var/lib/pv-controller/volumes']);
    const bad = await renderFailure(['-f', join(CHART_DIR, NODE_AGENT_VALUES), '--set', 'nodeAgent.roots[0].path=/mnt/a,nodeAgent.roots[0].capacity=lots']);
    assert.match(bad, /capacity/);
  });

  test('the plain-directory agent gets CAP_CHOWN only when one of its classes sets directoryUid or directoryGid', async () => {
    const base = 'nodeAgent.enabled=true,storageClasses[0].name=dirs,storageClasses[0].plugin=host-path-node';
    const owned = podOf(await render(['--set', `${base},storageClasses[0].parameters.directoryUid=1000`]), 'DaemonSet');
    assert.deepEqual(owned.container.securityContext?.capabilities, { drop: ['ALL'], add: ['DAC_OVERRIDE', 'FOWNER', 'CHOWN'] });
    const plain = podOf(await render(['--set', base]), 'DaemonSet');
    assert.deepEqual(plain.container.securityContext?.capabilities, { drop: ['ALL'], add: ['DAC_OVERRIDE', 'FOWNER'] });
  });

  test('refuses node-local classes that cannot work: host-path-node without nodeAgent or Immediate, and host-path once the agents serve local volumes', async () => {
    const noAgent = await renderFailure(['--set', 'storageClasses[0].name=l,storageClasses[0].plugin=host-path-node']);
    assert.match(noAgent, /storageClasses\[l\]: plugin host-path-node is not served by this controller/);
    const immediate = await renderFailure(['--set', 'nodeAgent.enabled=true,storageClasses[0].name=l,storageClasses[0].plugin=host-path-node,storageClasses[0].volumeBindingMode=Immediate']);
    assert.match(immediate, /storageClasses\[l\]: plugin host-path-node needs volumeBindingMode WaitForFirstConsumer/);
    const central = await renderFailure(['--set', 'nodeAgent.enabled=true']);
    assert.match(central, /storageClasses\[pv-host-path\]: with nodeAgent.enabled the node agents serve local volumes: use plugin host-path-node/);
  });

  test('a host-path class offers growth only for sized volumes: allowVolumeExpansion without sizing: image is refused, with it rendered', async () => {
    const plain = await renderFailure(['--set', 'storageClasses[0].name=dirs,storageClasses[0].plugin=host-path,storageClasses[0].allowVolumeExpansion=true']);
    assert.match(plain, /storageClasses\[dirs\]: allowVolumeExpansion needs parameters.sizing: image \(a plain directory has no size to grow\)/);
    const agents = await renderFailure(['--set', 'nodeAgent.enabled=true,storageClasses[0].name=dirs,storageClasses[0].plugin=host-path-node,storageClasses[0].allowVolumeExpansion=true']);
    assert.match(agents, /storageClasses\[dirs\]: allowVolumeExpansion needs parameters.sizing: image/);
    const sized = await render(['-f', join(CHART_DIR, NODE_AGENT_VALUES)]);
    assert.equal(sized.find((o) => o.kind === 'StorageClass')?.allowVolumeExpansion, true);
  });

  test('deploy/ (RBAC, the Deployment, its Service and disruption budget, the host-path class, the node agents and their class, the RBAC with CSI drivers) is what the chart renders (npm run chart:manifests)', async () => {
    assert.deepEqual(PLAIN_MANIFESTS.map((m) => m.file), [
      'deploy/rbac.yaml',
      'deploy/deployment.yaml',
      'deploy/service.yaml',
      'deploy/poddisruptionbudget.yaml',
      'deploy/storageclass-host-path.yaml',
      'deploy/node-agent.yaml',
      'deploy/storageclass-host-path-node.yaml',
      'deploy/rbac-csi.yaml',
    ]);
    assert.deepEqual(await staleManifests(helm), []);
  });
});
