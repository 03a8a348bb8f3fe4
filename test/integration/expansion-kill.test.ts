/**
 * A real crash in the middle of an expansion: the controller runs in a child process and is
 * killed with SIGKILL after EBS grew the volume and before the PV or the claim said so. What the
 * claim recorded before the call (allocatedResources, ControllerResizeInProgress) is all the next
 * controller needs: it finishes the expansion without a second ModifyVolume.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { AWS_EBS_PLUGIN_NAME } from '../../src/plugins/aws-ebs/parameters.js';
import { Ec2Emulator } from '../emulators/ec2.js';
import { startTestCluster } from '../helpers/cluster.js';
import { waitFor } from '../helpers/wait.js';
import { awsPlugin, boundClaim, cloudClaim, cloudClass, type CloudSetup, volumeOf } from './cloud-helpers.js';
import { claimWhen, requestStorage, resizeStatusOf } from './expansion-helpers.js';
import { TestApi } from './provisioning-helpers.js';

const CHILD = fileURLToPath(new URL('./expansion-child.js', import.meta.url));
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Starts the child controller; resolves once it is ready, with a promise of the volume it grows. */
async function startChild(kubeconfig: string, ec2Url: string): Promise<{ child: ChildProcess; expanded: Promise<string> }> {
  const child = spawn(process.execPath, [CHILD, kubeconfig, ec2Url], { detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
  cleanups.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    process.kill(-child.pid!, 'SIGKILL');
    await once(child, 'exit');
  });
  let out = '';
  let onExpanded: (id: string) => void = () => undefined;
  const expanded = new Promise<string>((resolve) => (onExpanded = resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('ready\n')) resolve();
      const match = /expanded (\S+)\n/.exec(out);
      if (match) onExpanded(match[1]);
    });
    child.once('exit', (code, signal) => reject(new Error(`controller child exited early (${code ?? signal})`)));
  });
  return { child, expanded };
}

test('kill -9 between the cloud growing the volume and the status write: the next controller finishes it with one ModifyVolume', async () => {
  const ec2 = new Ec2Emulator();
  await ec2.start();
  cleanups.push(() => ec2.stop());
  const cluster = await startTestCluster({ noHostPath: true, noController: true, controllerOptions: { metricsBindAddress: '0' } });
  const api = new TestApi(cluster.kc);
  cleanups.push(async () => (api.close(), await cluster.stop()));
  cluster.plugins.register(awsPlugin(ec2));
  const s = { api } as unknown as CloudSetup;
  const { child, expanded } = await startChild(cluster.api.server.kubeconfigPath, ec2.url);
  await api.createClass(cloudClass('grows', AWS_EBS_PLUGIN_NAME, { allowVolumeExpansion: true }));
  await api.createClaim(cloudClaim('data', 'grows', '1Gi'));
  await boundClaim(s, 'data');
  await requestStorage(s, 'data', '4Gi');
  const volumeId = await expanded;
  process.kill(-child.pid!, 'SIGKILL');
  await once(child, 'exit');

  assert.deepEqual(ec2.volumes().map((v) => v.sizeGiB), [4], 'EBS grew the volume');
  const recorded = await api.claim('default', 'data');
  assert.equal(resizeStatusOf(recorded!), 'ControllerResizeInProgress', 'the intent was recorded before the call');
  assert.deepEqual(recorded?.status?.allocatedResources, { storage: '4Gi' });
  assert.equal((await volumeOf(s, recorded!)).spec.capacity?.storage, '1Gi', 'and nothing after it');

  await cluster.startController();
  const done = await claimWhen(s, 'data', 'to wait for the node', (c) => resizeStatusOf(c) === 'NodeResizePending');
  assert.equal((await volumeOf(s, done)).spec.capacity?.storage, '4Gi');
  assert.equal(ec2.modifications.history.length, 1, 'one ModifyVolume in all');
  assert.ok(volumeId.endsWith(ec2.modifications.history[0].volumeId));
  await waitFor(async () => (await api.eventReasons('default', 'data')).includes('FileSystemResizeRequired'), 'the event');
});
