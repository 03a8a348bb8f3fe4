/**
 * `pv-controller orphans` as a user runs it: the compiled CLI in its own process, the cloud
 * reached through the SDK's standard environment (AWS_ENDPOINT_URL_EC2, OS_*), the cluster through
 * the embedded server's kubeconfig. A volume left behind on purpose is listed and `--delete`
 * removes only it; a bound claim's volume and another cluster's volume are never touched.
 */
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { TAG_AWS_NAME } from '@pv-controller/kube/annotations.js';
import { AWS_EBS_PLUGIN_NAME } from '../../../src/plugins/aws-ebs/parameters.js';
import { CINDER_PLUGIN_NAME } from '../../../src/plugins/cinder/parameters.js';
import { Ec2Emulator } from '../../emulators/ec2.js';
import { OpenStackEmulator } from '../../emulators/openstack.js';
import { runCli, stopCliProcesses } from '../../helpers/run-cli.js';
import {
  AWS_CREDENTIALS,
  awsEnvironment,
  awsPlugin,
  boundClaim,
  cinderPlugin,
  cloudClaim,
  cloudClass,
  type CloudSetup,
  expectedBackingName,
  openStackEnv,
  startCloudCluster,
} from '../cloud-helpers.js';

const teardown: Array<() => Promise<void>> = [];

afterEach(async () => {
  await stopCliProcesses();
  for (const step of teardown.splice(0).reverse()) await step();
});

const clusterTags = (name: string, cluster = 'kubernetes'): Record<string, string> => ({
  [TAG_AWS_NAME]: name,
  [`kubernetes.io/cluster/${cluster}`]: 'owned',
  'kubernetes.io/created-for/pv/name': name.slice(name.indexOf('-dynamic-') + '-dynamic-'.length),
  'kubernetes.io/created-for/pvc/name': 'forgotten',
  'kubernetes.io/created-for/pvc/namespace': 'default',
});

async function awsSetup(): Promise<{ s: CloudSetup; ec2: Ec2Emulator; env: Record<string, string> }> {
  const ec2 = new Ec2Emulator();
  await ec2.start();
  teardown.push(() => ec2.stop());
  const s = await startCloudCluster((topology) => awsPlugin(ec2, topology));
  teardown.push(() => s.stop());
  return { s, ec2, env: awsEnvironment(ec2) };
}

test('orphans: lists only the EBS volume left behind, and --delete removes only that one', async () => {
  const { s, ec2, env } = await awsSetup();
  await s.api.createClass(cloudClass('ebs', AWS_EBS_PLUGIN_NAME));
  const created = await s.api.createClaim(cloudClaim('kept', 'ebs'));
  await boundClaim(s, 'kept');
  const left = ec2.addVolume({ tags: clusterTags('kubernetes-dynamic-pvc-left-behind') });
  const foreign = ec2.addVolume({ tags: clusterTags('other-dynamic-pvc-theirs', 'other') });
  const kubeconfig = s.cluster.api.server.kubeconfigPath;

  const listed = await runCli(['orphans', '--kubeconfig', kubeconfig, '--cloud-provider', 'aws'], env);
  assert.equal(listed.code, 0, listed.stderr);
  const lines = listed.stdout.trim().split('\n');
  assert.match(lines[0], /^PLUGIN\s+NAME\s+ID\s+CLAIM\s+PV$/);
  assert.equal(lines.length, 2, listed.stdout);
  assert.deepEqual(lines[1].split(/\s+/), [AWS_EBS_PLUGIN_NAME, 'kubernetes-dynamic-pvc-left-behind', left.id, 'default/forgotten', 'pvc-left-behind']);
  assert.equal(ec2.volumes().length, 3, 'listing deletes nothing');

  const deleted = await runCli(['orphans', '--kubeconfig', kubeconfig, '--cloud-provider', 'aws', '--delete'], env);
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.match(deleted.stdout, new RegExp(`${left.id}\\s+deleted`));
  const remaining = ec2.volumes().map((v) => v.id).sort();
  const kept = ec2.volumes().find((v) => v.tags[TAG_AWS_NAME] === expectedBackingName(created));
  assert.ok(kept, "the bound claim's volume is still there");
  assert.deepEqual(remaining, [kept.id, foreign.id].sort());
  assert.doesNotMatch(deleted.stderr + deleted.stdout, new RegExp(AWS_CREDENTIALS.secretAccessKey));
});

test('orphans: a Cinder volume left behind is found through OS_* credentials and deleted; the bound one stays', async () => {
  const os = new OpenStackEmulator();
  await os.start();
  teardown.push(() => os.stop());
  const s = await startCloudCluster((topology) => cinderPlugin(os, topology));
  teardown.push(() => s.stop());
  await s.api.createClass(cloudClass('cinder', CINDER_PLUGIN_NAME, { parameters: { availability: os.zones[0] } }));
  const created = await s.api.createClaim(cloudClaim('kept', 'cinder'));
  await boundClaim(s, 'kept');
  const left = os.addVolume({ name: 'kubernetes-dynamic-pvc-left-behind', metadata: { 'kubernetes.io/cluster/kubernetes': 'owned' } });
  const args = ['orphans', '--kubeconfig', s.cluster.api.server.kubeconfigPath, '--cloud-provider', 'openstack', '--delete'];
  const result = await runCli(args, openStackEnv(os));
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, new RegExp(`${left.id}\\s+deleted`));
  assert.deepEqual(os.volumes().map((v) => v.name), [expectedBackingName(created)]);
  assert.doesNotMatch(result.stderr + result.stdout, new RegExp(os.password));
});

test('orphans: an unknown --cloud-provider exits 2 and one with nothing to scan says so', async () => {
  const bad = await runCli(['orphans', '--cloud-provider', 'azure'], {});
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--cloud-provider.*'azure' is invalid.*aws, gce, openstack, none/);
  const { s } = await awsSetup();
  const nothing = await runCli(['orphans', '--kubeconfig', s.cluster.api.server.kubeconfigPath], {});
  assert.equal(nothing.code, 2);
  assert.match(nothing.stderr, /no plugin to scan/);
});
