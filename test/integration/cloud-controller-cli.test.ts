/**
 * `pv-controller controller --cloud-provider aws` as deployed: its own process, the EC2 endpoint
 * and credentials from the SDK's standard environment, the selected node's zone read from the
 * node's labels through the API server. Nothing logged carries the secret key.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { RestTransport } from '../../src/kube-client/transport.js';
import { LABEL_TOPOLOGY_ZONE, TAG_AWS_NAME } from '@pv-controller/kube/annotations.js';
import type { PersistentVolumeClaim } from '@pv-controller/kube/types.js';
import { AWS_EBS_PLUGIN_NAME } from '../../src/plugins/aws-ebs/parameters.js';
import { Ec2Emulator } from '../emulators/ec2.js';
import { startTestApiServer } from '../helpers/apiserver.js';
import { waitFor } from '../helpers/wait.js';
import { AWS_CREDENTIALS, cloudClaim, cloudClass, expectedBackingName } from './cloud-helpers.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

test('controller --cloud-provider aws provisions an EBS volume in the selected node zone, with credentials only from the environment', async (t) => {
  const ec2 = new Ec2Emulator();
  await ec2.start();
  const srv = await startTestApiServer();
  const client = new RestTransport(srv.kc, { qps: 0, burst: 0 });
  const args = [MAIN, 'controller', '--kubeconfig', srv.server.kubeconfigPath, '--cloud-provider', 'aws', '--leader-elect', 'false'];
  args.push('--metrics-bind-address', '0', '--pvclaimbinder-sync-period', '2s', '--log-format', 'text', '-v', '4');
  const env = {
    PATH: process.env.PATH ?? '',
    AWS_ENDPOINT_URL_EC2: ec2.url,
    AWS_REGION: ec2.region,
    AWS_ACCESS_KEY_ID: AWS_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: AWS_CREDENTIALS.secretAccessKey,
    AWS_EC2_METADATA_DISABLED: 'true',
  };
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  t.after(async () => {
    if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    await exited;
    client.close();
    await srv.stop();
    await ec2.stop();
  });

  const create = (path: string, body: object) => client.request({ method: 'POST', verb: 'create', path, body });
  await create('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'worker-c', labels: { [LABEL_TOPOLOGY_ZONE]: 'us-east-1c' } } });
  const cls = cloudClass('ebs-late', AWS_EBS_PLUGIN_NAME, { volumeBindingMode: 'WaitForFirstConsumer' });
  await create('/apis/storage.k8s.io/v1/storageclasses', { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', ...cls });
  const claim = (await create('/api/v1/namespaces/default/persistentvolumeclaims', {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    ...cloudClaim('data', 'ebs-late', '1Gi', 'worker-c'),
  })) as PersistentVolumeClaim;
  const claimPath = '/api/v1/namespaces/default/persistentvolumeclaims/data';
  await waitFor(async () => {
    const live = await client.request<PersistentVolumeClaim>({ method: 'GET', verb: 'get', path: claimPath });
    return live.status?.phase === 'Bound';
  }, 'the claim to be Bound', { timeoutMs: 60_000 });
  const disks = ec2.volumes().filter((v) => v.tags[TAG_AWS_NAME] === expectedBackingName(claim));
  assert.equal(disks.length, 1);
  assert.equal(disks[0].zone, 'us-east-1c');
  process.kill(child.pid!, 'SIGTERM');
  assert.equal(await exited, 0, stderr);
  assert.match(stderr, /registering the aws-ebs volume plugin/);
  assert.ok(!stderr.includes(AWS_CREDENTIALS.secretAccessKey), 'the secret key is never logged');
});
