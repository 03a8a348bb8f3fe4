/**
 * The chart's guard rails: values.schema.json rejects misspelt and mistyped values (helm lint
 * --strict fails on each), a host-path controller is pinned to its node or refused, the
 * PodDisruptionBudget and the `helm test` pod render, NOTES.txt says where volumes live in every
 * mode, the cluster-wide RBAC is named without Kubernetes' `system:` prefix, and no refusal
 * prints Go's `%!s(<nil>)`.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { CHART_DIR, NODE_AGENT_VALUES } from '../../tools/chart/manifests.js';
import { helm, helmSkip, PINNED_NODE, render, renderFailure } from './render.js';

const run = promisify(execFile);

interface Outcome {
  ok: boolean;
  output: string;
}

async function helmRun(args: string[]): Promise<Outcome> {
  try {
    const { stdout, stderr } = await run(helm ?? 'helm', args, { maxBuffer: 16 * 1024 * 1024 });
    return { ok: true, output: stdout + stderr };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return { ok: false, output: (e.stdout ?? '') + (e.stderr ?? '') };
  }
}

const lint = (args: string[]) => helmRun(['lint', CHART_DIR, '--strict', '--set', `hostPath.node=${PINNED_NODE}`, ...args]);

/** NOTES.txt as `helm install --dry-run=client` prints it. */
async function notes(args: string[]): Promise<string> {
  const out = await helmRun(['install', 'pv-controller', CHART_DIR, '--dry-run=client', '--namespace', 'kube-system', ...args]);
  assert.ok(out.ok, out.output);
  return out.output.slice(out.output.indexOf('NOTES:'));
}

describe('values.schema.json', { skip: helmSkip }, () => {
  let work = '';
  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'chart-values-'));
  });
  after(async () => {
    await rm(work, { recursive: true, force: true });
  });

  test('helm lint --strict passes the defaults pinned to a node (the baseline the typos below break)', async () => {
    const out = await lint([]);
    assert.ok(out.ok, out.output);
  });

  const typos: Array<[string, string, RegExp]> = [
    ['a misspelt top-level key (resoures:)', 'resoures:\n  requests: { cpu: 100m }\n', /additional properties 'resoures' not allowed/],
    ['a misspelt reclaim policy (Recycel)', 'storageClasses:\n  - { name: x, plugin: host-path, reclaimPolicy: Recycel }\n', /reclaimPolicy': value must be one of 'Delete', 'Retain', 'Recycle'/],
    ['a misspelt nested key (hostPath.roots)', 'hostPath:\n  roots: /srv\n', /additional properties 'roots' not allowed/],
    ['a misspelt switch (metrics.serviceMonitor.enabeld)', 'metrics:\n  serviceMonitor: { enabeld: true }\n', /additional properties 'enabeld' not allowed/],
    ['a binding mode that does not exist', 'storageClasses:\n  - { name: x, plugin: host-path, volumeBindingMode: Later }\n', /volumeBindingMode': value must be one of/],
    ['a duration without a unit', 'syncPeriod: "10"\n', /syncPeriod': '10' does not match pattern/],
    ['a log format the controller lacks', 'logFormat: xml\n', /logFormat': value must be one of 'json', 'text'/],
    ['a class without a plugin', 'storageClasses:\n  - { name: x }\n', /missing property 'plugin'/],
  ];
  for (const [what, yaml, message] of typos) {
    test(`helm lint --strict fails on ${what}`, async () => {
      const file = join(work, `${what.replace(/\W+/g, '-')}.yaml`);
      await writeFile(file, yaml);
      const out = await lint(['-f', file]);
      assert.equal(out.ok, false, out.output);
      assert.match(out.output, message);
    });
  }

  test('helm lint --strict fails on --set replicas=two (a string where a number belongs), and helm template refuses it', async () => {
    const out = await lint(['--set', 'replicas=two']);
    assert.equal(out.ok, false, out.output);
    assert.match(out.output, /'\/replicas': got string, want integer/);
    assert.match(await renderFailure(['--set', 'replicas=two']), /got string, want integer/);
  });
});

describe('chart guard rails', { skip: helmSkip }, () => {
  test('a host-path controller without a node is refused with a message that says how to pin it', async () => {
    const refused = await renderFailure([], false);
    assert.match(refused, /pin the controller to that node with --set hostPath.node=<node name>.*so that a drain cannot move it away from its volumes/);
  });

  test('hostPath.node pins the controller by kubernetes.io/hostname beside the nodeSelector given; a nodeSelector or required node affinity alone also pins it', async () => {
    const pod = async (args: string[], pinned: boolean) => {
      const deployment = (pinned ? await render(args) : await renderWithoutPin(args)).find((o) => o.kind === 'Deployment');
      return (deployment?.spec as { template: { spec: { nodeSelector?: Record<string, string>; affinity?: unknown } } }).template.spec;
    };
    assert.deepEqual((await pod(['--set', 'nodeSelector.disk=ssd'], true)).nodeSelector, { disk: 'ssd', 'kubernetes.io/hostname': PINNED_NODE });
    assert.deepEqual((await pod(['--set', 'nodeSelector.kubernetes\\.io/hostname=storage-1'], false)).nodeSelector, { 'kubernetes.io/hostname': 'storage-1' });
    const affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['storage-1'] }] }] } } };
    const byAffinity = await pod(['--set-json', `affinity=${JSON.stringify(affinity)}`], false);
    assert.deepEqual([byAffinity.nodeSelector, byAffinity.affinity], [undefined, affinity]);
    const agents = await pod(['-f', join(CHART_DIR, NODE_AGENT_VALUES)], false);
    assert.equal(agents.nodeSelector, undefined, 'with node agents the controller holds no node-local state and may run anywhere');
  });

  test('a PodDisruptionBudget lets a drain evict one controller pod at a time, and can be turned off', async () => {
    const pdb = (await render()).find((o) => o.kind === 'PodDisruptionBudget');
    assert.deepEqual(pdb?.spec, { maxUnavailable: 1, selector: { matchLabels: { 'app.kubernetes.io/name': 'pv-controller', 'app.kubernetes.io/instance': 'pv-controller' } } });
    assert.equal((await render(['--set', 'podDisruptionBudget.enabled=false'])).some((o) => o.kind === 'PodDisruptionBudget'), false);
  });

  test('the helm test pod checks the leader Lease with the controller\'s ServiceAccount, or /readyz without leader election', async () => {
    const pod = (await render()).find((o) => o.kind === 'Pod');
    assert.equal(pod?.metadata.annotations?.['helm.sh/hook'], 'test');
    const spec = pod?.spec as { serviceAccountName: string; containers: Array<{ image: string; command: string[]; env: Array<{ name: string; value: string }> }> };
    assert.equal(spec.serviceAccountName, 'pv-controller');
    assert.deepEqual(spec.containers[0].command, ['node', '--input-type=module', '-e']);
    assert.equal(spec.containers[0].image, `pv-controller:${await chartAppVersion()}`, 'the controller\'s own image: node and nothing else');
    assert.deepEqual(spec.containers[0].env[0], { name: 'LEASE_URL', value: 'https://kubernetes.default.svc/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/pv-controller' });
    const unelected = (await render(['--set', 'leaderElection.enabled=false'])).find((o) => o.kind === 'Pod')?.spec as typeof spec;
    assert.deepEqual(unelected.containers[0].env, [{ name: 'READYZ_URL', value: 'http://pv-controller-metrics.kube-system.svc:10258/readyz' }]);
  });

  test('NOTES.txt says where volumes live in every mode: the pinned node, each node agent\'s node, NFS, cloud, CSI', async () => {
    assert.match(await notes(['--set', 'hostPath.node=storage-1']), /host-path {7}volumes under \/var\/lib\/pv-controller\/volumes on node storage-1, where the controller is pinned/);
    const agents = await notes(['-f', join(CHART_DIR, NODE_AGENT_VALUES)]);
    assert.match(agents, /host-path-node {2}volumes under \/var\/lib\/pv-controller\/volumes of each node that runs a node agent/);
    assert.doesNotMatch(agents, /host-path {7}/, 'the controller serves no host-path beside the agents');
    const full = await notes(['-f', join(CHART_DIR, 'ci/full-values.yaml')]);
    assert.match(full, /host-path {7}volumes under \/srv\/volumes on node selected by nodeSelector\/affinity/);
    assert.match(full, /nfs-subdir {6}nfs\.example\.internal:\/exports\/k8s/);
    assert.match(full, /cloud {11}aws/);
    assert.match(await notes(['-f', join(CHART_DIR, 'ci/csi-values.yaml')]), /csi {13}driver container mock-driver \(socket \/csi\/mock\/csi\.sock\)/);
  });

  test('the ClusterRoles and their bindings are named without the system: prefix Kubernetes keeps for its own', async () => {
    const objects = [...(await render()), ...(await render(['-f', join(CHART_DIR, NODE_AGENT_VALUES)]))];
    const cluster = objects.filter((o) => o.kind === 'ClusterRole' || o.kind === 'ClusterRoleBinding');
    assert.ok(cluster.length >= 4);
    for (const o of cluster) assert.doesNotMatch(o.metadata.name, /^system:/, `${o.kind}/${o.metadata.name}`);
    const binding = cluster.find((o) => o.kind === 'ClusterRoleBinding' && o.metadata.name === 'pv-controller') as unknown as { roleRef: { name: string } };
    assert.equal(binding.roleRef.name, 'pv-controller');
  });

  test('no refusal prints Go\'s %!s(<nil>): a class or CSI driver without a name or plugin is named by its index', async () => {
    const skipSchema = ['--skip-schema-validation'];
    const cases: Array<[string[], RegExp]> = [
      [['--set', 'storageClasses[0].plugin=nfs-subdir'], /storageClasses\[0\] has no name/],
      [['--set', 'storageClasses[0].name=a'], /storageClasses\[a\] has no plugin/],
      [['--set', 'csi.drivers[0].image=x'], /csi\.drivers\[0\] has no name/],
      [['--set', 'nodeAgent.enabled=true,storageClasses[0].name=l,storageClasses[0].plugin=host-path-node,storageClasses[0].volumeBindingMode=Immediate'], /storageClasses\[l\]: plugin host-path-node needs/],
      [['--set', 'cloud.provider=azure'], /cloud.provider must be none, aws, gce or openstack \(got "azure"\)/],
      [['--set', 'metrics.service.enabled=false,metrics.serviceMonitor.enabled=true'], /metrics.serviceMonitor.enabled needs metrics.service.enabled/],
    ];
    for (const [args, message] of cases) {
      const out = await renderFailure([...skipSchema, ...args]);
      assert.match(out, message);
      assert.doesNotMatch(out, /%!|<nil>/, out);
    }
  });
});

async function renderWithoutPin(args: string[]) {
  return render(['--set', 'hostPath.node=', ...args]);
}

async function chartAppVersion(): Promise<string> {
  const m = /^appVersion:\s*"?([^"\n]+)"?$/m.exec(await readFile(join(CHART_DIR, 'Chart.yaml'), 'utf8'));
  assert.ok(m, 'Chart.yaml has an appVersion');
  return m[1];
}
